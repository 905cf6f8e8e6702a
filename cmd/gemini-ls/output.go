package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// output renders a headless run in one of the output formats. Its
// methods are called one at a time (report's lock).
type output interface {
	begin(sessionID, model, prompt string)
	// text, thought, toolCall, toolResult and failed show the run's
	// events a format may show, each of from (a subagent's, or the main
	// agent's); report tells the others on stderr, or nothing.
	text(from dialog.Subagent, text string)
	thought(from dialog.Subagent, t dialog.Thought)
	toolCall(from dialog.Subagent, c dialog.ToolCall)
	toolResult(from dialog.Subagent, r dialog.ToolResult)
	failed(from dialog.Subagent, err error)
	// warn carries a warning, which report has written to stderr, in the
	// format's own way: nothing more in text.
	warn(msg string)
	// progress says what the run did that the answer may not (a call
	// that ran, a file it wrote): text on stderr, a line each; the json
	// formats, whose stats or events carry it, leave it out, as Gemini
	// CLI 0.61's do.
	progress(line string)
	end(o conversation.Outcome, st stats)
	// abort ends a run whose prompt failed before the model was asked,
	// exiting with code, as 0.61's handleError does in the format: line
	// on stderr in text, json's error object on stderr in its place,
	// stream-json's error result on stdout after line.
	abort(code int, line, msg string)
}

// report is a run's output: the format's on stdout, and on stderr
// whatever the format every warning (a start-up notice, a retry's wait,
// a switch of model, a compression) and every call that did not succeed
// (refused, failed or cancelled), as Gemini CLI writes its warnings and
// the tools it could not run there. json and stream-json carry the
// warnings too, and the calls in their stats. It shows the run's turn
// (Show: the port run hands with its prompt shows the events through it).
// Safe for concurrent use: setup's warnings may
// come from any goroutine.
type report struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
	// out is the format's, nil until it is chosen; early are the
	// warnings told before.
	out   output
	early []string
	// titles are the running calls' titles, for stderr, by the
	// invoke_agent call a subagent's runs under ("" for the main agent's)
	// and call id: a subagent numbers its calls its own way.
	titles map[[2]string]string
	// files counts the lines of the changes landed.
	files fileStats
	// dir is the run's directory, which the files written are named
	// from.
	dir string
	// raw: the model's text is printed as it is; else without terminal
	// escape sequences, as Gemini CLI strips them (--raw-output).
	raw bool
	// notOffered are the calls that did not run because the mode did not
	// offer their tool, each told once (the notice), and counted at the
	// end; told counts, by tool, those whose result is still to come.
	notOffered []dialog.NotOffered
	told       map[string]int
}

// landed counts the lines change adds and removes, and says the file
// was written.
func (r *report) landed(change workspace.FileChange) {
	added, removed := workspace.DiffStat(change.Before, change.After)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files.TotalLinesAdded += added
	r.files.TotalLinesRemoved += removed
	line := fmt.Sprintf("edited %s (+%d -%d)", r.shownPath(change.Path), added, removed)
	if !change.Exists {
		line = fmt.Sprintf("created %s (+%d)", r.shownPath(change.Path), added)
	}
	if r.out != nil {
		r.out.progress(line)
	}
}

