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
	// Worktree starts the session as an agent in a git worktree of its
	// own (agents.go): a name, or true for a generated one.
	Worktree *worktreeParam `json:"worktree,omitempty"`
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
	// ErrorKind is the failure's kind, where it has one an editor offers
	// a fix for.
	ErrorKind errorKind `json:"errorKind,omitempty"`
}

// MaxPromptParams bounds gemini/prompt's params as they arrive, encoded
// (docs/protocol.md): a prompt costs the server many times its size in
// copies (the frame, its decoding, the model request, the session file),
// and the largest model context holds about 4 MiB of text.
const MaxPromptParams = 16 << 20

// checkParamsSize refuses a request whose params are over its method's
// bound (method.maxParams), before they are copied or decoded.
func (s *Server) checkParamsSize(req *jsonrpc2.Request) error {
	if !req.IsCall() {
		return nil
	}
	m := s.methods.lookup(requestKind, req.Method())
	if m == nil || m.maxParams == 0 || len(req.Params()) <= m.maxParams {
		return nil
	}
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s's params are %d bytes, over the limit of %d MiB (%d bytes) of a prompt",
		req.Method(), len(req.Params()), m.maxParams>>20, m.maxParams)
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
	editor, err := s.editorContext(ctx, p.Context)
	if err != nil {
		return promptResult{}, err
	}
	// Nothing fails between opening the session and claiming it, which
	// releases what keeps it in memory meanwhile (Host.Resume).
	sess, agent, err := s.promptSession(ctx, built, p)
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
	var v conversation.View = promptView{presenter{s}, updates{sess.ID(), notify, s.agentState.workspace()}}
	if agent != nil {
		v = agent.view(v)
		editor = agent.editorContext(editor)
	}
	// Cancellable by gemini/cancel, $/cancelRequest (ctx) and shutdown.
	claim, err := s.host.Begin(ctx, sess.ID())
	if err != nil {
		return answer(sess.ID(), conversation.NotBegun(ctx, err))
	}
	defer claim.End()
	in := dialog.Input{Text: *p.Prompt, Editor: editor}
	s.settleTrust(claim, in, v)
	if agent != nil {
		agent.began()
		agent.setUp(claim, v)
	}
	o := claim.Prompt(in, v)
	if agent != nil {
		agent.ended(ctx, o, sess)
	}
	return answer(sess.ID(), o)
}

// promptSession is the session a gemini/prompt runs in: a new agent's
// (worktree), an agent's it names, or the workspace's; agent is the
// turn's agent, nil for the workspace's sessions.
func (s *Server) promptSession(ctx context.Context, built *conversation.Build, p promptParams) (*conversation.Live[struct{}], *agentTurn, error) {
	if p.Worktree != nil {
		if p.SessionID != "" {
			return nil, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: "worktree" starts a session, so it goes without "sessionId"`)
		}
		live, a, err := s.startAgent(ctx, p.Worktree.Name, *p.Prompt)
		if err != nil {
			return nil, nil, err
		}
		return live, &agentTurn{s, a.Worktree.Path, true}, nil
	}
	a, b, ok, err := s.agentOf(ctx, p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		sess, err := s.session(ctx, built, p.SessionID)
		return sess, nil, err
	}
	sess, err := s.session(ctx, b, p.SessionID)
	return sess, &agentTurn{s, a.Worktree.Path, false}, err
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
		out.ErrorKind = errorKind(o.ErrorKind())
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
