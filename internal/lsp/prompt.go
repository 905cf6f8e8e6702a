package lsp

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// promptParams are gemini/prompt's params.
type promptParams struct {
	SessionID string         `json:"sessionId,omitempty"`
	Prompt    *string        `json:"prompt"`
	Context   *promptContext `json:"context,omitempty"`
}

// promptContext points the model at what the user is looking at.
type promptContext struct {
	URI         string       `json:"uri,omitempty"`
	Range       *lspRange    `json:"range,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
	// OpenFiles are the URIs of the files open in the editor, most
	// recently used first; when absent, the documents the client opened.
	OpenFiles []string `json:"openFiles,omitempty"`
}

// diagnostic is an LSP Diagnostic the editor shows for the context's file.
type diagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity,omitempty"`
	Message  string   `json:"message"`
	Source   string   `json:"source,omitempty"`
	Code     any      `json:"code,omitempty"`
}

var severityNames = [...]string{1: "error", 2: "warning", 3: "information", 4: "hint"}

func (d diagnostic) toAgent() dialog.Diagnostic {
	out := dialog.Diagnostic{
		Start:   dialog.Position{Line: int(d.Range.Start.Line) + 1, Character: int(d.Range.Start.Character) + 1},
		Message: d.Message,
		Source:  d.Source,
	}
	if d.Severity > 0 && d.Severity < len(severityNames) {
		out.Severity = severityNames[d.Severity]
	}
	out.Code = codeText(d.Code)
	return out
}

// codeText is a diagnostic's code (LSP's integer | string) as text: an
// integer in full, not as the float64 JSON decoded it into.
func codeText(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case float64:
		if c == math.Trunc(c) && math.Abs(c) < 1<<53 {
			return strconv.FormatInt(int64(c), 10)
		}
	}
	return fmt.Sprint(code)
}

// promptResult is gemini/prompt's result (and gemini.prompt's).
type promptResult struct {
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
	Error      string `json:"error,omitempty"`
}