// shownPath is path as the user named the run's directory: relative to
// it when inside it.
func (r *report) shownPath(path string) string {
	if r.dir == "" {
		return path
	}
	rel, err := filepath.Rel(r.dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// runsIn names the files the run writes from dir, its directory.
func (r *report) runsIn(dir string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir = dir
}

// newReport is a run's report in format; with format "", in the format
// choose names later.
func newReport(format string, stdout, stderr io.Writer) (*report, error) {
	r := &report{stdout: stdout, stderr: stderr, titles: map[[2]string]string{}}
	if format == "" {
		return r, nil
	}
	return r, r.choose(format)
}

// choose makes format the run's output, the warnings told before it
// carried into it. It is chosen once the settings are read, which may
// name it (output.format).
func (r *report) choose(format string) error {
	var out output
	switch format {
	case "text":
		out = &textOutput{w: r.stdout, errw: r.stderr}
	case "json":
		out = &jsonOutput{w: r.stdout, errw: r.stderr}
	case "stream-json":
		out = &streamOutput{enc: json.NewEncoder(r.stdout), errw: r.stderr}
	default:
		return fmt.Errorf("the output format must be text, json or stream-json, not %q", format)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, msg := range r.early {
		out.warn(msg)
	}
	r.out, r.early = out, nil
	return nil
}

// warn tells the user msg, something that is not the answer.
func (r *report) warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnLocked(msg)
}

func (r *report) warnLocked(msg string) {
	fmt.Fprintf(r.stderr, "gemini-ls: %s\n", msg)
	if r.out == nil {
		r.early = append(r.early, msg)
		return
	}
	r.out.warn(msg)
}

func (r *report) begin(sessionID, model, prompt string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.begin(sessionID, model, prompt)
}

// Show shows ev: the answer, thoughts, calls and errors as the format
// does; what is not the answer (a retry's wait, a compression, a notice)
// on stderr in words, as warn. No format shows usage, a switch of mode
// or model, a topic or the command list's change, nor does stderr.
func (r *report) Show(_ context.Context, from dialog.Subagent, ev dialog.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case dialog.TextEvent:
		text := ev.Text
		if !r.raw {
			text = stripANSI(text)
		}
		r.out.text(from, text)
	case dialog.ThoughtEvent:
		r.out.thought(from, ev.Thought)
	case dialog.ToolCallEvent:
		// Its title names it on stderr if it fails.
		r.titles[[2]string{from.CallID, ev.Call.CallID}] = ev.Call.Title
		r.out.toolCall(from, ev.Call)
	case dialog.ToolResultEvent:
		r.toolResult(from, ev.Result)
	case dialog.ErrorEvent:
		r.out.failed(from, ev.Err)
	case dialog.RetryEvent:
		r.warnLocked(fmt.Sprintf("%s; trying again in %s (attempt %d)", ev.Retry.Reason, ev.Retry.Delay.Round(time.Millisecond), ev.Retry.Attempt+1))
	case dialog.CompressedEvent:
		r.warnLocked(fmt.Sprintf("the conversation was compressed from %d to %d tokens", ev.Compression.Before, ev.Compression.After))
	case dialog.NoticeEvent:
		r.warnLocked(ev.Text)
		if n := ev.NotOffered; n != nil && from.Name == "" {
			r.notOffered = append(r.notOffered, *n)
			if r.told == nil {
				r.told = map[string]int{}
			}
			r.told[n.Tool]++
		}
	case dialog.UsageEvent, dialog.ModeEvent, dialog.ModelEvent, dialog.TopicEvent, dialog.PlanEvent, dialog.CommandsEvent:
	}
}

// toolResult tells a call that did not succeed on stderr too, and one
// that did as the format shows progress. r.mu is held.
func (r *report) toolResult(from dialog.Subagent, res dialog.ToolResult) {
	key := [2]string{from.CallID, res.CallID}
	switch {
	case res.ErrorType == toolNotRegistered && from.Name == "" && r.told[res.Name] > 0:
		// Its notice said why; the model's words ("not found") are not
		// the person's.
		r.told[res.Name]--
	case res.Status != dialog.StatusOK:
		fmt.Fprintf(r.stderr, "gemini-ls: %s\n", r.notDone(from.Name, r.titles[key], res))
	default:
		r.out.progress("\u2713 " + callName(from.Name, r.titles[key], res.Name))
	}
	delete(r.titles, key)
	r.out.toolResult(from, res)
}

// notDone says which call did not succeed (by its title; a subagent's
// named by its agent), how, and why: the first line of what the user
// would see of it.
func (r *report) notDone(agent, title string, res dialog.ToolResult) string {
	how := "failed"
	switch res.Status {
	case dialog.StatusRejected:
		how = "was refused"
	case dialog.StatusCancelled:
		how = "was cancelled"
	}
	// The first line says why; what follows (a refused edit's diff, a
	// command's output) is the json formats' to carry.
	why, _, _ := strings.Cut(strings.TrimSpace(res.Display), "\n")
	return fmt.Sprintf("%s %s: %s", callName(agent, title, res.Name), how, why)
}

// callName names a call to the user: its tool, its title when that says
// more, and the subagent that made it, if one did.
func callName(agent, title, tool string) string {
	what := tool
	if title != "" && title != tool {
		what += " (" + title + ")"
	}
	if agent != "" {
		what = agent + ": " + what
	}
	return what
}

// toolNotRegistered is the error type of a call of a tool the model was
// not offered (0.61's tool_not_registered).
const toolNotRegistered = "tool_not_registered"

// notOfferedSummary is the run's closing line of the calls its mode did
// not offer: how many, which, and the flag that would offer them all.
func notOfferedSummary(calls []dialog.NotOffered) string {
	if len(calls) == 0 {
		return ""
	}
	var names []string
	mode := calls[0].Mode
	var offer dialog.ApprovalMode // the most permissive a call needs
	settingsOnly := false
	for _, c := range calls {
		if !slices.Contains(names, c.Tool) {
			names = append(names, c.Tool)
		}
		if c.OfferedIn == "" {
			settingsOnly = true
		} else if c.OfferedIn.MorePermissive(offer) {
			offer = c.OfferedIn
		}
	}
	what := "1 of the model's calls did not run"
	if len(calls) > 1 {
		what = fmt.Sprintf("%d of the model's calls did not run", len(calls))
	}
	line := fmt.Sprintf("gemini-ls: %s (%s), not offered in the %s approval mode", what, strings.Join(names, ", "), mode)
	switch {
	case offer != "" && !settingsOnly:
		line += fmt.Sprintf(": --approval-mode %s offers them", offer)
	case offer != "":
		line += fmt.Sprintf(": --approval-mode %s offers some, the settings' tools.allowed the others", offer)
	default:
		line += ": the settings' tools.allowed can allow them"
	}
	return line + "."
}

func (r *report) end(o conversation.Outcome, st stats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if line := notOfferedSummary(r.notOffered); line != "" {
		fmt.Fprintln(r.stderr, line)
	}
	st.Files = r.files
	if !r.raw {
		o.Text = stripANSI(o.Text)
	}
	r.out.end(o, st)
}

// fail ends a run that failed before its prompt ran (a bad flag, a
// folder not trusted, no input): line (when not "") on stderr, whatever
// the format, and nothing on stdout, as Gemini CLI 0.61 says these; code
// is the exit status, returned.
func (r *report) fail(code int, line string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if line != "" {
		fmt.Fprintln(r.stderr, line)
	}
	return code
}

// failAuth ends a run without usable credentials as 0.61's
// validateNonInteractiveAuth does: under json its formatError object on
// stderr (type Error, a session id of its own, code 41), else msg.
func (r *report) failAuth(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j, ok := r.out.(*jsonOutput); ok {
		j.formatError(uuid.NewString(), "Error", msg, exitAuth)
	} else {
		fmt.Fprintln(r.stderr, msg)
	}
	return exitAuth
}

// failPrompt ends a run whose prompt failed before the model was asked
// (a command a run cannot do, a resource that could not be read), as
// 0.61's handleError ends it: line on stderr and the format's error
// (abort); code is the exit status, returned.
func (r *report) failPrompt(code int, line, msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.abort(code, line, msg)
	return code
}

// badUsage fails the run for err, a mistake in the command line, in one
// line; 1, as Gemini CLI exits for its flags' mistakes.
func (r *report) badUsage(err error) int {
	return r.fail(exitError, "gemini-ls run: "+err.Error())
}

// errorTypeOf names a run's failure by its exit code as 0.61 names its
// FatalError subclasses in the error's type.
func errorTypeOf(code int) string {
	switch code {
	case exitAuth:
		return "FatalAuthenticationError"
	case exitInput:
		return "FatalInputError"
	case exitSandbox:
		return "FatalSandboxError"
	case exitConfig:
		return "FatalConfigError"
	case exitMaxTurns:
		return "FatalTurnLimitedError"
	case exitUntrusted:
		return "FatalUntrustedWorkspaceError"
	case exitCancelled:
		return "FatalCancellationError"
	}
	return "Error"
}

// ansi matches terminal escape sequences, as the strip-ansi package
// Gemini CLI uses does.
var ansi = lazyregexp.New(`[\x1b\x{9b}][\[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\x07)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]))`)

// stripANSI is s without terminal escape sequences.
func stripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	return ansi.ReplaceAllString(s, "")
}

