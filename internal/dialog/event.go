package dialog

import "time"

// Event is one thing that happened during a turn, in order, as the
// agent emits it: one of the kinds below, each a struct of its own
// fields, as go/ast's nodes are (Kinds lists one of each). A front end
// switches on them (TestSwitchesOverClosedSetsAreExhaustive holds every
// such switch of a front end, cmd or the host to name each kind, those
// it leaves out in an empty case). Which subagent an event is of travels
// beside it (Port.Show's from), not inside it.
type Event interface {
	// isEvent closes the set of kinds to this package's.
	isEvent()
}

// TextEvent is a piece of the model's text, to append to what it said.
type TextEvent struct {
	Text string // a delta
}

// ThoughtEvent is one of the model's thoughts.
type ThoughtEvent struct {
	Thought Thought
}

// ToolCallEvent is a call the model made, before it runs.
type ToolCallEvent struct {
	Call ToolCall
}

// ToolResultEvent is how a call ended.
type ToolResultEvent struct {
	Result ToolResult
}

// UsageEvent is a model response's tokens, the sums so far of the prompt
// and of the whole session, and the concrete model that answered (where
// an auto routed the prompt).
type UsageEvent struct {
	Usage UsageReport
}

// ErrorEvent is what failed the turn, or a subagent's run.
type ErrorEvent struct {
	Err error
}

// RetryEvent: a model request failed and is tried again after a wait.
type RetryEvent struct {
	Retry RetryInfo
}

// CompressedEvent: the history was summarised to fit the context window.
type CompressedEvent struct {
	Compression CompressionInfo
}

// NoticeEvent is something the user must be told that is not the model's
// text, such as a switch to the fallback model.
type NoticeEvent struct {
	Text string
	// Aside: the notice is of gemini-ls's own machinery (a fallback of
	// model, a session or checkpoint not saved), not of the turn's work;
	// a front end with a place for such apart from the conversation
	// (ACP's session notices) may show it there.
	Aside bool
	// NotOffered, when not nil, says the notice is of a call of a tool
	// the session's mode did not offer the model: the call did not run.
	NotOffered *NotOffered
}

// NotOffered is a call of Tool that did not run because the approval
// Mode did not offer the tool to the model; OfferedIn is the first mode
// of default, auto_edit and yolo that would, "" for none (only the
// settings' tools.allowed).
type NotOffered struct {
	Tool            string
	Mode, OfferedIn ApprovalMode
}

// ModeEvent: a call (the planning tools) or a command (/plan) switched
// the session's approval mode to Mode.
type ModeEvent struct {
	Mode ApprovalMode
}

// ModelEvent: a command (/model set) chose the model every session's
// requests go to from now on; Model is it as named (an alias or a
// concrete model).
type ModelEvent struct {
	Model string
}

// TopicEvent: the model named what it is doing (update_topic); Topic is
// the session's topic now. Front ends show it where they show the turn's
// progress.
type TopicEvent struct {
	Topic Topic
}

// PlanEvent: the model wrote its plan as a checklist in its answer, where
// it was not offered write_todos: Todos is the list, which a front end
// shows as the session's plan, as a write_todos call's (ToolCall.Todos),
// replacing the last.
type PlanEvent struct {
	Todos []Todo
}

// CommandsEvent: the commands a prompt may start with were read again
// (/commands reload); a front end that pushes its list sends it anew.
type CommandsEvent struct{}

func (TextEvent) isEvent()       {}
func (ThoughtEvent) isEvent()    {}
func (ToolCallEvent) isEvent()   {}
func (ToolResultEvent) isEvent() {}
func (UsageEvent) isEvent()      {}
func (ErrorEvent) isEvent()      {}
func (RetryEvent) isEvent()      {}
func (CompressedEvent) isEvent() {}
func (NoticeEvent) isEvent()     {}
func (ModeEvent) isEvent()       {}
func (ModelEvent) isEvent()      {}
func (TopicEvent) isEvent()      {}
func (PlanEvent) isEvent()       {}
func (CommandsEvent) isEvent()   {}

// Kinds is one event of every kind, for a test to hold each consumer of
// events to handling them all (TestKindsListsEveryKind keeps it whole).
func Kinds() []Event {
	return []Event{
		TextEvent{},
		ThoughtEvent{},
		ToolCallEvent{},
		ToolResultEvent{},
		UsageEvent{},
		ErrorEvent{},
		RetryEvent{},
		CompressedEvent{},
		NoticeEvent{},
		ModeEvent{},
		ModelEvent{},
		TopicEvent{},
		PlanEvent{},
		CommandsEvent{},
	}
}

// Subagent names the subagent run an event belongs to; its zero value
// is the main agent.
type Subagent struct {
	// CallID is the id of the main agent's invoke_agent call that runs
	// it; "" for the main agent's own events.
	CallID string
	// Name is the agent's name (codebase_investigator, a user's agent).
	Name string
}

