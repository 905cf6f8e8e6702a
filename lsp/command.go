package lsp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
)

// The gemini.prompt command runs the same turn as gemini/prompt for
// clients that cannot send custom requests (Helix): progress through
// $/progress, the answer through window/showMessage and a Markdown
// transcript opened with window/showDocument.

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken any               `json:"workDoneToken,omitempty"`
}

// commandPromptArgs is gemini.prompt's single argument.
type commandPromptArgs struct {
	Prompt      *string      `json:"prompt"`
	SessionID   string       `json:"sessionId,omitempty"`
	URI         string       `json:"uri,omitempty"`
	Range       *lspRange    `json:"range,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
}

func (s *Server) executeCommand(ctx context.Context, raw []byte) (any, error) {
	var p executeCommandParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch p.Command {
	case CommandPrompt:
		var args commandPromptArgs
		if err := commandArg(p.Arguments, &args); err != nil {
			return nil, err
		}
		if args.Prompt == nil || strings.TrimSpace(*args.Prompt) == "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: gemini.prompt needs an argument {"prompt": "..."}`)
		}
		return s.commandPrompt(ctx, args, p.WorkDoneToken)
	case CommandCancel:
		var args sessionParams
		if err := commandArg(p.Arguments, &args); err != nil {
			return nil, err
		}
		if args.SessionID == nil {
			return nil, missingField("sessionId")
		}
		return map[string]bool{"cancelled": s.cancelRunning(*args.SessionID)}, nil
	case "":
		return nil, missingField("command")
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: unknown command %q (known: %s, %s)", p.Command, CommandPrompt, CommandCancel)
	}
}

// commandArg decodes the first argument; Helix's :lsp-workspace-command
// may send a bare string prompt, which is accepted as {"prompt": s}.
func commandArg(args []json.RawMessage, v any) error {
	if len(args) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: the command needs one argument object")
	}
	var prompt string
	if json.Unmarshal(args[0], &prompt) == nil {
		if a, ok := v.(*commandPromptArgs); ok {
			a.Prompt = &prompt
			return nil
		}
	}
	return decodeParams(args[0], v)
}

func (s *Server) commandPrompt(ctx context.Context, args commandPromptArgs, token any) (any, error) {
	ag, f, err := s.state()
	if err != nil {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "Gemini: " + err.Error()})
		return nil, err
	}
	sess, err := s.session(ctx, ag, args.SessionID)
	if err != nil {
		return nil, err
	}
	var pc *promptContext
	if args.URI != "" || args.Range != nil || len(args.Diagnostics) > 0 {
		pc = &promptContext{URI: args.URI, Range: args.Range, Diagnostics: args.Diagnostics}
	}
	editor, err := s.editorContext(ctx, pc)
	if err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := s.beginProgress(ctx, f, token, *args.Prompt, cancel)
	defer prog.forget()
	tr := &transcript{}
	tr.prompt(*args.Prompt)
	res, err := s.runPrompt(ctx, sess, agent.Input{Text: *args.Prompt, Editor: editor}, func(e agent.Event) {
		tr.event(e)
		if e.Kind == agent.EventToolCall {
			prog.report(e.ToolCall.Title)
		}
	})
	if err != nil {
		prog.end("Gemini: " + err.Error())
		return nil, err
	}
	tr.end(res)
	prog.end(summary(res))

	typ := protocol.MessageTypeInfo
	if res.StopReason == string(agent.StopError) {
		typ = protocol.MessageTypeError
	}
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: answerMessage(res)})
	if f.ShowDocument {
		s.showTranscript(ctx, sess.ID(), tr.String())
	}
	return res, nil
}

// summary is the one line that ends the progress.
func summary(res promptResult) string {
	switch agent.StopReason(res.StopReason) {
	case agent.StopCancelled:
		return "Gemini: cancelled"
	case agent.StopMaxTurns:
		return "Gemini: stopped after too many turns"
	case agent.StopMaxTokens:
		return "Gemini: the answer was cut at the model's output token limit"
	case agent.StopError:
		return "Gemini failed: " + res.Error
	}
	line, _, _ := strings.Cut(strings.TrimSpace(res.Text), "\n")
	return "Gemini: " + shorten(line, 80)
}

