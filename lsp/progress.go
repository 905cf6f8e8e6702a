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
	token string          // "" when the client shows no progress
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
	if err := s.call(ctx, "window/workDoneProgress/create", progressCreateParams{Token: token}, nil); err != nil {
		s.log.Info("window/workDoneProgress/create", zap.Error(err))
		return p
	}
	p.token = token
	s.mu.Lock()
	s.progress[p.token] = cancel
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
	if p.token == "" {
		return
	}
	p.s.notifyClient("$/progress", progressParams{Token: p.token, Value: value})
}

func (p *progress) forget() {
	if p.token == "" {
		return
	}
	p.s.mu.Lock()
	delete(p.s.progress, p.token)
	p.s.mu.Unlock()
}

// progressCreateParams are window/workDoneProgress/create's params.
type progressCreateParams struct {
	Token string `json:"token"`
}

// progressParams are $/progress' params: value is a begin, report or end.
type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

type progressCancelParams struct {
	Token any `json:"token"`
}

func (s *Server) cancelProgress(p progressCancelParams) error {
	s.mu.Lock()
	cancel, ok := s.progress[fmt.Sprint(p.Token)]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return nil
}
