package lsp

import (
	"strconv"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The payloads of gemini/update (docs/protocol.md 6), one type per kind,
// each with only its own fields beside the header every update carries.
// updateKinds lists them with an example and what each means: the wire
// schema (docs/protocol.schema.json) and protocol.md's table of kinds are
// generated from it (go generate .), and each editor client's tests hold
// its handlers to the schema.
//
// An update embeds the dialog type of its event beside updateHead, so the
// wire follows the dialog type: a field added there is sent under its
// json tag (TestEveryWireFieldIsNamed refuses one without), and a field
// tagged "-" is not. Where the wire names a field otherwise than the
// dialog type holds it (a path, a delay), the update adds its own field
// and its constructor (toolCallUpdateOf, …) fills it.

// update is one gemini/update's params: a closed set, updateKinds.
type update interface {
	// kind is the update's word on the wire (updateHead.UpdateKind).
	kind() string
	head() *updateHead
}

// updateHead is what every update carries: the session, the kind, and
// for a subagent's event, its invoke_agent call and the agent's name.
//
// Its Go name for kind is UpdateKind: a Kind here would hide the Kind of
// the dialog type an update embeds (dialog.ToolCall's, sent as toolKind)
// from reflection, and so from the schema.
type updateHead struct {
	SessionID    string `json:"sessionId"`
	UpdateKind   string `json:"kind"`
	ParentCallID string `json:"parentCallId,omitempty"`
	AgentName    string `json:"agentName,omitempty"`
}

func (h *updateHead) head() *updateHead { return h }

type textUpdate struct {
	updateHead
	Text string `json:"text"`
}

type thoughtUpdate struct {
	updateHead
	dialog.Thought
}

// toolCallUpdate is dialog.ToolCall with its file named as protocol.md
// names files: relative to the first workspace root, or absolute outside
// it (toolCallUpdateOf).
type toolCallUpdate struct {
	updateHead
	dialog.ToolCall
	Path string `json:"path,omitempty"`
}

// toolResultUpdate is dialog.ToolResult with what a search found named
// as protocol.md names files, at most maxFound of it
// (toolResultUpdateOf).
type toolResultUpdate struct {
	updateHead
	dialog.ToolResult
	Found      []foundPlace `json:"found,omitempty"`
	FoundTotal int          `json:"foundTotal,omitempty"`
}

// foundPlace is a place a search found: a file or directory and its
// 1-based line (absent for none).
type foundPlace struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Dir  bool   `json:"dir,omitempty"`
}

// maxFound bounds the places a toolResult lists: a grep of a common word
// finds thousands of lines, and a client lists a few.
const maxFound = 100

// usageUpdate is dialog.UsageReport with the response's counts inline,
// as the first usage update had them: the report is spread, not embedded.
type usageUpdate struct {
	updateHead
	// Model is the concrete model that answered; "" if unknown.
	Model string `json:"model,omitempty"`
	dialog.Usage
	// PromptUsage and SessionUsage are the sums so far.
	PromptUsage  dialog.Usage `json:"promptUsage"`
	SessionUsage dialog.Usage `json:"sessionUsage"`
	// ContextFill is how much of the model's window the request took.
	dialog.ContextFill
}

// retryUpdate is dialog.RetryInfo with its delay in milliseconds.
type retryUpdate struct {
	updateHead
	dialog.RetryInfo
	DelayMs int64 `json:"delayMs"`
}

type compressedUpdate struct {
	updateHead
	dialog.CompressionInfo
}

type noticeUpdate struct {
	updateHead
	Message string `json:"message"`
}

type errorUpdate struct {
	updateHead
	Message   string    `json:"message"`
	ErrorKind errorKind `json:"errorKind,omitempty"`
}

type modeUpdate struct {
	updateHead
	Mode string `json:"mode"`
}

// modelUpdate: Model as named, Name as shown.
type modelUpdate struct {
	updateHead
	Model string `json:"model"`
	Name  string `json:"name"`
}

// topicUpdate: the summary (text) is sent only when the topic is new
// (topicUpdateOf).
type topicUpdate struct {
	updateHead
	dialog.Topic
}

