package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
)

// NewSession starts a conversation with an empty history and a random id.
func (a *Agent) NewSession() *Session {
	s, _ := a.openNew(sessionstore.NewID())
	return s
}

// NewSessionWithID is NewSession with the id given, as Gemini CLI's
// --session-id: an id that is not valid (sessionstore.ValidateID), or
// that names a session live or saved, is refused (dialog.ErrSessionExists).
func (a *Agent) NewSessionWithID(ctx context.Context, id string) (*Session, error) {
	if err := sessionstore.ValidateID(id); err != nil {
		return nil, err
	}
	if a.persists() {
		_, err := a.cfg.Store.Load(ctx, id)
		switch {
		case err == nil:
			return nil, fmt.Errorf("%w: %s", dialog.ErrSessionExists, id)
		case !errors.Is(err, sessionstore.ErrNotFound):
			return nil, fmt.Errorf("looking for session %s: %w", id, err)
		}
	}
	return a.openNew(id)
}

// openNew makes a new session of id live, unless one with it is.
func (a *Agent) openNew(id string) (*Session, error) {
	s := a.fresh(id, a.root())
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, live := a.sessions[id]; live {
		return nil, fmt.Errorf("%w: %s", dialog.ErrSessionExists, id)
	}
	a.sessions[s.id] = s
	a.touch(s)
	a.startExpiry()
	return s, nil
}

// fresh is a new session of id in root, not yet live.
func (a *Agent) fresh(id, root string) *Session {
	now := a.cfg.Now().UTC()
	s := a.newSession(id, root, now)
	s.updated = now
	s.startSource = "startup"
	// Its id is new (made here, looked for on disk in vain, or of a blank
	// session): no file to look for at its first save.
	s.place = sessionstore.NewPlace(true)
	return s
}

// newSession is a session with an empty history and nothing allowed by
// the user yet, not yet live: new, or about to be filled from disk.
func (a *Agent) newSession(id, root string, created time.Time) *Session {
	s := &Session{id: id, agent: a, running: make(chan struct{}, 1), root: root, created: created}
	s.approvals = newApprovals(s.ApprovalMode, s.plansDirOrNone, a.annotations, a.cfg.AllowedKeys, a.cfg.TrustedTools)
	s.approvals.policy = a.cfg.Policy
	s.approvals.shell = a.cfg.Shell
	s.approvals.always = a.cfg.AlwaysAllow
	s.approvals.protected = a.cfg.Protected
	s.approvals.included = a.throughIncluded
	return s
}

// Session returns the session with id: a live one, else one read back
// from disk, or made anew when it was blank. An id that names none is an
// *UnknownSessionError.
func (a *Agent) Session(ctx context.Context, id string) (*Session, error) {
	a.mu.Lock()
	s, ok := a.sessions[id]
	dropped := a.closed.Has(id)
	if !ok {
		if b, blank := a.blanks.Get(id); blank {
			a.blanks.Delete(id)
			s, ok = a.fresh(id, b.root), true
			s.mode, s.beforePlan = b.mode, b.beforePlan
			a.sessions[id] = s
			a.touch(s)
		}
	}
	a.mu.Unlock()
	switch {
	case ok:
		return s, nil
	case dropped:
		return nil, &dialog.UnknownSessionError{SessionID: id, Dropped: true}
	}
	return a.resume(ctx, id)
}

// EndSession forgets the session with id and kills its background
// processes; a prompt it is running finishes.
func (a *Agent) EndSession(id string) {
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.blanks.Delete(id)
	a.forget(id)
	a.mu.Unlock()
	if s != nil {
		s.closeBackground()
	}
}

