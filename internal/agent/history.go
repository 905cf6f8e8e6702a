package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Clear empties the session's history in place, as Gemini CLI's /clear
// does, keeping its id: the next prompt starts afresh, and the saved
// session (history and transcript) is rewritten empty. What the user
// allowed for good, the usage and the prompt count stay. It waits for a
// running prompt (or for ctx).
func (s *Session) Clear(ctx context.Context) error {
	return s.ReplaceHistory(ctx, nil)
}

// ReplaceHistory makes history the session's whole history, as Gemini
// CLI's /chat resume does with a checkpoint's: the next prompt's request
// carries it. The transcript becomes one exchange per prompt of history,
// and the session's file is rewritten. A history the API would refuse
// (a role other than user or model, a missing content or part, a call
// left unanswered at its end) is an error and nothing changes. It waits
// for a running prompt (or for ctx).
func (s *Session) ReplaceHistory(ctx context.Context, history []*genai.Content) error {
	if err := checkHistory(history); err != nil {
		return err
	}
	if err := s.hold(ctx); err != nil {
		return err
	}
	defer s.end()
	if len(history) == 0 && len(s.chat.history) == 0 && s.transcriptLen() == 0 {
		return nil // nothing to clear: a new session is not saved empty
	}
	s.replaceChat(slices.Clone(history))
	s.chat.calls = countCalls(history) // new call ids must not repeat old ones
	s.exchangesMu.Lock()
	s.exchanges = exchangesOf(history)
	s.exchangesMu.Unlock()
	if err := s.persist(ctx, dialog.Usage{}, nil); err != nil {
		s.agent.cfg.Logger.Warn("saving the replaced history", zap.String("sessionId", s.id), zap.Error(err))
		return fmt.Errorf("the history was replaced, but the session could not be saved: %w", err)
	}
	return nil
}

// Delete forgets the conversation, as Gemini CLI's /quit --delete deletes
// the session's recording: its history and transcript are emptied as
// Clear empties them, its title (its first prompt) forgotten, and what
// was saved of it (its file, and its old one) is removed. The session
// goes on under its id, and its next prompt saves it afresh, titled anew;
// what the user allowed for good, the usage and the prompt count stay,
// as with Clear. saved is false when nothing of it had been saved. It
// waits for a running prompt.
func (s *Session) Delete() (saved bool, err error) {
	s.lock()
	defer s.end()
	s.replaceChat(nil) // a new epoch: the next save writes the session whole
	s.chat.calls = 0
	s.exchangesMu.Lock()
	s.exchanges = nil
	s.exchangesMu.Unlock()
	s.agent.mu.Lock()
	s.title = ""
	s.agent.mu.Unlock()
	store := s.agent.cfg.Store
	if store == nil {
		return false, nil
	}
	switch err := store.Delete(s.id); {
	case errors.Is(err, sessionstore.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("the conversation was emptied, but its saved session was not deleted: %w", err)
	}
	return true, nil
}

// transcriptLen is how many exchanges the transcript has.
func (s *Session) transcriptLen() int {
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	return len(s.exchanges)
}

// checkHistory refuses a history the model could not be sent.
func checkHistory(history []*genai.Content) error {
	for i, c := range history {
		switch {
		case c == nil:
			return fmt.Errorf("invalid history: content %d is missing", i+1)
		case c.Role != genai.RoleUser && c.Role != genai.RoleModel:
			return fmt.Errorf("invalid history: content %d has role %q, not %q or %q", i+1, c.Role, genai.RoleUser, genai.RoleModel)
		case slices.Contains(c.Parts, nil):
			return fmt.Errorf("invalid history: content %d has a missing part", i+1)
		}
	}
	if n := len(history); n > 0 && history[n-1].Role == genai.RoleModel && hasFunctionCall(history[n-1]) {
		return errors.New("invalid history: it ends with a tool call that has no result")
	}
	return nil
}

// exchangesOf is the transcript of history: one exchange per prompt (a
// user content that answers no call), with the model's text after it.
func exchangesOf(history []*genai.Content) []sessionstore.Exchange {
	var out []sessionstore.Exchange
	var answer strings.Builder
	flush := func() {
		if n := len(out); n > 0 {
			out[n-1].Answer = answer.String()
		}
		answer.Reset()
	}
	for _, c := range history {
		switch {
		case c.Role == genai.RoleUser && !hasFunctionResponse(c):
			flush()
			out = append(out, sessionstore.Exchange{Prompt: textOf(c), StopReason: string(dialog.StopEndTurn)})
		case c.Role == genai.RoleModel:
			for _, p := range c.Parts {
				if p.Text != "" && !p.Thought {
					answer.WriteString(dialog.ParagraphBreak(answer.String()) + p.Text)
				}
			}
		}
	}
	flush()
	return out
}

// textOf is c's text, without thoughts.
func textOf(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// replaceChat makes history the model's; s.running is held. The model is
// told of the editor, and shown the context files found on the way, anew:
// what it was told is gone with the old history.
func (s *Session) replaceChat(history []*genai.Content) {
	if len(history) == 0 {
		// Cleared: the next prompt begins a new chat, with a context of
		// its own, as 0.61's /clear starts one.
		s.chat.context = nil
	}
	s.chat.replace(history)
	s.chat.promptTokens = 0
	s.chat.compressionFailed = false
	s.editor.reset()
	s.agent.mu.Lock()
	s.agent.forget(s.id)
	s.agent.mu.Unlock()
}
