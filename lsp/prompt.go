package lsp

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/conversation"
	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/workspace"
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

func updateFor(sessionID string, e dialog.Event) update {
	u := update{SessionID: sessionID, Kind: string(e.Kind), ParentCallID: e.Subagent.CallID, AgentName: e.Subagent.Name}
	switch e.Kind {
	case dialog.EventText:
		u.Text = e.Text
	case dialog.EventThought:
		u.Subject, u.Description = e.Thought.Subject, e.Thought.Description
	case dialog.EventToolCall:
		u.CallID, u.Name, u.Title, u.Args = e.ToolCall.CallID, e.ToolCall.Name, e.ToolCall.Title, e.ToolCall.Args
	case dialog.EventToolResult:
		u.CallID, u.Name, u.Status, u.Display = e.ToolResult.CallID, e.ToolResult.Name, string(e.ToolResult.Status), &e.ToolResult.Display
	case dialog.EventUsage:
		u.PromptTokens, u.CandidatesTokens = &e.Usage.PromptTokens, &e.Usage.CandidatesTokens
		u.ThoughtsTokens, u.TotalTokens = &e.Usage.ThoughtsTokens, &e.Usage.TotalTokens
		u.PromptUsage, u.SessionUsage = usageOf(e.PromptUsage), usageOf(e.SessionUsage)
		u.Model = e.Model
	case dialog.EventRetry:
		u.Attempt, u.DelayMs, u.Reason = e.Retry.Attempt, e.Retry.Delay.Milliseconds(), e.Retry.Reason
	case dialog.EventCompressed:
		u.TokensBefore, u.TokensAfter = e.Compressed.Before, e.Compressed.After
	case dialog.EventNotice:
		u.Message = e.Text
	case dialog.EventMode:
		u.Mode = string(e.Mode)
	case dialog.EventModel:
		chosenModel(&u, e.Model)
	case dialog.EventTopic:
		u.Title, u.Intent, u.NewTopic = e.Topic.Title, e.Topic.Intent, e.Topic.New
		if e.Topic.New {
			u.Text = e.Topic.Summary
		}
	case dialog.EventError:
		if e.Err != nil {
			u.Message = e.Err.Error()
		}
	}
	return u
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
	notify := func(e dialog.Event) {
		// Updates outlive a cancelled prompt: the client should still see
		// how it ended.
		if err := s.conn.Notify(context.WithoutCancel(ctx), "gemini/update", updateFor(sess.ID(), e)); err != nil {
			s.log.Debug("sending gemini/update", zap.Error(err))
		}
	}
	// Cancellable by gemini/cancel, $/cancelRequest (ctx) and shutdown.
	showing := showingWith(ctx, notify)
	claim, err := s.host.Begin(showing, sess.ID())
	if err != nil {
		return answer(sess.ID(), conversation.NotBegun(showing, err))
	}
	defer claim.End()
	in := dialog.Input{Text: *p.Prompt, Editor: editor}
	s.settleTrust(claim, in)
	return answer(sess.ID(), claim.Prompt(in))
}

// answer is the wire's answer to a prompt of session id that ended as o:
// its result, or why it did not run.
func answer(id string, o conversation.Outcome) (promptResult, error) {
	switch o.Ending {
	case conversation.Busy:
		return promptResult{}, busyError(id)
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