// textOutput streams the model's text as it arrives, ending it with a
// newline if it has none. A run that printed nothing leaves stdout empty.
// What the run did besides (progress) goes to stderr, a line each.
type textOutput struct {
	w, errw io.Writer // stdout, stderr
	wrote   bool
	endedNL bool
	// lineOpen: stdout's last text did not end its line, and no progress
	// line has been started on a line of its own since.
	lineOpen bool
}

func (o *textOutput) begin(string, string, string) {}

func (o *textOutput) warn(string) {}

// progress starts its line on a line of its own where stdout and
// stderr share a terminal, without changing a byte of stdout.
func (o *textOutput) progress(line string) {
	if o.lineOpen {
		line = "\n" + "gemini-ls: " + line
		o.lineOpen = false
	} else {
		line = "gemini-ls: " + line
	}
	fmt.Fprintln(o.errw, line)
}

func (o *textOutput) text(from dialog.Subagent, text string) {
	// A subagent's text is not the answer: its report comes back to the
	// model as its invoke_agent call's result.
	if text != "" && from.CallID == "" {
		fmt.Fprint(o.w, text)
		o.wrote = true
		o.endedNL = text[len(text)-1] == '\n'
		o.lineOpen = !o.endedNL
	}
}

// The answer alone is printed.
func (*textOutput) thought(dialog.Subagent, dialog.Thought)       {}
func (*textOutput) toolCall(dialog.Subagent, dialog.ToolCall)     {}
func (*textOutput) toolResult(dialog.Subagent, dialog.ToolResult) {}
func (*textOutput) failed(dialog.Subagent, error)                 {}