// update is the gemini/update notification: one event of a running prompt.
type update struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
	// ParentCallID and AgentName mark a subagent's event: the main
	// agent's invoke_agent call that runs it, and the agent's name.
	ParentCallID string `json:"parentCallId,omitempty"`
	AgentName    string `json:"agentName,omitempty"`

	Text        string `json:"text,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`

	CallID string         `json:"callId,omitempty"`
	Name   string         `json:"name,omitempty"`
	Title  string         `json:"title,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	Status string         `json:"status,omitempty"`
	// Display is always sent with toolResult, even empty (read_file of a
	// whole file shows nothing): omitzero, as the payload codec (json/v2)
	// omits a pointer to "" under omitempty.
	Display *string `json:"display,omitzero"`

	PromptTokens     *int32 `json:"promptTokens,omitempty"`
	CandidatesTokens *int32 `json:"candidatesTokens,omitempty"`
	ThoughtsTokens   *int32 `json:"thoughtsTokens,omitempty"`
	TotalTokens      *int32 `json:"totalTokens,omitempty"`
	// PromptUsage and SessionUsage are the sums so far (usage).
	PromptUsage  *usage `json:"promptUsage,omitempty"`
	SessionUsage *usage `json:"sessionUsage,omitempty"`
	// Model is the concrete model that answered (usage), or the one
	// chosen (model, where Name is how it is shown).
	Model string `json:"model,omitempty"`

	// retry
	Attempt int    `json:"attempt,omitempty"`
	DelayMs int64  `json:"delayMs,omitempty"`
	Reason  string `json:"reason,omitempty"`

	// compressed
	TokensBefore int32 `json:"tokensBefore,omitempty"`
	TokensAfter  int32 `json:"tokensAfter,omitempty"`

	Message string `json:"message,omitempty"` // error, notice

	Mode string `json:"mode,omitempty"` // mode

	// topic: what the model says it is doing (update_topic). Title is
	// the topic's, Text its summary when New starts it, Intent always.
	Intent   string `json:"intent,omitempty"`
	NewTopic bool   `json:"newTopic,omitempty"`
}

// usage is a sum of token counts.
type usage struct {
	PromptTokens     int32 `json:"promptTokens"`
	CandidatesTokens int32 `json:"candidatesTokens"`
	ThoughtsTokens   int32 `json:"thoughtsTokens"`
	TotalTokens      int32 `json:"totalTokens"`
}

func usageOf(u dialog.Usage) *usage {
	return &usage{PromptTokens: u.PromptTokens, CandidatesTokens: u.CandidatesTokens, ThoughtsTokens: u.ThoughtsTokens, TotalTokens: u.TotalTokens}
}

// updates shows a turn's events as gemini/update notifications, one of
// each event's kind (and a saved turn's as its exchange's updates): send
// sends one.
type updates struct {
	sessionID string
	send      func(update)
}

// of is the update of an event of kind (the notification's word for it:
// "text", "toolCall"), from a subagent or the main agent.
func (u updates) of(kind string, from dialog.Subagent) update {
	return update{SessionID: u.sessionID, Kind: kind, ParentCallID: from.CallID, AgentName: from.Name}
}

func (u updates) Text(_ context.Context, from dialog.Subagent, text string) {
	up := u.of("text", from)
	up.Text = text
	u.send(up)
}

func (u updates) Thought(_ context.Context, from dialog.Subagent, t dialog.Thought) {
	up := u.of("thought", from)
	up.Subject, up.Description = t.Subject, t.Description
	u.send(up)
}

func (u updates) ToolCall(_ context.Context, from dialog.Subagent, c dialog.ToolCall) {
	up := u.of("toolCall", from)
	up.CallID, up.Name, up.Title, up.Args = c.CallID, c.Name, c.Title, c.Args
	u.send(up)
}

func (u updates) ToolResult(_ context.Context, from dialog.Subagent, r dialog.ToolResult) {
	up := u.of("toolResult", from)
	up.CallID, up.Name, up.Status, up.Display = r.CallID, r.Name, string(r.Status), &r.Display
	u.send(up)
}

func (u updates) Usage(_ context.Context, from dialog.Subagent, r dialog.UsageReport) {
	up := u.of("usage", from)
	up.PromptTokens, up.CandidatesTokens = &r.Response.PromptTokens, &r.Response.CandidatesTokens
	up.ThoughtsTokens, up.TotalTokens = &r.Response.ThoughtsTokens, &r.Response.TotalTokens
	up.PromptUsage, up.SessionUsage = usageOf(r.Prompt), usageOf(r.Session)
	up.Model = r.Model
	u.send(up)
}

func (u updates) Error(_ context.Context, from dialog.Subagent, err error) {
	up := u.of("error", from)
	if err != nil {
		up.Message = err.Error()
	}
	u.send(up)
}

func (u updates) Retry(_ context.Context, from dialog.Subagent, r dialog.RetryInfo) {
	up := u.of("retry", from)
	up.Attempt, up.DelayMs, up.Reason = r.Attempt, r.Delay.Milliseconds(), r.Reason
	u.send(up)
}

func (u updates) Compressed(_ context.Context, from dialog.Subagent, c dialog.CompressionInfo) {
	up := u.of("compressed", from)
	up.TokensBefore, up.TokensAfter = c.Before, c.After
	u.send(up)
}

func (u updates) Notice(_ context.Context, from dialog.Subagent, text string) {
	up := u.of("notice", from)
	up.Message = text
	u.send(up)
}

func (u updates) Mode(_ context.Context, from dialog.Subagent, mode dialog.ApprovalMode) {
	up := u.of("mode", from)
	up.Mode = string(mode)
	u.send(up)
}

func (u updates) Model(_ context.Context, from dialog.Subagent, model string) {
	up := u.of("model", from)
	chosenModel(&up, model)
	u.send(up)
}

func (u updates) Topic(_ context.Context, from dialog.Subagent, t dialog.Topic) {
	up := u.of("topic", from)
	up.Title, up.Intent, up.NewTopic = t.Title, t.Intent, t.New
	if t.New {
		up.Text = t.Summary
	}
	u.send(up)
}

func (u updates) Commands(_ context.Context, from dialog.Subagent) {
	u.send(u.of("commands", from))
}

func (s *Server) prompt(ctx context.Context, p promptParams) (promptResult, error) {
	if p.Prompt == nil {
		return promptResult{}, missingField("prompt")
	}
	if strings.TrimSpace(*p.Prompt) == "" {
		return promptResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: field "prompt" is empty`)
	}
	built, _, err := s.stateFor(ctx, *p.Prompt)
	if err != nil {
		return promptResult{}, err
	}
	sess, err := s.session(ctx, built, p.SessionID)
	if err != nil {
		return promptResult{}, err
	}
	editor, err := s.editorContext(ctx, p.Context)
	if err != nil {
		return promptResult{}, err
	}
	notify := func(u update) {
		// Updates outlive a cancelled prompt: the client should still see
		// how it ended.
		if err := s.conn.Notify(context.WithoutCancel(ctx), "gemini/update", u); err != nil {
			s.log.Debug("sending gemini/update", zap.Error(err))
		}
	}
	v := promptView{presenter{s}, updates{sess.ID(), notify}}
	// Cancellable by gemini/cancel, $/cancelRequest (ctx) and shutdown.
	claim, err := s.host.Begin(ctx, sess.ID())
	if err != nil {
		return answer(sess.ID(), conversation.NotBegun(ctx, err))
	}
	defer claim.End()
	in := dialog.Input{Text: *p.Prompt, Editor: editor}
	s.settleTrust(claim, in, v)
	return answer(sess.ID(), claim.Prompt(in, v))
}

