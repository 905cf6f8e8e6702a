package acp

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// MaxIdleSessions is how many idle sessions a connection keeps built.
// Each session has a build of its own (its MCP servers' processes, its
// tools, its model client: about 0.4 MB and the servers), and clients
// keep the sessions of threads the user left (Zed's archived threads
// are never closed), so an editor open for a day would hold every
// thread it ever showed. Beyond this, the least recently used idle
// session is parked: its build is closed, what it was opened with is
// kept, and the next request that names it opens it again from disk,
// as session/resume would, so the client sees no difference.
const MaxIdleSessions = dialog.MaxIdleSavedSessions

// MaxParkedSessions bounds what the parked sessions cost (a few hundred
// bytes each); past it the oldest is forgotten, and session/load (its
// history is on disk) brings it back.
const MaxParkedSessions = 4096

// parked is what a parked session is opened again with.
type parked struct {
	cwd     string
	dirs    []string
	servers []sdk.McpServer
	prompt  dialog.ClientPrompt
	mode    dialog.ApprovalMode
	model   string
}

// acquire is the live session id, opened again when it was parked, held
// until release so that it is not parked meanwhile.
func (s *server) acquire(ctx context.Context, id sdk.SessionId) (sess *session, release func(), err error) {
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	if sess, err = s.lookup(id); err != nil {
		p, ok := s.parked.Get(string(id))
		if !ok {
			return nil, nil, err
		}
		if sess, err = s.unpark(ctx, string(id), p); err != nil {
			return nil, nil, err
		}
		s.parked.Delete(string(id))
	}
	sess.inUse++
	return sess, func() { s.release(sess) }, nil
}

// release ends a hold acquire took, and parks what is idle beyond the
// bound, the session just used counting as the most recent.
func (s *server) release(sess *session) {
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	sess.inUse--
	s.touch(sess)
}

// touch marks sess as just used and parks the idle sessions beyond
// MaxIdleSessions, least recently used first; s.parkMu is held.
func (s *server) touch(sess *session) {
	s.uses++
	sess.lastUse = s.uses
	var idle []*session
	for _, l := range s.host.Lives() {
		if l.State.inUse == 0 && s.host.Idle(l.ID()) {
			idle = append(idle, l.State)
		}
	}
	if len(idle) <= MaxIdleSessions {
		return
	}
	slices.SortFunc(idle, func(a, b *session) int { return cmp.Compare(a.lastUse, b.lastUse) })
	for _, old := range idle[:len(idle)-MaxIdleSessions] {
		s.park(old)
	}
}

// park closes sess's build, keeping what opens it again; s.parkMu is
// held.
func (s *server) park(sess *session) {
	live := sess.current()
	p := parked{cwd: sess.cwd, dirs: sess.moreRoots(), servers: sess.servers, prompt: sess.systemPrompt,
		mode: live.Mode(), model: s.host.Model(sess.setup())}
	if !s.host.CloseAndWait(s.life, sess.id) {
		return // closed meanwhile
	}
	s.parked.Put(sess.id, p)
	sess.log.Info("parked an idle session: its build is closed until it is named again", zap.Int("kept", MaxIdleSessions))
}

// unpark opens parked session id again as it was: resumed from disk
// (or, never prompted, new with its id), in its mode and with its
// model; s.parkMu is held.
func (s *server) unpark(ctx context.Context, id string, p parked) (*session, error) {
	sess, err := s.build(p.cwd, existingDirs(p.dirs), p.servers, p.prompt)
	if err != nil {
		return nil, err
	}
	live, err := s.host.Resume(ctx, sess.setup(), id, "", true, sess)
	if _, unknown := errors.AsType[*dialog.UnknownSessionError](err); unknown {
		live, err = s.host.OpenWithID(ctx, sess.setup(), id, true, sess)
	}
	if err != nil {
		sess.setup().Close()
		return nil, sdk.NewInternalError(map[string]any{"error": "opening the parked session again: " + err.Error()})
	}
	sess.start(live)
	if live.Mode() != p.mode {
		if err := s.host.SetMode(ctx, id, p.mode); err != nil {
			sess.log.Warn("the parked session's mode could not be set again", zap.String("mode", string(p.mode)), zap.Error(err))
		}
	}
	if p.model != "" && s.host.Model(sess.setup()) != p.model {
		if err := s.host.SetModel(id, p.model); err != nil {
			sess.log.Warn("the parked session's model could not be set again", zap.String("model", p.model), zap.Error(err))
		}
	}
	sess.log.Info("opened a parked session again")
	return sess, nil
}

// unparkForget forgets parked session id, which the client closes or
// loads anew; it says whether it was parked.
func (s *server) unparkForget(id string) bool {
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	return s.parked.Delete(id)
}

// isParked reports whether session id is parked.
func (s *server) isParked(id string) bool {
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	return s.parked.Has(id)
}

// moreRoots are the session's roots besides its cwd: the client's
// additional directories and those added since (/directory add).
func (sess *session) moreRoots() []string {
	roots := sess.ws.Roots()
	if len(roots) == 0 {
		return nil
	}
	return slices.Clone(roots[1:]) // the first is cwd's
}

// existingDirs are those of dirs that are still directories: one removed
// since the session was parked is no root of it any more.
func existingDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