func (o *textOutput) abort(_ int, line, _ string) { fmt.Fprintln(o.errw, line) }

func (o *textOutput) end(conversation.Outcome, stats) {
	if o.wrote && !o.endedNL {
		fmt.Fprintln(o.w)
	}
}

// stats is the accounting printed by the json formats, from what the
// session recorded of this run (dialog.Stats), in Gemini CLI's names.
type stats struct {
	Models map[string]modelStats `json:"models"`
	// Session is the tokens of the whole session, earlier runs included
	// when it was resumed.
	Session    tokenStats `json:"session"`
	Tools      toolStats  `json:"tools"`
	Files      fileStats  `json:"files"`
	DurationMS int64      `json:"duration_ms"`
}

// modelStats is one model's, as 0.61's uiTelemetryService counts them.
// Every request is the main agent's role here: a subagent's requests are
// counted under its model too.
type modelStats struct {
	API    apiStats             `json:"api"`
	Tokens tokenStats           `json:"tokens"`
	Roles  map[string]roleStats `json:"roles"`
}

type apiStats struct {
	TotalRequests  int   `json:"totalRequests"`
	TotalErrors    int   `json:"totalErrors"`
	TotalLatencyMS int64 `json:"totalLatencyMs"`
	// ErrorsByType counts the errors by 0.61's names for them (ApiError,
	// TypeError, NO_FINISH_REASON…; dialog.ModelStats).
	ErrorsByType map[string]int `json:"errorsByType"`
}

type roleStats struct {
	TotalRequests  int        `json:"totalRequests"`
	TotalErrors    int        `json:"totalErrors"`
	TotalLatencyMS int64      `json:"totalLatencyMs"`
	Tokens         tokenStats `json:"tokens"`
}

// tokenStats are 0.61's token counts: input is the prompt less what the
// cache served.
type tokenStats struct {
	Input      int32 `json:"input"`
	Prompt     int32 `json:"prompt"`
	Candidates int32 `json:"candidates"`
	Total      int32 `json:"total"`
	Cached     int32 `json:"cached"`
	Thoughts   int32 `json:"thoughts"`
	Tool       int32 `json:"tool"`
}