func answerMessage(res promptResult) string {
	switch agent.StopReason(res.StopReason) {
	case agent.StopError:
		return "Gemini failed: " + res.Error
	case agent.StopCancelled:
		return "Gemini: cancelled. " + res.Text
	case agent.StopMaxTokens:
		return "Gemini (cut at the model's output token limit): " + strings.TrimSpace(res.Text)
	}
	return "Gemini: " + strings.TrimSpace(res.Text)
}

func (s *Server) notifyClient(method string, params any) {
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.log.Debug("notifying client", zap.String("method", method), zap.Error(err))
	}
}

// transcriptDir is where command transcripts are written: never inside
// the user's workspace.
func (s *Server) transcriptDir() (string, error) {
	if s.opts.TranscriptDir != "" {
		return s.opts.TranscriptDir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	return filepath.Join(cache, "gemini-ls", "transcripts"), nil
}

func (s *Server) showTranscript(ctx context.Context, sessionID, text string) {
	dir, err := s.transcriptDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	path := filepath.Join(dir, sessionID+".md")
	if err == nil {
		var f *os.File
		f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		s.log.Warn("writing the transcript", zap.String("path", path), zap.Error(err))
		return
	}
	focus := true
	var res protocol.ShowDocumentResult
	if err := s.call(context.WithoutCancel(ctx), "window/showDocument", &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &focus}, &res); err != nil {
		s.log.Info("window/showDocument", zap.Error(err))
	}
}

// progress reports a command's work through $/progress.
type progress struct {
	s     *Server
	token any
	key   string
}

func (s *Server) beginProgress(ctx context.Context, f clientFeatures, token any, prompt string, cancel context.CancelFunc) *progress {
	p := &progress{s: s, token: token}
	if p.token == nil {
		if !f.WorkDoneProgress {
			return p
		}
		p.token = "gemini-" + rand.Text()
		if err := s.call(ctx, "window/workDoneProgress/create", map[string]any{"token": p.token}, nil); err != nil {
			s.log.Info("window/workDoneProgress/create", zap.Error(err))
			p.token = nil
			return p
		}
	}
	p.key = fmt.Sprint(p.token)
	s.mu.Lock()
	s.progress[p.key] = cancel
	s.mu.Unlock()
	cancellable := true
	msg := shorten(prompt, 100)
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Gemini", Cancellable: &cancellable, Message: &msg})
	return p
}

func (p *progress) report(message string) {
	p.send(&protocol.WorkDoneProgressReport{Kind: "report", Message: &message})
}

func (p *progress) end(message string) {
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
}

func (p *progress) send(value any) {
	if p.token == nil {
		return
	}
	p.s.notifyClient("$/progress", map[string]any{"token": p.token, "value": value})
}

func (p *progress) forget() {
	if p.key == "" {
		return
	}
	p.s.mu.Lock()
	delete(p.s.progress, p.key)
	p.s.mu.Unlock()
}

type progressCancelParams struct {
	Token any `json:"token"`
}

func (s *Server) cancelProgress(raw []byte) error {
	var p progressCancelParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	s.mu.Lock()
	cancel, ok := s.progress[fmt.Sprint(p.Token)]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return nil
}

// transcript is the Markdown record of a command's prompt.
type transcript struct{ b strings.Builder }

func (t *transcript) prompt(p string) {
	fmt.Fprintf(&t.b, "## Prompt\n\n%s\n\n## Gemini\n\n", p)
}

func (t *transcript) event(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		t.b.WriteString(e.Text)
	case agent.EventToolCall:
		fmt.Fprintf(&t.b, "\n\n- **%s**", e.ToolCall.Title)
	case agent.EventToolResult:
		fmt.Fprintf(&t.b, " — %s\n\n", e.ToolResult.Status)
	case agent.EventError:
		fmt.Fprintf(&t.b, "\n\n> **Error:** %v\n\n", e.Err)
	}
}

func (t *transcript) end(res promptResult) {
	fmt.Fprintf(&t.b, "\n\n_%s_\n\n---\n\n", res.StopReason)
}

func (t *transcript) String() string { return t.b.String() }

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