// RetryInfo describes a retry about to wait.
type RetryInfo struct {
	Attempt int `json:"attempt"` // the attempt that failed, from 1
	// Delay goes on the wire in milliseconds (delayMs), not as a Duration.
	Delay  time.Duration `json:"-"`
	Reason string        `json:"reason"` // why it failed, in words
}

// CompressionInfo is the history's size in tokens before and after it was
// compressed.
type CompressionInfo struct {
	Before int32 `json:"tokensBefore"`
	After  int32 `json:"tokensAfter"`
}

// Thought is a model thought split as the reference shows it: a **subject**
// line and the rest.
type Thought struct {
	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`
}

// The json tags of the events' types are their fields' names in LSP's
// gemini/update (docs/protocol.md 6), whose types embed them: a field
// added here goes to the editors under its tag, and one tagged "-" does
// not (lsp's tests refuse a field without a tag).

// ToolCall is a call the model made, before it runs.
type ToolCall struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	Title  string `json:"title"`
	// Kind is what the call can do; "" when the call could not be built.
	// On the wire it is toolKind: an update's kind is its own.
	Kind Kind           `json:"toolKind,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	// Path is the file the call is about, for the front end to show or
	// follow (tools.Located: the file read_file reads, replace and
	// write_file change, exit_plan_mode's plan); "" for most calls. Line
	// is the 1-based line in it the call starts at (read_file's
	// start_line, the line an edit changes first: tools.Preparing); 0
	// for none. Path is absolute: each front end names it
	// as it names files (LSP relative to the first root), so it is not
	// sent as is.
	Path string `json:"-"`
	Line int    `json:"line,omitempty"`
	// Todos is the to-do list the call sets (write_todos), which a front
	// end shows as the session's plan; nil for any other call, empty
	// when the call clears the list (sent empty, not left out).
	Todos []Todo `json:"todos,omitzero"`
	// PresentsPlan says Path is a plan the call asks the user to approve
	// (exit_plan_mode): a front end opens it for the user to read.
	PresentsPlan bool `json:"presentsPlan,omitempty"`
}

// Todo is one item of the model's to-do list: its description and its
// status (pending, in_progress, completed, cancelled, blocked).
type Todo struct {
	Description string `json:"description"`
	Status      string `json:"status"`
}

// ToolResult is how a call ended.
type ToolResult struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Display is Markdown, sent even empty (read_file of a whole file
	// shows nothing).
	Display string `json:"display"`
	// Outcome, for an edit the user took otherwise than proposed, says
	// how in a few words, for the call's line: "accepted in part: 1 of 2
	// changes" (their review took some of its changes and dropped the
	// others) or "accepted with your changes"; "" for any other call.
	Outcome string `json:"outcome,omitempty"`
	// ErrorType is Gemini CLI 0.61's ToolErrorType of a failure gemini-ls
	// tells apart where 0.61 names it in its output ("tool_not_registered":
	// the call named no tool the model was told of); "" otherwise.
	ErrorType string `json:"-"`
	// Found is what a search found, for a front end to list as links
	// (grep_search's matching lines, glob's files, list_directory's
	// entries), in the result's order; nil for any other call. Paths
	// are absolute: each front end names them as it names files.
	Found []Location `json:"-"`
}

// Location is a place a result names: a file or directory (absolute)
// and a 1-based line in it, 0 for none.
type Location struct {
	Path string
	Line int
	Dir  bool
}

// UsageReport is what a UsageEvent tells: the response's tokens, the
// sums so far of the prompt and of the whole session, the concrete
// model that answered (where an auto routed the prompt), and how full
// the model's context window is.
type UsageReport struct {
	Response, Prompt, Session Usage
	Model                     string
	Context                   ContextFill
}

// ContextFill is how much of a model's context window a request took:
// Used is the request's prompt tokens as the model counted them (history,
// system instruction and tools), Size the window of the model that
// answered.
type ContextFill struct {
	Used int32 `json:"contextUsed"`
	Size int32 `json:"contextSize"`
}

// Usage is the token accounting of one model response.
type Usage struct {
	PromptTokens     int32 `json:"promptTokens"`
	CandidatesTokens int32 `json:"candidatesTokens"`
	ThoughtsTokens   int32 `json:"thoughtsTokens"`
	TotalTokens      int32 `json:"totalTokens"`
	// CachedTokens are the part of PromptTokens served from the context
	// cache; ToolUseTokens the tool-use prompt's (Gemini's
	// cachedContentTokenCount and toolUsePromptTokenCount).
	CachedTokens  int32 `json:"cachedTokens"`
	ToolUseTokens int32 `json:"toolUseTokens"`
}

// Add is the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CandidatesTokens: u.CandidatesTokens + v.CandidatesTokens,
		ThoughtsTokens:   u.ThoughtsTokens + v.ThoughtsTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
		CachedTokens:     u.CachedTokens + v.CachedTokens,
		ToolUseTokens:    u.ToolUseTokens + v.ToolUseTokens,
	}
}