func tokensOf(u dialog.Usage) tokenStats {
	return tokenStats{
		Input: u.PromptTokens - u.CachedTokens, Prompt: u.PromptTokens, Candidates: u.CandidatesTokens,
		Total: u.TotalTokens, Cached: u.CachedTokens, Thoughts: u.ThoughtsTokens, Tool: u.ToolUseTokens,
	}
}

// fileStats are the lines the run's edits added and removed.
type fileStats struct {
	TotalLinesAdded   int `json:"totalLinesAdded"`
	TotalLinesRemoved int `json:"totalLinesRemoved"`
}

type toolStats struct {
	TotalCalls      int                  `json:"totalCalls"`
	TotalSuccess    int                  `json:"totalSuccess"`
	TotalFail       int                  `json:"totalFail"`
	TotalDurationMS int64                `json:"totalDurationMs"`
	TotalDecisions  decisions            `json:"totalDecisions"`
	ByName          map[string]toolCount `json:"byName"`
}

type toolCount struct {
	Count      int       `json:"count"`
	Success    int       `json:"success"`
	Fail       int       `json:"fail"`
	DurationMS int64     `json:"durationMs"`
	Decisions  decisions `json:"decisions"`
}

// decisions are the user's answers to the calls that asked; headless,
// every call that asked was refused (reject).
type decisions struct {
	Accept     int `json:"accept"`
	Reject     int `json:"reject"`
	Modify     int `json:"modify"`
	AutoAccept int `json:"auto_accept"`
}

func (d *decisions) add(v dialog.Decisions) {
	d.Accept += v.Accept
	d.Reject += v.Reject
	d.Modify += v.Modify
	d.AutoAccept += v.AutoAccept
}

// statsOf is the json stats of a run that took elapsed, in a session
// that recorded st and used session's tokens in all.
func statsOf(st dialog.Stats, session dialog.Usage, elapsed time.Duration) stats {
	out := stats{
		Models:     map[string]modelStats{},
		Session:    tokensOf(session),
		Tools:      toolStats{ByName: map[string]toolCount{}},
		DurationMS: elapsed.Milliseconds(),
	}
	for name, m := range st.Models {
		api := apiStats{TotalRequests: m.Requests, TotalErrors: m.Errors, TotalLatencyMS: m.Latency.Milliseconds(), ErrorsByType: maps.Clone(m.ErrorsByType)}
		if api.ErrorsByType == nil {
			api.ErrorsByType = map[string]int{} // 0.61 writes {}
		}
		out.Models[name] = modelStats{
			API:    api,
			Tokens: tokensOf(m.Tokens),
			Roles:  map[string]roleStats{"main": {api.TotalRequests, api.TotalErrors, api.TotalLatencyMS, tokensOf(m.Tokens)}},
		}
	}
	t := &out.Tools
	for name, c := range st.Tools {
		var d decisions
		d.add(c.Decisions)
		t.ByName[name] = toolCount{Count: c.Calls, Success: c.Success, Fail: c.Fail, DurationMS: c.Duration.Milliseconds(), Decisions: d}
		t.TotalCalls += c.Calls
		t.TotalSuccess += c.Success
		t.TotalFail += c.Fail
		t.TotalDurationMS += c.Duration.Milliseconds()
		t.TotalDecisions.add(c.Decisions)
	}
	return out
}

type jsonError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// Code is the exit status of a run that failed outside its turn, as
	// 0.61's formatError gives it.
	Code int `json:"code,omitempty"`
}

// errorOf is how a run that did not end its turn ended, typed by its
// reason; nil for one that did.
func errorOf(o conversation.Outcome) *jsonError {
	switch {
	case o.Ending == conversation.Done:
		return nil
	case o.Err != nil:
		return &jsonError{Type: o.Ending.Reason(), Message: o.Err.Error()}
	default:
		return &jsonError{Type: o.Ending.Reason(), Message: o.Ending.Reason()}
	}
}

// jsonOutput prints one object when the run ends; its warnings, as
// Gemini CLI's, are there only when there were some.
type jsonOutput struct {
	w, errw   io.Writer // stdout, stderr
	sessionID string
	warnings  []string
}