// DeleteSession deletes session id, live or saved: a live one is ended
// (EndSession) and what was saved of it removed, as Gemini CLI's
// --delete-session removes its file. An id that names neither is an
// *dialog.UnknownSessionError. The caller sees that no prompt of it runs.
func (a *Agent) DeleteSession(id string) error {
	if sessionstore.ValidateID(id) != nil {
		return &dialog.UnknownSessionError{SessionID: id}
	}
	live, _ := a.isLive(id)
	a.mu.Lock()
	blank := a.blanks.Has(id)
	a.mu.Unlock()
	live = live || blank
	a.EndSession(id)
	err := sessionstore.ErrNotFound
	if a.cfg.Store != nil {
		err = a.cfg.Store.Delete(id)
	}
	switch {
	case errors.Is(err, sessionstore.ErrNotFound) && live:
		return nil // never saved
	case errors.Is(err, sessionstore.ErrNotFound):
		return &dialog.UnknownSessionError{SessionID: id}
	}
	return err
}

// forget drops what the memory keeps per session (the context files a
// session was shown); a.mu is held. A resumed session is shown them anew.
func (a *Agent) forget(id string) {
	if m, ok := a.cfg.Memory.(interface{ EndSession(string) }); ok {
		m.EndSession(id)
	}
}

// forgetConversation tells the generator, when it keeps what it sent of
// each conversation (auth's encoding cache, by the history's first
// content), that c's is over, so that it does not keep c's history alive
// once c left memory. c is idle; a caller holding it for a moment (a
// history read) is not waited for, and then the cache keeps it until it
// is full; a.mu is held.
func (a *Agent) forgetConversation(c *Session) {
	g, ok := a.cfg.Generator.(interface{ ForgetConversation(*genai.Content) })
	if !ok {
		return
	}
	select {
	case c.running <- struct{}{}:
	default:
		return
	}
	first := c.chat.first()
	<-c.running
	if first != nil {
		g.ForgetConversation(first)
	}
}

// LiveSessions lists the sessions in memory, in no particular order.
func (a *Agent) LiveSessions() []dialog.SessionInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := make([]dialog.SessionInfo, 0, len(a.sessions))
	for _, s := range a.sessions {
		list = append(list, s.info())
	}
	return list
}

// root is the workspace root sessions are filed under.
func (a *Agent) root() string {
	if ws := a.cfg.Workspace; ws != nil && len(ws.Roots()) > 0 {
		return ws.Roots()[0]
	}
	return ""
}

// touch marks s as just used and drops the least recently used
// sessions that may go (droppable) beyond MaxLiveSessions; a.mu is held.
// Sessions that may not go stay: the sessions in memory then outnumber
// the bound until they may.
func (a *Agent) touch(s *Session) {
	a.uses++
	s.lastUse = a.uses
	for {
		crowded := a.blankCount() > dialog.MaxBlankSessions
		if len(a.sessions) <= dialog.MaxLiveSessions && (!a.persists() || a.droppableCount(s, crowded) <= dialog.MaxIdleSavedSessions) {
			return
		}
		oldest := a.leastRecentlyUsedDroppable(s, crowded)
		if oldest == nil {
			return
		}
		a.drop(oldest)
	}
}

// blankCount is how many blank sessions are in memory; a.mu is held.
func (a *Agent) blankCount() int {
	n := 0
	for _, c := range a.sessions {
		if c.blank() {
			n++
		}
	}
	return n
}

// droppableCount is how many sessions other than s may leave memory
// (crowded: see droppable); a.mu is held.
func (a *Agent) droppableCount(s *Session, crowded bool) int {
	n := 0
	for _, c := range a.sessions {
		if c != s && a.droppable(c, crowded) {
			n++
		}
	}
	return n
}

// leastRecentlyUsedDroppable is the session used longest ago that may
// leave memory (crowded: see droppable), other than s; nil when none
// may; a.mu is held.
func (a *Agent) leastRecentlyUsedDroppable(s *Session, crowded bool) *Session {
	var oldest *Session
	for _, c := range a.sessions {
		if c == s || !a.droppable(c, crowded) {
			continue
		}
		if oldest == nil || c.lastUse < oldest.lastUse {
			oldest = c
		}
	}
	return oldest
}

