package agent

import (
	"context"
	"fmt"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// liveSave records a running prompt on disk as it happens
// (sessionstore.Recorder), so that a process killed during it keeps
// what it did: the prompt is on disk before the first model request,
// each model answer and each call's result as it completes; the
// prompt's end (its exchange, approvals, usage) is saved by persist.
// Only the running prompt touches it, and the calls of one answer
// through turn.ended, under the turn's partialMu.
type liveSave struct {
	ctx    context.Context // the prompt's, never cancelled: a cancelled prompt's end is saved too
	prompt string
	emit   func(dialog.Event)
	rec    *sessionstore.Recorder
	// off: a save failed (and the user was told); the rest of the prompt
	// is saved whole at its end.
	off bool
}

// startLive records prompt's contents from now on, as they come.
func (s *Session) startLive(ctx context.Context, prompt string, emit func(dialog.Event)) {
	if s.agent.cfg.Store == nil {
		return
	}
	s.live = &liveSave{ctx: context.WithoutCancel(ctx), prompt: prompt, emit: emit}
	s.chat.save = s.saveStep
}

// endLive ends the recording, once persist saved the prompt's end.
func (s *Session) endLive() {
	if l := s.live; l != nil && l.rec != nil {
		l.rec.Close()
	}
	s.live, s.chat.save = nil, nil
}

// saveStep writes the content the history just gained, the prompt's
// first with all not yet on disk before it.
func (s *Session) saveStep(st sessionstore.Step) {
	l := s.live
	n := len(s.chat.history)
	if l == nil || l.off || s.chat.epoch != s.saved.epoch || s.saved.contents > n-1 {
		return
	}
	var err error
	switch {
	case l.rec == nil:
		if s.place == nil {
			s.place = sessionstore.NewPlace(false)
		}
		l.rec, err = s.agent.cfg.Store.Begin(l.ctx, sessionstore.Begin{Meta: s.storeMeta(), Prompt: l.prompt, History: s.chat.history[s.saved.contents:], Context: s.unsavedContext(), Place: s.place})
		if err == nil {
			s.saved.context = s.chat.context
		}
	case s.saved.contents == n-1:
		err = l.rec.Record(st)
	default:
		return // an earlier content is not on disk: all go at the end
	}
	if err != nil {
		s.liveFailed(err, l.emit)
		return
	}
	s.saved.contents = n
}

// savePartial writes the results of an answer's calls that have ended
// while others run (c answers those), when all before are on disk.
func (s *Session) savePartial(c *genai.Content, emit func(dialog.Event)) {
	l := s.live
	if l == nil || l.off || l.rec == nil || s.saved.contents != len(s.chat.history) {
		return
	}
	if err := l.rec.Record(sessionstore.Step{Content: c, Partial: true}); err != nil {
		s.liveFailed(err, emit)
	}
}

// liveFailed stops the recording and tells the user: what the prompt
// does from now on is saved at its end, lost if the process dies first.
func (s *Session) liveFailed(err error, emit func(dialog.Event)) {
	s.live.off = true
	s.agent.cfg.Logger.Warn("saving the running prompt", zap.String("sessionId", s.id), zap.Error(err))
	emit(dialog.NoticeEvent{Text: fmt.Sprintf("The prompt could not be saved as it runs, so until it ends it would not survive the process stopping: %v", err)})
}

// ended takes the parts answering call i of the answer being run and,
// while other calls of the answer still run, saves the results so far;
// the whole answer is saved as the history gains it (run), and before a
// compression that would come first (compress).
func (t *turn) ended(answers [][]*genai.Part, i int, parts []*genai.Part) {
	t.partialMu.Lock()
	defer t.partialMu.Unlock()
	answers[i] = parts
	if t.s.live == nil {
		return
	}
	c := &genai.Content{Role: genai.RoleUser}
	whole := true
	for _, a := range answers {
		whole = whole && a != nil
		c.Parts = append(c.Parts, a...)
	}
	if whole {
		t.unsaved = c
		return
	}
	t.s.savePartial(c, t.emit)
}

// saveUnsaved saves the whole answer run last before anything that
// delays its joining the history (a compression's request).
func (t *turn) saveUnsaved() {
	if c := t.unsaved; c != nil {
		t.unsaved = nil
		t.s.savePartial(c, t.emit)
	}
}