// planUpdate is the plan the model wrote as a checklist (dialog.PlanEvent),
// its todos as a write_todos toolCall's.
type planUpdate struct {
	updateHead
	Todos []dialog.Todo `json:"todos"`
}

type commandsUpdate struct {
	updateHead
}

// toolCallUpdateOf is c's update, its file named as ws shows it (a nil
// ws, before initialize, names it as given).
func toolCallUpdateOf(c dialog.ToolCall, ws *workspace.Workspace) *toolCallUpdate {
	up := &toolCallUpdate{ToolCall: c}
	if c.Path != "" {
		up.Path = ws.Display(c.Path)
	}
	return up
}

// toolResultUpdateOf is r's update, the first maxFound places it found
// named as ws shows them, and how many it found in all.
func toolResultUpdateOf(r dialog.ToolResult, ws *workspace.Workspace) *toolResultUpdate {
	up := &toolResultUpdate{ToolResult: r}
	if len(r.Found) == 0 {
		return up
	}
	up.FoundTotal = len(r.Found)
	for _, l := range r.Found[:min(len(r.Found), maxFound)] {
		up.Found = append(up.Found, foundPlace{Path: ws.Display(l.Path), Line: l.Line, Dir: l.Dir})
	}
	return up
}

func usageUpdateOf(r dialog.UsageReport) *usageUpdate {
	return &usageUpdate{Model: r.Model, Usage: r.Response, PromptUsage: r.Prompt, SessionUsage: r.Session, ContextFill: r.Context}
}

func retryUpdateOf(r dialog.RetryInfo) *retryUpdate {
	return &retryUpdate{RetryInfo: r, DelayMs: r.Delay.Milliseconds()}
}

// topicUpdateOf is t's update: its summary only when t starts a topic.
func topicUpdateOf(t dialog.Topic) *topicUpdate {
	if !t.New {
		t.Summary = ""
	}
	return &topicUpdate{Topic: t}
}

func (*textUpdate) kind() string       { return "text" }
func (*thoughtUpdate) kind() string    { return "thought" }
func (*toolCallUpdate) kind() string   { return "toolCall" }
func (*toolResultUpdate) kind() string { return "toolResult" }
func (*usageUpdate) kind() string      { return "usage" }
func (*retryUpdate) kind() string      { return "retry" }
func (*compressedUpdate) kind() string { return "compressed" }
func (*noticeUpdate) kind() string     { return "notice" }
func (*errorUpdate) kind() string      { return "error" }
func (*modeUpdate) kind() string       { return "mode" }
func (*modelUpdate) kind() string      { return "model" }
func (*topicUpdate) kind() string      { return "topic" }
func (*planUpdate) kind() string       { return "plan" }
func (*commandsUpdate) kind() string   { return "commands" }

// updateKind is one kind of update: an example of it, and what it means
// (Markdown, for docs/protocol.md).
type updateKind struct {
	example update
	meaning string
}

