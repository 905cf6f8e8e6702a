package agent

import (
	"cmp"
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

// persisted is where a session stands with its file: how much of the
// history is saved, and in which epoch of the chat (a compression starts
// a new one, and the whole history is then rewritten), and the session
// context it holds (nil for none). Only the running prompt touches it.
type persisted struct {
	contents int
	epoch    int
	context  *genai.Content
}

// save writes what the prompt added (its exchange, with the journal of
// the files it changed) to the session's file, and reports a
// failure to the user: a session that will not survive a restart is
// something they should know.
func (s *Session) save(ctx context.Context, in dialog.Input, res dialog.PromptResult, files []sessionstore.FileEdit, emit func(dialog.Event)) {
	ex := sessionstore.Exchange{Prompt: cmp.Or(in.Text, in.Command), Answer: res.Text, StopReason: string(res.StopReason), Files: files}
	s.exchangesMu.Lock()
	s.exchanges = append(s.exchanges, ex)
	s.exchangesMu.Unlock()
	err := s.persist(ctx, res.Usage, &ex)
	s.endLive()
	if err != nil {
		s.agent.cfg.Logger.Warn("saving the session", zap.String("sessionId", s.id), zap.Error(err))
		emit(dialog.NoticeEvent{Text: fmt.Sprintf("This session could not be saved, so it will not survive a restart: %v", err), Aside: true})
	}
}

// SaveMode saves the mode the session chose between prompts (/plan, a
// client's mode switch), so a restart before the next prompt keeps it. A
// running prompt saves it when it ends, and a session with nothing said
// yet is not saved for its mode alone.
func (s *Session) SaveMode(ctx context.Context) error {
	select {
	case s.running <- struct{}{}:
	default:
		return nil
	}
	defer s.end()
	if len(s.chat.history) == 0 && s.transcriptLen() == 0 {
		return nil
	}
	if err := s.persist(ctx, dialog.Usage{}, nil); err != nil {
		return fmt.Errorf("saving the session's mode: %w", err)
	}
	return nil
}

// persist brings the session's file up to date: what was added since the
// last save, with usage and ex (nil for none) as what it added, or the
// whole session when the history was replaced since. The running prompt
// (or whatever holds s.running) calls it.
func (s *Session) persist(ctx context.Context, usage dialog.Usage, ex *sessionstore.Exchange) error {
	store := s.agent.cfg.Store
	if store == nil {
		return nil
	}
	// Saving is part of ending the prompt, even a cancelled one.
	ctx = context.WithoutCancel(ctx)
	meta := s.storeMeta()
	// A prompt recorded as it runs is rewritten or ended by its recorder.
	var rec *sessionstore.Recorder
	if s.live != nil {
		rec = s.live.rec
	}
	var err error
	if s.chat.epoch != s.saved.epoch || s.saved.contents > len(s.chat.history) {
		s.exchangesMu.Lock()
		exchanges := slices.Clone(s.exchanges)
		s.exchangesMu.Unlock()
		snap := sessionstore.Snapshot{
			Meta: meta, History: s.chat.history, Allow: s.approvals.keys(),
			Usage: storeUsage(s.sessionUsage()), Exchanges: exchanges,
			Context: s.chat.contextText(),
		}
		switch {
		case rec != nil && ex == nil: // during the prompt
			err = rec.Replace(ctx, snap)
		case rec != nil: // its end: snap holds its exchange
			rec.Close()
			s.live.rec = nil
			err = store.Replace(ctx, snap)
		default:
			err = store.Replace(ctx, snap)
		}
	} else {
		turn := sessionstore.Turn{
			Meta: meta, History: s.chat.history[s.saved.contents:], Allow: s.approvals.keys(),
			Usage: storeUsage(usage), Exchange: ex, Context: s.unsavedContext(),
		}
		if rec != nil {
			err = rec.Commit(ctx, turn)
			s.live.rec = nil
		} else {
			err = store.Append(ctx, turn)
		}
	}
	if err != nil {
		return err
	}
	s.saved = persisted{contents: len(s.chat.history), epoch: s.chat.epoch, context: s.chat.context}
	return nil
}

// storeMeta is the session's metadata as saved.
func (s *Session) storeMeta() sessionstore.Meta {
	a := s.agent
	// Only the mode the session chose is saved: one it follows is the
	// agent's, which its next run chooses anew. Read before a.mu is
	// taken: the session's mode lock is taken first elsewhere
	// (Session.ApprovalMode).
	mode, plan := s.ownMode(), s.ApprovedPlan()
	a.mu.Lock()
	defer a.mu.Unlock()
	return sessionstore.Meta{
		ID: s.id, Root: s.root, Title: s.title, Model: a.activeModel(),
		Created: s.created, Updated: s.updated, Prompts: s.prompts,
		Mode: string(mode), ApprovedPlan: plan,
		ContextUsed: s.context.Used, ContextSize: s.context.Size,
	}
}

func storeUsage(u dialog.Usage) sessionstore.Usage {
	return sessionstore.Usage{
		PromptTokens: int64(u.PromptTokens), CandidatesTokens: int64(u.CandidatesTokens),
		ThoughtsTokens: int64(u.ThoughtsTokens), TotalTokens: int64(u.TotalTokens),
		CachedTokens: int64(u.CachedTokens),
	}
}

func usageFromStore(u sessionstore.Usage) dialog.Usage {
	return dialog.Usage{
		PromptTokens: int32(u.PromptTokens), CandidatesTokens: int32(u.CandidatesTokens),
		ThoughtsTokens: int32(u.ThoughtsTokens), TotalTokens: int32(u.TotalTokens),
		CachedTokens: int32(u.CachedTokens),
	}
}

// resume reads session id back from disk and makes it live; an id on disk
// that is not a session is an *UnknownSessionError.
func (a *Agent) resume(ctx context.Context, id string) (*Session, error) {
	store := a.cfg.Store
	if store == nil {
		return nil, &dialog.UnknownSessionError{SessionID: id}
	}
	snap, err := store.Load(ctx, id)
	switch {
	case errors.Is(err, sessionstore.ErrNotFound), errors.Is(err, sessionstore.ErrInvalidID):
		return nil, &dialog.UnknownSessionError{SessionID: id}
	case err != nil:
		return nil, fmt.Errorf("resuming session %s: %w", id, err)
	}
	s := a.newSession(id, snap.Meta.Root, snap.Meta.Created)
	s.title, s.updated, s.prompts = snap.Meta.Title, snap.Meta.Updated, snap.Meta.Prompts
	s.usage = usageFromStore(snap.Usage)
	s.context = dialog.ContextFill{Used: snap.Meta.ContextUsed, Size: snap.Meta.ContextSize}
	s.exchanges = snap.Exchanges
	s.chat.history = snap.History
	s.chat.calls = countCalls(snap.History) // new call ids must not repeat old ones
	// The contents closing an interrupted prompt go to disk with the
	// next save.
	s.saved = persisted{contents: snap.Saved}
	s.restoreContext(snap.Context)
	s.approvals.allowAlways(snap.Allow...)
	s.mode, s.approvedPlan = a.restoredMode(dialog.ApprovalMode(snap.Meta.Mode)), snap.Meta.ApprovedPlan
	s.startSource, s.resumed = "resume", true
	s.savedWhole = s.onDisk()

	a.mu.Lock()
	defer a.mu.Unlock()
	if live, ok := a.sessions[id]; ok {
		return live, nil // resumed by someone else meanwhile
	}
	a.sessions[id] = s
	a.touch(s)
	a.startExpiry()
	a.cfg.Logger.Info("resumed a session", zap.String("sessionId", id), zap.Int("contents", len(snap.History)), zap.Int("prompts", snap.Meta.Prompts))
	return s, nil
}

// restoredMode is the approval mode a resumed session continues in, its
// own as it was saved, within what this agent allows: in a folder that
// is not trusted, auto_edit and yolo come back as default, as a call
// could not switch to them there (turn.switchMode); plan comes back as
// default where plan mode is off. "" (a file saved before modes were
// kept) follows the agent's mode.
func (a *Agent) restoredMode(saved dialog.ApprovalMode) dialog.ApprovalMode {
	switch saved {
	case dialog.ApprovalDefault:
		return saved
	case dialog.ApprovalPlan:
		if a.cfg.PlansDir == nil {
			return dialog.ApprovalDefault
		}
		return saved
	case dialog.ApprovalAutoEdit, dialog.ApprovalYolo:
		if a.cfg.Untrusted {
			return dialog.ApprovalDefault
		}
		return saved
	}
	return ""
}

func countCalls(history []*genai.Content) int {
	n := 0
	for _, c := range history {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				n++
			}
		}
	}
	return n
}

