package dialog

import (
	"time"
)

// EventKind names what an Event carries.
type EventKind string

const (
	EventText       EventKind = "text"
	EventThought    EventKind = "thought"
	EventToolCall   EventKind = "toolCall"
	EventToolResult EventKind = "toolResult"
	EventUsage      EventKind = "usage"
	EventError      EventKind = "error"
	// EventRetry: a model request failed and is tried again after a wait.
	EventRetry EventKind = "retry"
	// EventCompressed: the history was summarised to fit the context window.
	EventCompressed EventKind = "compressed"
	// EventNotice: something the user must be told that is not the
	// model's text, such as a switch to the fallback model.
	EventNotice EventKind = "notice"
	// EventMode: a call switched the session's approval mode (the
	// planning tools); Mode is the new one.
	EventMode EventKind = "mode"
	// EventModel: a command (/model set) chose the model every session's
	// requests go to from now on; Model is it as named (an alias or a
	// concrete model).
	EventModel EventKind = "model"
	// EventTopic: the model named what it is doing (update_topic); Topic
	// is the session's topic now. Front ends show it where they show the
	// turn's progress.
	EventTopic EventKind = "topic"
	// EventCommands: the commands a prompt may start with were read again
	// (/commands reload); a front end that pushes its list sends it anew.
	EventCommands EventKind = "commands"
)

// Event is one thing that happened during a turn, in order, as the
// agent emits it. A front end never reads one: the conversation host
// hands each to the method of the turn's view that shows its kind.
type Event struct {
	Kind EventKind

	// Subagent says the event is a subagent's, of the invoke_agent call
	// that runs it: front ends show it nested under that call. Zero for
	// the main agent's own events.
	Subagent Subagent

	Text string // EventText: a delta

	Thought Thought // EventThought

	ToolCall   ToolCall   // EventToolCall
	ToolResult ToolResult // EventToolResult

	// EventUsage: the response's tokens, and the sums so far of the
	// prompt and of the whole session; Model is the concrete model that
	// answered (where an auto routed the prompt). EventModel uses Model.
	Usage, PromptUsage, SessionUsage Usage
	Model                            string

	Err error // EventError

	Retry      RetryInfo       // EventRetry
	Compressed CompressionInfo // EventCompressed
	// EventNotice uses Text.

	Mode ApprovalMode // EventMode

	Topic Topic // EventTopic
}

// Subagent names the subagent run an event belongs to.
type Subagent struct {
	// CallID is the id of the main agent's invoke_agent call that runs
	// it; "" for the main agent's own events.
	CallID string
	// Name is the agent's name (codebase_investigator, a user's agent).
	Name string
}

// RetryInfo describes a retry about to wait.
type RetryInfo struct {
	Attempt int // the attempt that failed, from 1
	Delay   time.Duration
	Reason  string // why it failed, in words
}

// CompressionInfo is the history's size in tokens before and after it was
// compressed.
type CompressionInfo struct {
	Before, After int32
}

// Thought is a model thought split as the reference shows it: a **subject**
// line and the rest.
type Thought struct {
	Subject     string
	Description string
}

// ToolCall is a call the model made, before it runs.
type ToolCall struct {
	CallID string
	Name   string
	Title  string
	// Kind is what the call can do; "" when the call could not be built.
	Kind Kind
	Args map[string]any
	// Path is the file the call is about, for the front end to show or
	// follow (tools.Located: the file read_file reads, replace and
	// write_file change, exit_plan_mode's plan); "" for most calls. Line
	// is the 1-based line in it the call starts at (read_file's
	// start_line); 0 for none.
	Path string
	Line int
}

// ToolResult is how a call ended.
type ToolResult struct {
	CallID  string
	Name    string
	Status  Status
	Display string // Markdown
}

// UsageReport is what an EventUsage tells: the response's tokens, the
// sums so far of the prompt and of the whole session, and the concrete
// model that answered (where an auto routed the prompt).
type UsageReport struct {
	Response, Prompt, Session Usage
	Model                     string
}

// Usage is the token accounting of one model response.
type Usage struct {
	PromptTokens     int32
	CandidatesTokens int32
	ThoughtsTokens   int32
	TotalTokens      int32
	// CachedTokens are the part of PromptTokens served from the context
	// cache; ToolUseTokens the tool-use prompt's (Gemini's
	// cachedContentTokenCount and toolUsePromptTokenCount).
	CachedTokens  int32
	ToolUseTokens int32
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
