package conversation

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// Folder trust while sessions run. Gemini CLI 0.61 asks, on its first run
// in a folder no rule of trustedFolders.json decides, whether to trust
// it, and restarts to apply the answer. A front end here asks at the
// claim of the first prompt (AskTrust), and when the folders' trust has
// changed since its build was made (Build.TrustChanged: the answer,
// /permissions trust, Gemini CLI), builds anew (Host.Rebuild) and
// continues the claimed session in the new build (Move): what the
// workspace brings counts from that prompt on, without a restart.

// AskTrust asks through v, before the claim's prompt in, whether to trust
// the first root of the session's workspace that no rule decides, once
// per folder for the host. The answer is recorded in trustedFolders.json as Gemini
// CLI records it; dismissing the question records nothing (the question
// says /permissions trust can answer it later). A folder that cannot be
// asked about is told of in the session as Gemini CLI tells an untrusted
// one, with how to change it. /permissions, which asks its own question,
// is not preceded by this one.
func (c *Claim[S]) AskTrust(in dialog.Input, v View) {
	h, l, ctx := c.h, c.live, c.turn.Context()
	if inv, ok := commands.Parse(in.Text); ok && inv.Name == "permissions" {
		return
	}
	trust := c.built.TrustNow()
	undecided := trust.Undecided()
	if len(undecided) == 0 || !h.firstAsk(undecided[0]) {
		return
	}
	folder := undecided[0]
	level, err := v.AskTrust(ctx, dialog.TrustRequest{SessionID: l.ID(), Folder: folder, Changed: trust.Changed(folder)})
	switch {
	case ctx.Err() != nil:
		h.unask(folder) // withdrawn with its prompt: asked again by the next
		return
	case err != nil:
		if !errors.Is(err, dialog.ErrCannotAsk) {
			h.logger().Warn("asking whether to trust the folder", zap.String("folder", folder), zap.Error(err))
		}
		v.Show(ctx, dialog.Subagent{}, dialog.NoticeEvent{Text: dialog.Untrusted})
		return
	case level == "":
		return
	}
	if err := c.built.SetTrust(ctx, folder, level); err != nil {
		v.Show(ctx, dialog.Subagent{}, dialog.NoticeEvent{Text: "The folder's trust was not recorded: " + err.Error()})
	}
}

// Move continues the claim's session in the agent its build was made
// anew as (Host.Rebuild) since the claim began: resumed there when it was
// saved, else begun there under its id. What runs in the claim then runs
// there, and the host finds the session there; the agent it leaves is
// closed once no turn runs in it.
func (c *Claim[S]) Move() error {
	fresh := c.live.build.hold()
	old := c.built
	c.built = fresh
	if err := c.follow(); err != nil {
		c.built = old
		c.live.build.release(fresh)
		return err
	}
	c.live.build.release(old)
	return nil
}

// follow continues the claim's session in the agent the claim holds,
// when the session runs in another.
func (c *Claim[S]) follow() error {
	old := c.live
	if old.built == c.built {
		return nil
	}
	s, err := continueIn(c.turn.Context(), c.built, old.ID())
	if err != nil {
		return err
	}
	c.live = c.h.add(&Live[S]{session: s, build: old.build, built: c.built, State: old.State, owns: old.owns})
	return nil
}

// rebuilt is session id of built when the agent of built does not know
// it (notFound, from Resume) but the host holds it live in another agent:
// one made before built, in which the session had said nothing yet. It
// continues in built under its id.
func (h *Host[S]) rebuilt(ctx context.Context, built *setup.Built, id string, notFound error) (*agent.Session, error) {
	l, ok := h.Lookup(id)
	if !ok || l.built == built {
		return nil, notFound
	}
	return continueIn(ctx, built, id)
}

// continueIn is session id in built's agent: the one it holds or saved,
// else a new one under the id.
func continueIn(ctx context.Context, built *setup.Built, id string) (*agent.Session, error) {
	s, err := built.Agent.Session(ctx, id)
	if IsUnknownSession(err) {
		s, err = built.Agent.NewSessionWithID(ctx, id)
	}
	return s, err
}

// firstAsk claims the trust question about folder: false when it was put
// already.
func (h *Host[S]) firstAsk(folder string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.asked[folder] {
		return false
	}
	h.asked[folder] = true
	return true
}

// unask lets the trust question about folder be put again.
func (h *Host[S]) unask(folder string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.asked, folder)
}

func (h *Host[S]) logger() *zap.Logger {
	if h.cfg.Logger == nil {
		return zap.NewNop()
	}
	return h.cfg.Logger
}
