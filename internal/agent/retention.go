package agent

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// expiryTimeout bounds the removal of old sessions: a few hundred files
// read once, never worth holding an exit for longer.
const expiryTimeout = 30 * time.Second

// expiry removes the old sessions once, in the background.
type expiry struct {
	own  sync.Once // when Config.RetentionOnce is nil
	done sync.WaitGroup
}

// startExpiry removes the project's old sessions as Config.Retention
// says, in the background, the first time a session is live: after
// start-up, which it never slows, and knowing the session in use, which
// it keeps as 0.61 keeps its current one (and every other live one).
func (a *Agent) startExpiry() {
	if a.cfg.Retention == nil || a.cfg.Store == nil {
		return
	}
	once := a.cfg.RetentionOnce
	if once == nil {
		once = &a.expiry.own
	}
	once.Do(func() {
		a.expiry.done.Add(1)
		go func() {
			defer a.expiry.done.Done()
			a.expireSessions()
		}()
	})
}

func (a *Agent) expireSessions() {
	ctx, cancel := context.WithTimeout(context.Background(), expiryTimeout)
	defer cancel()
	res, err := a.cfg.Store.Expire(ctx, a.root(), *a.cfg.Retention, a.cfg.Now(), a.isLive)
	if err != nil {
		a.cfg.Logger.Warn("Session cleanup failed", zap.Error(err))
		return
	}
	if res.Deleted > 0 || res.Failed > 0 {
		a.cfg.Logger.Info("Session cleanup", zap.Int("deleted", res.Deleted), zap.Int("skipped", res.Skipped), zap.Int("failed", res.Failed))
	}
}

// isLive reports whether session id is open in this process, and
// whether it counts among the sessions a cleanup keeps: one resumed
// does, one started here does not, as 0.61's new session, whose file
// holds no message yet when it cleans up at start-up (a prompt of
// gemini-ls's may have written one already: it is saved as it runs).
func (a *Agent) isLive(id string) (bool, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	return ok, ok && s.resumed
}

// waitExpiry waits for the removal of old sessions, if one is under way.
func (a *Agent) waitExpiry() { a.expiry.done.Wait() }
