package lsp

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
)

// progress shows a gemini.prompt turn through $/progress: begun with the
// prompt, then each tool's title and each line of the model's text as it
// completes, ended with a summary. It is cancellable:
// window/workDoneProgress/cancel cancels the turn.
type progress struct {
	s     *Server
	token any
	key   string
	line  strings.Builder // the model's text since its last line break
}

// beginProgress creates a token of the server's own: a token the client
// put in the executeCommand request is valid only until the answer, which
// comes at once.
func (s *Server) beginProgress(ctx context.Context, f clientFeatures, prompt string, cancel context.CancelFunc) *progress {
	p := &progress{s: s}
	if !f.WorkDoneProgress {
		return p
	}
	token := "gemini-" + rand.Text()
	if err := s.call(ctx, "window/workDoneProgress/create", map[string]any{"token": token}, nil); err != nil {
		s.log.Info("window/workDoneProgress/create", zap.Error(err))
		return p
	}
	p.token, p.key = token, token
	s.mu.Lock()
	s.progress[p.key] = cancel
	s.mu.Unlock()
	cancellable := true
	msg := shorten(firstLine(prompt), 100)
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Gemini", Cancellable: &cancellable, Message: &msg})
	return p
}

// event reports what the user should see of e.
func (p *progress) event(e agent.Event) {
	switch e.Kind {
	case agent.EventToolCall:
		// What the model said before the call comes first.
		p.flush()
		p.report(e.ToolCall.Title)
	case agent.EventText:
		// Whole lines only: a status line cannot show a stream of words.
		p.line.WriteString(e.Text)
		text := p.line.String()
		i := strings.LastIndexByte(text, '\n')
		if i < 0 {
			return
		}
		p.line.Reset()
		p.line.WriteString(text[i+1:])
		p.reportLines(text[:i])
	case agent.EventRetry:
		p.report(fmt.Sprintf("retrying in %s: %s", e.Retry.Delay.Round(100*time.Millisecond), e.Retry.Reason))
	}
}

// flush reports the text since the last line break.
func (p *progress) flush() {
	text := p.line.String()
	p.line.Reset()
	p.reportLines(text)
}

func (p *progress) reportLines(text string) {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			p.report(shorten(l, 100))
		}
	}
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