// updateKinds is every kind of update, in docs/protocol.md's order.
func updateKinds() []updateKind {
	return []updateKind{
		{&textUpdate{Text: "I'll change the greeting."},
			"A piece of the model's answer, a delta. " +
				"Once the prompt has text, the first delta of each later model answer starts with the line breaks that make a blank line before it: `\\n\\n`, or `\\n` when the text so far ends with one line break (nothing when it ends with a blank line). " +
				"So text from separate model requests never runs together, and the deltas add up to the result's `text` ([5](#5-geminiprompt); an answer cut short by cancellation aside). " +
				"The session's history keeps what the model said, without these breaks."},
		{&thoughtUpdate{Thought: dialog.Thought{Subject: "Planning the change", Description: "I will edit greet."}},
			"A model thought. " +
				"If the thought begins with a `**bold**` line, that line becomes `subject` and the rest becomes `description`. " +
				"Otherwise the whole thought is `description`."},
		{&toolCallUpdate{ToolCall: dialog.ToolCall{CallID: "call_1", Name: "replace", Title: "Edit main.go", Kind: dialog.KindEdit, Args: map[string]any{"file_path": "main.go", "old_string": `return "Hello"`, "new_string": `return "Hi"`}}, Path: "main.go"},
			"The model called a tool. " +
				"`title` is one human-readable line, such as `Edit main.go`, `ReadFile main.go` or `Shell go test ./... " +
				"(Run the tests)`. " +
				"The server sends it once the model's answer has finished streaming, just before the call runs. " +
				"The calls of one answer run at once, as Gemini CLI 0.61 runs them: a `replace` or `write_file` call, and any call whose arguments carry `\"wait_for_previous\": true`, starts only once every earlier call of the answer has ended, and the later ones wait for it; the others run together. " +
				"An `update_topic` call runs first, alone. " +
				"When the user declines a call's question (`gemini/confirm`) or an edit (at its preview, its question or its `workspace/applyEdit`), the calls after the next such waiting point are not run: their `toolResult` has status `cancelled`. " +
				"An edit refused with nobody asked (an editor that can neither preview nor ask, or that fails to apply it, giving a reason) is no user's no and cancels nothing. " +
				"So the updates of calls running at once interleave: pair them by `callId`. " +
				"Their questions (`gemini/confirm`, an edit's `workspace/applyEdit`, `ask_user`) still come one at a time, in call order; a call that needs no question does not wait for an unanswered one. " +
				"The model gets the results in the order of its calls. " +
				"What the call is, for the client to show: `toolKind`, what the tool does (`read`, `edit`, `search`, `execute`, `fetch`, `think`, `agent`, `communicate` (`ask_user`) or `other`; absent when the call could not be built); " +
				"`path`, the file the call is about (the file `read_file` reads, `replace`, `write_file` and `rename_symbol` change, the plan `exit_plan_mode` presents), relative to the first workspace root or absolute outside it, as edit labels name files ([8.1](#81-how-a-change-is-confirmed)); " +
				"`line`, the 1-based line in it the call starts at (`read_file`'s `start_line`, `rename_symbol`'s and `navigate_code`'s `line`; for `replace` the line `old_string` starts at in the file as the call reads it, the editor's text where the document is open, absent when it is not found; for `write_file` the first line it changes, 1 for a new file; absent for a whole file); " +
				"`todos`, the to-do list `write_todos` sets, each `{description, status}` (`status`: `pending`, `in_progress`, `completed`, `cancelled` or `blocked`), sent empty when the call clears the list, on `exit_plan_mode` the plan's checklist or numbered steps (all `pending`) where it has some, and absent for any other call, the list the client shows as the session's plan, each call's (and each `plan` update's) replacing the last; " +
				"`presentsPlan`, set when `path` is a plan the call asks the user to approve (`exit_plan_mode`)."},
		{&toolResultUpdate{ToolResult: dialog.ToolResult{CallID: "call_1", Name: "replace", Status: dialog.StatusOK, Display: "```diff\n--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-func greet() string { return \"Hello\" }\n+func greet() string { return \"Hi\" }\n```"}},
			"How the call ended. " +
				"`status`: `ok`, `error`, `rejected` (the user or the approval mode refused) or `cancelled`. " +
				"`display` is Markdown for the user. " +
				"For an applied, modified or declined edit it contains a fenced `diff`. " +
				"`found`, for a search (`grep_search`, `glob`, `list_directory`), is what it found, for the client to list as links, in the order the model was told it: each `{path, line, dir}`, `path` named as `toolCall`'s is, `line` the 1-based line of a `grep_search` match (absent for a file), `dir` set for a directory; at most " + strconv.Itoa(maxFound) + " of them, `foundTotal` how many there were in all. " +
				"Both are absent for any other call, and for a search that found nothing."},
		{&usageUpdate{Model: "gemini-3-flash-preview", Usage: dialog.Usage{PromptTokens: 109, CandidatesTokens: 20, TotalTokens: 129, CachedTokens: 64}, PromptUsage: dialog.Usage{PromptTokens: 109, CandidatesTokens: 20, TotalTokens: 129, CachedTokens: 64}, SessionUsage: dialog.Usage{PromptTokens: 530, CandidatesTokens: 96, ThoughtsTokens: 12, TotalTokens: 638, CachedTokens: 256}, ContextFill: dialog.ContextFill{Used: 109, Size: 1048576}},
			"Token counts of one model response, and `model`, the concrete model that gave it: where `auto` (the default) routed the prompt, or the model it fell back to. " +
				"One is sent per model request; its counts are not cumulative. " +
				"`cachedTokens` is the part of `promptTokens` served from the context cache, `toolUseTokens` the tool-use prompt's (Gemini's `cachedContentTokenCount` and `toolUsePromptTokenCount`). " +
				"`promptUsage` and `sessionUsage` are objects with the same six fields: the sums so far of this prompt and of the whole session (earlier prompts included, also those before a resume). " +
				"`contextUsed` is the request's prompt tokens (history, system instruction and tools, as the model counted them) and `contextSize` the model's context window: how full the window is."},
		{&retryUpdate{RetryInfo: dialog.RetryInfo{Attempt: 1, Reason: "the model is rate-limited (429 RESOURCE_EXHAUSTED)"}, DelayMs: 2000},
			"A model request failed (`reason`, in words: `the model is rate-limited (429 RESOURCE_EXHAUSTED)`, `could not connect to http://127.0.0.1:8080: connection refused`) and is tried again after `delayMs`. " +
				"Sent before the wait; the wait ends early when the prompt is cancelled. " +
				"`attempt` is the attempt that failed, from 1."},
		{&compressedUpdate{CompressionInfo: dialog.CompressionInfo{Before: 612034, After: 98211}},
			"The history passed `model.compressionThreshold` of the model's window, and its oldest part was replaced by a summary. " +
				"Sent only when the summary made the history smaller."},
		{&noticeUpdate{Message: "Switched to gemini-2.5-flash for the rest of this session because gemini-2.5-pro is out of quota."},
			"Something the user should know that is not the model's text, such as a switch to the fallback model."},
		{&errorUpdate{Message: "The API key stored in the editor is not valid: enter another key from https://aistudio.google.com/apikey in the editor, or sign in with Google instead.", ErrorKind: "invalid_api_key"},
			"The model call failed, or returned no answer twice. " +
				"The prompt then ends with `stopReason: \"error\"`. " +
				"`errorKind`, where the failure has one, is what went wrong as one word the client picks its fix from ([14](#14-errors)), never the message's words."},
		{&modeUpdate{Mode: "plan"},
			"A call switched the session's approval mode: `enter_plan_mode` to `plan`, an approved `exit_plan_mode` to `auto_edit` or `default` (the user's choice). " +
				"Sent after the call's `toolCall`, before its `toolResult`. " +
				"The new mode holds for this session only, until the approval mode is set anew (`initializationOptions`, `workspace/didChangeConfiguration`)."},
		{&modelUpdate{Model: "gemini-3.1-pro-preview-customtools", Name: "gemini-3.1-pro-preview"},
			"`/model set` chose the model every session's next request goes to: `model` as named (what [`gemini/models`](#5f-geminimodels) calls `current`), `name` how it is shown (`currentName`). " +
				"It holds until `/model set` or the settings (`initializationOptions`, `workspace/didChangeConfiguration`) choose another."},
		{&topicUpdate{Topic: dialog.Topic{Title: "Serving files", Intent: "Start the server and check it serves.", New: true, Summary: "Start a web server."}},
			"The model called `update_topic`: `title` is the session's topic, `intent` what the model means to do now, `newTopic` says the title starts a new topic, and then `text` is its summary."},
		{&planUpdate{Todos: []dialog.Todo{{Description: "Read the handler", Status: "completed"}, {Description: "Add the cache", Status: "pending"}}},
			"The model wrote its plan as a checklist in its answer (`- [ ] step`, `- [x] step done`; two items or more, outside code blocks) where it was not offered `write_todos` (Gemini CLI 0.61 offers it only to Gemini 2 models, so not under `auto`). " +
				"`todos` is the list, each `{description, status}` (`pending` or `completed`), shown as the session's plan as a `write_todos` `toolCall`'s `todos` is, replacing the last. " +
				"Sent after the answer's `text`; the main agent's only. " +
				"Plan mode's plan comes as `todos` on `exit_plan_mode`'s `toolCall`: its checklist, else its numbered steps."},
		{&commandsUpdate{},
			"The commands a prompt may start with were read again (`/commands reload`): a client that keeps the [`gemini/commands`](#5c-geminicommands) list asks for it anew."},
	}
}
