package lsp

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
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

// progressTokens are the cancels of the gemini.prompt turns shown through
// $/progress, by token, for window/workDoneProgress/cancel: each turn's
// goroutine adds and removes its own, and the read loop cancels.
type progressTokens struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

func (p *progressTokens) add(token string, cancel context.CancelFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancels == nil {
		p.cancels = map[string]context.CancelFunc{}
	}
	p.cancels[token] = cancel
}

func (p *progressTokens) remove(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.cancels, token)
}

// cancel cancels the turn shown under token, if it still runs.
func (p *progressTokens) cancel(token string) {
	p.mu.Lock()
	cancel, ok := p.cancels[token]
	p.mu.Unlock()
	if ok {
		cancel()
	}
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
	s.progress.add(token, cancel)
	cancellable := true
	msg := ellipsis.Cut(firstLine(prompt), 100)
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Gemini", Cancellable: &cancellable, Message: &msg})
	return p
}

// The progress reports each of the model's lines, calls and retries,
// and its topic. A subagent's calls and retries are reported named by
// the agent, under its invoke_agent call's title; its text and topic are
// not: its report comes back as the invoke_agent call's result.

// text reports the model's text, whole lines only: a status line cannot
// show a stream of words.
func (p *progress) text(from dialog.Subagent, text string) {
	if from.CallID != "" {
		return
	}
	p.line.WriteString(text)
	sofar := p.line.String()
	i := strings.LastIndexByte(sofar, '\n')
	if i < 0 {
		return
	}
	p.line.Reset()
	p.line.WriteString(sofar[i+1:])
	p.reportLines(sofar[:i])
}

func (p *progress) toolCall(from dialog.Subagent, c dialog.ToolCall) {
	if from.CallID != "" {
		p.report(ellipsis.Cut(from.Name+": "+c.Title, 100))
		return
	}
	// What the model said before the call comes first.
	p.flush()
	p.report(c.Title)
}

func (p *progress) retry(from dialog.Subagent, r dialog.RetryInfo) {
	wait := fmt.Sprintf("retrying in %s: %s", r.Delay.Round(100*time.Millisecond), r.Reason)
	if from.CallID != "" {
		wait = from.Name + ": " + wait
	}
	p.report(wait)
}

// topic is a report: a progress's title is fixed at its begin.
func (p *progress) topic(from dialog.Subagent, t dialog.Topic) {
	if from.CallID != "" {
		return
	}
	p.flush()
	p.report(ellipsis.Cut(topicLine(t), 100))
}

// topicLine is the topic and intent update_topic set, in one line.
func topicLine(t dialog.Topic) string {
	if t.Title == "" {
		return t.Intent
	}
	return t.Title + ": " + t.Intent
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
			p.report(ellipsis.Cut(l, 100))
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
	p.s.progress.remove(p.token)
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
	s.progress.cancel(fmt.Sprint(p.Token))
	return nil
}