func (o *jsonOutput) begin(sessionID, _, _ string) { o.sessionID = sessionID }

func (o *jsonOutput) warn(msg string) { o.warnings = append(o.warnings, msg) }

func (*jsonOutput) progress(string) {}

// Nothing is shown as it comes: the object comes at the end.
func (*jsonOutput) text(dialog.Subagent, string)                  {}
func (*jsonOutput) thought(dialog.Subagent, dialog.Thought)       {}
func (*jsonOutput) toolCall(dialog.Subagent, dialog.ToolCall)     {}
func (*jsonOutput) toolResult(dialog.Subagent, dialog.ToolResult) {}
func (*jsonOutput) failed(dialog.Subagent, error)                 {}

func (o *jsonOutput) end(res conversation.Outcome, st stats) {
	enc := json.NewEncoder(o.w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		SessionID string     `json:"session_id"`
		Response  string     `json:"response"`
		Stats     stats      `json:"stats"`
		Error     *jsonError `json:"error,omitempty"`
		Warnings  []string   `json:"warnings,omitempty"`
	}{o.sessionID, res.Text, st, errorOf(res), o.warnings})
}

// abort prints 0.61's formatError object on stderr, as its
// handleError's feedback: the session, and the error with its exit code.
func (o *jsonOutput) abort(code int, _, msg string) {
	o.formatError(o.sessionID, errorTypeOf(code), msg, code)
}

// formatError writes 0.61's JsonFormatter.formatError object on stderr,
// as JSON.stringify indents it.
func (o *jsonOutput) formatError(sessionID, typ, msg string, code int) {
	enc := json.NewEncoder(o.errw)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		SessionID string    `json:"session_id"`
		Error     jsonError `json:"error"`
	}{sessionID, jsonError{Type: typ, Message: stripANSI(msg), Code: code}})
}

// streamOutput prints one JSON event per line as the run goes. A
// warning is an "error" event of severity "warning", as Gemini CLI's
// are; those before the run began follow its "init".
type streamOutput struct {
	enc     *json.Encoder
	errw    io.Writer // stderr
	begun   bool
	pending []string
}

type streamEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`

	// ParentToolID and AgentName mark a subagent's event: the tool_id of
	// the invoke_agent call that runs it, and the agent's name. Gemini
	// CLI 0.61's stream-json shows nothing of a subagent (its
	// LocalSubagentInvocation reports only to the terminal UI's
	// updateOutput, chunk-JDPZ4CE3.js:349767); the names follow its
	// tool_id and tool_name.
	ParentToolID string `json:"parent_tool_id,omitempty"`
	AgentName    string `json:"agent_name,omitempty"`

	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`

	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Delta   bool   `json:"delta,omitempty"`

	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`

	ToolName   string         `json:"tool_name,omitempty"`
	ToolID     string         `json:"tool_id,omitempty"`
	Title      string         `json:"title,omitempty"`
	Parameters map[string]any `json:"parameters,omitempty"`
	Status     string         `json:"status,omitempty"`
	// Output is a tool_result's, "" included, as 0.61 prints it.
	Output *string `json:"output,omitempty"`

	Severity string       `json:"severity,omitempty"`
	Message  string       `json:"message,omitempty"`
	Error    *jsonError   `json:"error,omitempty"`
	Stats    *streamStats `json:"stats,omitempty"`
}

// streamStats are stream-json's result stats, 0.61's
// convertToStreamStats: totals, and each model's.
type streamStats struct {
	streamTokens
	DurationMS int64                   `json:"duration_ms"`
	ToolCalls  int                     `json:"tool_calls"`
	Models     map[string]streamTokens `json:"models"`
}

type streamTokens struct {
	TotalTokens  int32 `json:"total_tokens"`
	InputTokens  int32 `json:"input_tokens"`
	OutputTokens int32 `json:"output_tokens"`
	Cached       int32 `json:"cached"`
	Input        int32 `json:"input"`
}

func (t *streamTokens) add(u tokenStats) {
	t.TotalTokens += u.Total
	t.InputTokens += u.Prompt
	t.OutputTokens += u.Candidates
	t.Cached += u.Cached
	t.Input += u.Input
}

func streamStatsOf(st stats) *streamStats {
	out := &streamStats{DurationMS: st.DurationMS, ToolCalls: st.Tools.TotalCalls, Models: map[string]streamTokens{}}
	for name, m := range st.Models {
		var t streamTokens
		t.add(m.Tokens)
		out.Models[name] = t
		out.streamTokens.add(m.Tokens)
	}
	return out
}

func (o *streamOutput) emit(e streamEvent) {
	e.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	_ = o.enc.Encode(e)
}

func (o *streamOutput) begin(sessionID, model, prompt string) {
	o.emit(streamEvent{Type: "init", SessionID: sessionID, Model: model})
	o.begun = true
	for _, msg := range o.pending {
		o.warn(msg)
	}
	o.pending = nil
	o.emit(streamEvent{Type: "message", Role: "user", Content: prompt})
}

func (o *streamOutput) warn(msg string) {
	if !o.begun {
		o.pending = append(o.pending, msg)
		return
	}
	o.emit(streamEvent{Type: "error", Severity: "warning", Message: msg})
}

func (*streamOutput) progress(string) {}

func (o *streamOutput) text(from dialog.Subagent, text string) {
	o.emitFrom(from, streamEvent{Type: "message", Role: "assistant", Content: text, Delta: true})
}

func (o *streamOutput) thought(from dialog.Subagent, t dialog.Thought) {
	o.emitFrom(from, streamEvent{Type: "thought", Subject: t.Subject, Description: t.Description})
}

func (o *streamOutput) toolCall(from dialog.Subagent, c dialog.ToolCall) {
	o.emitFrom(from, streamEvent{Type: "tool_use", ToolName: c.Name, ToolID: c.CallID, Title: c.Title, Parameters: c.Args})
}

// toolResult's statuses are 0.61's: success or error, the error's
// message what the user would see.
func (o *streamOutput) toolResult(from dialog.Subagent, r dialog.ToolResult) {
	ev := streamEvent{Type: "tool_result", ToolID: r.CallID, ToolName: r.Name, Status: "success", Output: &r.Display}
	if r.Status != dialog.StatusOK {
		ev.Status, ev.Output = "error", nil
		ev.Error = &jsonError{Type: cmp.Or(r.ErrorType, toolErrorType(r.Status)), Message: r.Display}
	}
	o.emitFrom(from, ev)
}

func (o *streamOutput) failed(from dialog.Subagent, err error) {
	if err != nil {
		o.emitFrom(from, streamEvent{Type: "error", Severity: "error", Message: err.Error()})
	}
}

// emitFrom emits ev marked as from's, a subagent's or the main agent's.
func (o *streamOutput) emitFrom(from dialog.Subagent, ev streamEvent) {
	ev.ParentToolID, ev.AgentName = from.CallID, from.Name
	o.emit(ev)
}

func (o *streamOutput) end(res conversation.Outcome, st stats) {
	status := "success"
	if res.Ending != conversation.Done {
		status = "error"
	}
	o.emit(streamEvent{Type: "result", Status: status, Error: errorOf(res), Stats: streamStatsOf(st)})
}

// abort emits 0.61's handleError event: a result of status error, its
// stats empty, after the warnings still pending; line goes to stderr.
func (o *streamOutput) abort(code int, line, msg string) {
	fmt.Fprintln(o.errw, line)
	for _, w := range o.pending {
		o.emit(streamEvent{Type: "error", Severity: "warning", Message: w})
	}
	o.pending = nil
	o.emit(streamEvent{Type: "result", Status: "error", Error: &jsonError{Type: errorTypeOf(code), Message: msg}, Stats: streamStatsOf(stats{})})
}

// toolErrorType names a call's failure as 0.61 does: a refused call is
// its ToolErrorType policy_violation, and a failure without a type its
// TOOL_EXECUTION_ERROR.
func toolErrorType(s dialog.Status) string {
	switch s {
	case dialog.StatusRejected:
		return "policy_violation"
	case dialog.StatusCancelled:
		return "cancelled"
	}
	return "TOOL_EXECUTION_ERROR"
}