// answer is the wire's answer to a prompt of session id that ended as o:
// its result, or why it did not run.
func answer(id string, o conversation.Outcome) (promptResult, error) {
	switch o.Ending {
	case conversation.Busy:
		return promptResult{}, busyError(o.Err)
	case conversation.NotRun:
		return promptResult{}, jsonrpc2.NewError(codeRequestFailed, o.NotRun.Error())
	case conversation.Unknown, conversation.Refused:
		return promptResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: sessionId: %v", o.Err)
	}
	out := promptResult{SessionID: id, StopReason: o.Ending.Reason(), Text: o.Text}
	if (o.Ending == conversation.Failed || o.Ending == conversation.MaxTokens) && o.Err != nil {
		out.Error = o.Err.Error()
	}
	return out, nil
}

type sessionParams struct {
	SessionID *string `json:"sessionId"`
}

func (s *Server) cancelSession(p sessionParams) error {
	if p.SessionID == nil {
		return missingField("sessionId")
	}
	if !s.host.Cancel(*p.SessionID) {
		s.log.Info("gemini/cancel: no prompt running", zap.String("sessionId", *p.SessionID))
	}
	return nil
}

// editorContext turns the prompt's context into what the agent is told of
// the editor: the file, the cursor or the selected text as the editor
// holds it (unsaved changes included), the file's diagnostics, and the
// other files open in the editor inside the workspace. nil when there is
// nothing to tell.
func (s *Server) editorContext(ctx context.Context, pc *promptContext) (*dialog.EditorContext, error) {
	if pc == nil {
		pc = &promptContext{}
	}
	if pc.URI == "" && (pc.Range != nil || len(pc.Diagnostics) > 0) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: "context.range" and "context.diagnostics" need "context.uri"`)
	}
	ws, enc := s.agentState.workspace(), s.features.get().Encoding
	var editor dialog.EditorContext
	if pc.URI != "" {
		f, err := s.activeFile(ctx, ws, enc, pc)
		if err != nil {
			return nil, err
		}
		editor.ActiveFile = f
	}
	// The active file is among them; the agent leaves it out of the others.
	open, err := s.openFiles(ws, pc.OpenFiles)
	if err != nil {
		return nil, err
	}
	editor.OpenFiles = open
	if editor.ActiveFile == nil && len(editor.OpenFiles) == 0 {
		return nil, nil
	}
	return &editor, nil
}

// activeFile is the file pc names, with its cursor, selection and
// diagnostics.
func (s *Server) activeFile(ctx context.Context, ws *workspace.Workspace, enc workspace.Encoding, pc *promptContext) (*dialog.ActiveFile, error) {
	path, err := uriToPath(pc.URI)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: context.uri: %v", err)
	}
	f := &dialog.ActiveFile{Path: path}
	if pc.Range != nil {
		r := pc.Range.toWorkspace()
		f.Cursor = &dialog.Position{Line: int(r.Start.Line) + 1, Character: int(r.Start.Character) + 1}
		if doc, err := ws.ReadFile(ctx, path, workspace.MaxFileSize); err == nil {
			text := string(doc.Content)
			start, end := workspace.OffsetAt(text, r.Start, enc), workspace.OffsetAt(text, r.End, enc)
			if start > end {
				start, end = end, start
			}
			if start != end {
				f.Selection = &dialog.Range{Start: *f.Cursor, End: dialog.Position{Line: int(r.End.Line) + 1, Character: int(r.End.Character) + 1}}
				f.SelectedText = text[start:end]
			}
		} else {
			s.log.Info("prompt context unreadable", zap.String("path", path), zap.Error(err))
		}
	}
	for _, d := range pc.Diagnostics {
		f.Diagnostics = append(f.Diagnostics, d.toAgent())
	}
	return f, nil
}

// openFiles are the files open in the editor inside the workspace, as
// paths: the client's list in its order when it sent one (it knows which
// it used last), else the documents it opened (didOpen), by path.
func (s *Server) openFiles(ws *workspace.Workspace, uris []string) ([]string, error) {
	var paths []string
	if uris != nil {
		for i, u := range uris {
			p, err := uriToPath(u)
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: context.openFiles[%d]: %v", i, err)
			}
			paths = append(paths, p)
		}
	} else {
		for _, doc := range s.docs.List() {
			// The editor's spelling of the path, as context.uri gives it.
			p, err := uriToPath(doc.URI)
			if err != nil {
				p = doc.Path
			}
			paths = append(paths, p)
		}
	}
	if ws == nil {
		return nil, nil
	}
	inside := paths[:0]
	for _, p := range paths {
		if _, err := ws.Resolve(p); err == nil {
			inside = append(inside, p)
		}
	}
	return inside, nil
}