// droppable reports whether c may leave memory; a.mu is held. A session
// in use never may: one running something, pinned by a front end (a
// prompt claimed it, or is about to), or new and not prompted yet in its
// first minute (a prompt may be on its way to it: a front end opens a
// session, then claims it) while the blank sessions in memory are not
// crowded (more than dialog.MaxBlankSessions); past its minute, or
// crowded, a new one may if it is blank, and comes back new when named.
// Else, when sessions are saved, one whose every change is on disk may,
// as it is read back when named again; when they are not, any idle one
// may, and it ends (dialog.UnknownSessionError.Dropped).
func (a *Agent) droppable(c *Session, crowded bool) bool {
	switch {
	case c.busy() || c.pins > 0:
		return false
	case c.prompts == 0 && !c.resumed:
		// Holding nothing but its mode, it comes back new in that mode
		// when named (a.blanks): a client that opens sessions and never
		// prompts them (a "new conversation" key pressed again and again,
		// each set to the mode the user chose; a client opening them in a
		// loop) does not grow the memory without end, nor for a minute.
		return c.blank() && (crowded || a.cfg.Now().Sub(c.created) >= blankGrace)
	case a.persists():
		return c.savedWhole
	}
	return true
}

// blank reports whether c holds nothing a new session of its id would
// not but its approval mode: never prompted nor resumed, no approved
// plan; a.mu is held.
func (c *Session) blank() bool {
	return c.prompts == 0 && !c.resumed && c.ApprovedPlan() == ""
}

// blankSession is what a blank session dropped from memory comes back
// with: its root and its own approval mode (blank: its agent's), and
// the mode it left for plan mode.
type blankSession struct {
	root             string
	mode, beforePlan dialog.ApprovalMode
}

const (
	// blankGrace is how long a blank session stays in memory after it
	// was opened, whatever the bound: a prompt may be on its way to it (a
	// front end opens a session, then claims it).
	blankGrace = time.Minute
	// maxBlanks bounds the blank sessions dropped from memory that come
	// back when named; beyond it the oldest is forgotten, and naming it
	// is an *UnknownSessionError.
	maxBlanks = 4096
	// maxClosed bounds the ids of sessions dropped from memory, not
	// saved, that naming says were dropped; beyond it the oldest is
	// forgotten, and naming it is an *UnknownSessionError that does not
	// say so.
	maxClosed = 4096
)

// drop takes c out of memory; a.mu is held.
func (a *Agent) drop(c *Session) {
	delete(a.sessions, c.id)
	a.forget(c.id)
	a.forgetConversation(c)
	// Nobody could list or read its background processes any more.
	go c.closeBackground()
	switch {
	case c.blank():
		c.modeMu.Lock()
		a.blanks.Put(c.id, &blankSession{root: c.root, mode: c.mode, beforePlan: c.beforePlan})
		c.modeMu.Unlock()
	case !a.persists():
		a.closed.Put(c.id, struct{}{})
	}
	a.cfg.Logger.Info("dropped the least recently used session from memory",
		zap.String("sessionId", c.id), zap.Int("kept", dialog.MaxLiveSessions), zap.Bool("persisted", a.persists()))
}

// Pin keeps s in memory until unpin is called (once; later calls do
// nothing): a front end pins the session it is about to run a prompt in,
// so that the bound on sessions in memory cannot drop it meanwhile. A
// session no longer in memory (dropped, ended, or resumed anew) is an
// *dialog.UnknownSessionError.
func (s *Session) Pin() (unpin func(), err error) {
	a := s.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[s.id] != s {
		return nil, &dialog.UnknownSessionError{SessionID: s.id, Dropped: a.closed.Has(s.id)}
	}
	s.pins++
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			s.pins--
		})
	}, nil
}

// Idle reports whether s could leave memory and come back from disk as
// it is: it is live, no prompt runs in it or is on its way (pins), no
// background process of it runs, and everything of it is on disk, or
// it was never prompted and so holds nothing but its mode, which the
// front end keeps. A front end that keeps a build per session (ACP)
// lets an idle session's build go, and its MCP servers with it, and
// opens it again when the client names it.
func (s *Session) Idle() bool {
	a := s.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.sessions[s.id] != s || !a.persists() || s.busy() || s.pins > 0 || s.background.Running() > 0:
		return false
	case s.prompts == 0 && !s.resumed:
		return true
	}
	return s.savedWhole
}