// Sessions lists the sessions of root (all roots when ""), live and on
// disk, the most recently updated first.
func (a *Agent) Sessions(ctx context.Context, root string) ([]dialog.SessionInfo, error) {
	list := a.LiveSessions()
	if root != "" {
		list = slices.DeleteFunc(list, func(i dialog.SessionInfo) bool { return i.Root != root })
	}
	live := map[string]bool{}
	for _, i := range list {
		live[i.ID] = true
	}
	if store := a.cfg.Store; store != nil {
		metas, err := store.List(ctx, root)
		if err != nil {
			return nil, fmt.Errorf("listing saved sessions: %w", err)
		}
		for _, m := range metas {
			if live[m.ID] {
				continue
			}
			list = append(list, dialog.SessionInfo{ID: m.ID, Title: m.Title, Root: m.Root, CreatedAt: m.Created, UpdatedAt: m.Updated, Prompts: m.Prompts})
		}
	}
	slices.SortFunc(list, func(x, y dialog.SessionInfo) int {
		return cmp.Or(y.UpdatedAt.Compare(x.UpdatedAt), strings.Compare(x.ID, y.ID))
	})
	return list, nil
}

// Transcript is what the user saw of session id: each prompt and the
// model's text answer. It resumes the session if it is not live.
func (a *Agent) Transcript(ctx context.Context, id string) (dialog.SessionInfo, []Exchange, error) {
	s, err := a.Session(ctx, id)
	if err != nil {
		return dialog.SessionInfo{}, nil, err
	}
	a.mu.Lock()
	info := s.info()
	a.mu.Unlock()
	// A prompt still running is not in the transcript yet.
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	out := make([]Exchange, len(s.exchanges))
	for i, e := range s.exchanges {
		out[i] = Exchange{Prompt: e.Prompt, Answer: e.Answer, StopReason: dialog.StopReason(e.StopReason)}
	}
	return info, out, nil
}

// History is a copy of the session's whole history as recorded: what the
// model was sent and answered, a compression's summary first (see
// CompressedPrefix), one user content per prompt (as Transcript has one
// exchange per prompt) and the calls' responses. It waits for a running
// prompt: the history is the prompt's to change.
func (s *Session) History() ([]*genai.Content, error) {
	s.lock()
	defer s.end()
	return slices.Clone(s.chat.history), nil
}

// Exchange is one prompt of a session as the user saw it.
type Exchange struct {
	Prompt     string
	Answer     string
	StopReason dialog.StopReason
}