// persists reports whether sessions are saved to disk.
func (a *Agent) persists() bool { return a.cfg.Store != nil }

// begin claims s for a prompt, titling it by its first one.
func (s *Session) begin(ctx context.Context, text string) error {
	if err := s.hold(ctx); err != nil {
		return err
	}
	a := s.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[s.id] != s {
		// Dropped from memory since it was looked up, or ended.
		<-s.running
		return &dialog.UnknownSessionError{SessionID: s.id, Dropped: a.closed.Has(s.id)}
	}
	if s.title == "" {
		line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		s.title = ellipsis.Cut(line, sessionstore.TitleRunes)
	}
	s.prompts++
	s.updated = a.cfg.Now().UTC()
	a.touch(s)
	return nil
}

// retitle makes a new topic's title (update_topic's) the session's:
// what it is about now, which its list shows and its next save keeps,
// in place of its first prompt. A subagent's topic is its own.
func (s *Session) retitle(topic dialog.Topic) {
	line, _, _ := strings.Cut(strings.TrimSpace(topic.Title), "\n")
	title := strings.TrimSpace(line)
	if !topic.New || title == "" || s.parent != nil {
		return
	}
	a := s.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	s.title = ellipsis.Cut(title, sessionstore.TitleRunes)
}

// hold waits for s to run nothing else (or for ctx), then holds it
// until end. The host runs one thing at a time in a session, so only a
// caller of the agent's own ever waits.
func (s *Session) hold(ctx context.Context) error {
	select {
	case s.running <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lock is hold for what cannot be cancelled.
func (s *Session) lock() { s.running <- struct{}{} }

// end releases s after a prompt (or whatever held it), noting whether
// all of it is on disk now.
func (s *Session) end() {
	whole := s.onDisk()
	s.agent.mu.Lock()
	s.savedWhole = whole
	s.agent.mu.Unlock()
	<-s.running
}

// onDisk reports whether the session's file holds the whole session: its
// history as it is (persist), saved or read back; s.running is held.
func (s *Session) onDisk() bool {
	if !s.agent.persists() || !s.resumed && s.saved.contents == 0 {
		return false
	}
	return s.saved == persisted{contents: len(s.chat.history), epoch: s.chat.epoch, context: s.chat.context}
}

// busy reports whether s is running a prompt.
func (s *Session) busy() bool { return len(s.running) > 0 }

// Info is what a session list shows of s now.
func (s *Session) Info() dialog.SessionInfo {
	s.agent.mu.Lock()
	defer s.agent.mu.Unlock()
	return s.info()
}

// info is what a session list shows of s; s.agent.mu is held.
func (s *Session) info() dialog.SessionInfo {
	return dialog.SessionInfo{
		ID:        s.id,
		Title:     s.title,
		Root:      s.root,
		CreatedAt: s.created,
		UpdatedAt: s.updated,
		Prompts:   s.prompts,
		Usage:     s.usage,
		Context:   s.context,
		Live:      true,
	}
}

// keepContextFill records how much of model's window the request just
// answered took (used, its prompt tokens), for the session's info; a
// subagent's own context is reported but not kept as the session's.
func (s *Session) keepContextFill(used int32, model string) dialog.ContextFill {
	fill := dialog.ContextFill{Used: used, Size: int32(s.agent.tokenLimit(model))}
	if s.parent != nil {
		return fill
	}
	s.agent.mu.Lock()
	defer s.agent.mu.Unlock()
	s.context = fill
	return fill
}

// sessionUsage is the session's token usage before the running prompt.
func (s *Session) sessionUsage() dialog.Usage {
	if s.parent != nil {
		return s.parent.sessionUsage()
	}
	s.agent.mu.Lock()
	defer s.agent.mu.Unlock()
	return s.usage
}
