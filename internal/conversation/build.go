package conversation

import (
	"context"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
	"github.com/gemini-ls/gemini-ls/internal/tools/toolset"
)

// Build is a front end's handle on an agent the host built (Host.Build)
// or loaded (Host.Load): what the front end reads of it (auth, trust,
// the model, what completion and the command list need), and nothing
// that reaches the agent or its tools, which only the host drives.
//
// Host.Rebuild makes the agent anew under the handle while its sessions
// live: each continues in the new agent from its next turn, a turn
// running meanwhile ends in the agent it began in, and an agent replaced
// is closed once no turn runs in it. A nil *Build is a build that
// failed: Close does nothing.
type Build struct {
	// rebuilding serialises Rebuild and Reload, so that an agent made
	// anew has every change of settings made before it.
	rebuilding sync.Mutex

	// mu guards the fields below.
	mu sync.Mutex
	// current is the agent new turns run in.
	current *setup.Built
	// turns counts the turns running in each agent, current or replaced.
	turns  map[*setup.Built]int
	closed bool
	// onClose are called once the build is closed (OnClose).
	onClose []func()
}

func newBuild(b *setup.Built) *Build {
	return &Build{current: b, turns: map[*setup.Built]int{}}
}

// built is the agent new turns run in.
func (b *Build) built() *setup.Built {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.current
}

// hold is the agent new turns run in, kept open for one more turn until
// release.
func (b *Build) hold() *setup.Built {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.turns[b.current]++
	return b.current
}

// release ends a turn hold began in g: a g replaced meanwhile is closed
// once no turn runs in it.
func (b *Build) release(g *setup.Built) {
	b.mu.Lock()
	b.turns[g]--
	idle := b.turns[g] <= 0
	if idle {
		delete(b.turns, g)
	}
	retired := idle && g != b.current && !b.closed
	b.mu.Unlock()
	if retired {
		g.Close()
	}
}

// replace makes fresh the agent new turns run in; the one it replaces
// is closed now when no turn runs in it, else when the last one ends.
func (b *Build) replace(fresh *setup.Built) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		fresh.Close()
		return
	}
	old := b.current
	b.current = fresh
	idle := b.turns[old] == 0
	b.mu.Unlock()
	if idle {
		old.Close()
	}
}

// Close closes every agent of the handle now, turns running or not (the
// front end's connection ends); later calls do nothing.
func (b *Build) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	all := []*setup.Built{b.current}
	for g := range b.turns {
		if g != b.current {
			all = append(all, g)
		}
	}
	onClose := b.onClose
	b.mu.Unlock()
	for _, g := range all {
		g.Close()
	}
	for _, f := range onClose {
		f()
	}
}

// OnClose has f called once the build is closed: the end of what the
// front end made for it alone (ACP's session workspace). On a build
// closed already, f is called now.
func (b *Build) OnClose(f func()) {
	b.mu.Lock()
	if !b.closed {
		b.onClose = append(b.onClose, f)
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	f()
}

// AuthErr says why the model cannot be reached, worded for the user;
// nil when it can.
func (b *Build) AuthErr() error { return b.built().AuthErr }

// AuthStatus says which auth mode is chosen, why, and what is missing,
// never a secret.
func (b *Build) AuthStatus() auth.Report { return b.built().AuthStatus() }

// NotTrusted is why the workspace is not a trusted folder; nil when it
// is (setup.Built.NotTrusted).
func (b *Build) NotTrusted() error { return b.built().NotTrusted() }

// TrustChanged reports whether the folders' trust changed since the
// agent was made: Host.Rebuild makes it count.
func (b *Build) TrustChanged() bool { return b.built().TrustChanged() }

// Stale reports whether the agent must be made anew for what changed
// since to count (setup.Built.Stale: the folders' trust, the installed
// extensions): Host.Rebuild makes it count.
func (b *Build) Stale() bool { return b.built().Stale() }

// RootsChanged reports whether the workspace's roots changed since the
// agent was made (setup.Built.RootsChanged): Host.Rebuild makes them count.
func (b *Build) RootsChanged() bool { return b.built().RootsChanged() }

// Untrusted are the workspace's roots that are not trusted folders.
func (b *Build) Untrusted() []string { return b.built().Trust.Untrusted() }

// ApprovalMode is the mode every session runs in unless it switched
// itself: the agent's, which a change of settings sets, else the one the
// build chose.
func (b *Build) ApprovalMode() dialog.ApprovalMode {
	built := b.built()
	if built.Agent != nil {
		return built.Agent.ApprovalMode()
	}
	return built.ApprovalMode
}

// PlanEnabled reports whether the sessions may enter plan mode.
func (b *Build) PlanEnabled() bool { return b.built().Plan.Enabled }

// InlineCompletion is the inlineCompletion settings.
func (b *Build) InlineCompletion() settings.InlineCompletion {
	return b.built().Settings.InlineCompletion
}

// WorktreeSetupCommand is the command an agent runs first in a worktree
// made for it (experimental.worktreeSetupCommand); "" for none.
func (b *Build) WorktreeSetupCommand() string {
	return strings.TrimSpace(b.built().Settings.Experimental.WorktreeSetupCommand)
}

// Completion is what completion asks the model with (setup.Built.Completion).
func (b *Build) Completion() completion.Backend { return b.built().Completion() }

// ReportCompletion makes stats what /stats shows of completion, in this
// agent and those made anew after it.
func (b *Build) ReportCompletion(stats func() completion.Stats) {
	b.built().ReportCompletion(stats)
}

// SettingsAllowTools reports whether the settings' tools.allowed (which
// Gemini CLI deprecates) names any tool.
func (b *Build) SettingsAllowTools() bool { return len(b.built().Settings.Tools.Allowed) > 0 }

// MisspeltModel is the model name is a slip of (models.Misspelt), the
// settings' own aliases (modelConfigs.aliases and customAliases) known
// too; "" when none.
func (b *Build) MisspeltModel(name string) string {
	mc := b.built().Settings.ModelConfigs
	var own []string
	for _, m := range []map[string]any{mc.Aliases, mc.CustomAliases} {
		for alias := range m {
			own = append(own, alias)
		}
	}
	return models.Misspelt(name, own)
}

// OutputFormat is the settings' output.format: a headless run's format
// when its command line names none; "" when unset.
func (b *Build) OutputFormat() string { return b.built().Settings.Output.Format }

// Sandbox says whether and how commands run on the model's behalf are
// sandboxed, in a few words for the user.
func (b *Build) Sandbox() string { return b.built().Sandbox.Describe() }

// Extensions are the names of the user's installed extensions, enabled
// or not.
func (b *Build) Extensions() []string {
	var names []string
	for _, e := range b.built().Extensions.All {
		names = append(names, e.Name)
	}
	return names
}

// ServersStarted waits for the MCP servers to start (each within its
// timeout): false when there are none, or ctx ended first.
func (b *Build) ServersStarted(ctx context.Context) bool {
	set := b.built().Tools
	return len(set.MCPServers()) > 0 && set.WaitForServers(ctx) == nil
}

// MCPOrigin is the MCP server a tool of the agent comes from and the
// tool's name there; ok is false for a tool of no MCP server.
func (b *Build) MCPOrigin(tool string) (server, name string, ok bool) {
	set := b.built().Tools
	if set == nil {
		return "", "", false
	}
	t, found := set.Registry.Get(tool)
	if !found {
		return "", "", false
	}
	m, ok := t.(toolset.MCPTool)
	if !ok {
		return "", "", false
	}
	server, name = m.MCPOrigin()
	return server, name, true
}

// Reload reads the settings again with change over them and applies
// what can change while sessions run (setup.Built.Reload); an agent made
// anew later keeps the change. A change that cannot be used wraps
// ErrOverlay.
func (b *Build) Reload(change map[string]any) (applied, restart []string, err error) {
	b.rebuilding.Lock()
	defer b.rebuilding.Unlock()
	return b.built().Reload(change)
}

// SavedSessions are the saved sessions of the project in dir, as the
// agent's environment finds them (SavedSessions).
func (b *Build) SavedSessions(ctx context.Context, dir string) ([]Saved, error) {
	return SavedSessions(ctx, b.built().Getenv, dir)
}

// ErrOverlay wraps a front end's settings that cannot be used.
var ErrOverlay = setup.ErrOverlay

// UnreadSettings is what Place.Warn is called with for the settings keys
// nothing reads (setup.UnreadSettings).
const UnreadSettings = setup.UnreadSettings

// ProjectHooksAnnounced is what Place.Warn is called with for a trusted
// workspace's hooks new to the user (setup.ProjectHooksAnnounced).
const ProjectHooksAnnounced = setup.ProjectHooksAnnounced

// Told is what the user has been told of once: a front end that builds
// more than once shares one through Config.Told.
type Told = setup.Told

// Rebuild makes b's agent anew, as it was made and with the settings
// changed since (Build.Reload), reading the settings, the environment's
// files, the credentials and the folders' trust anew: after a sign-in,
// or once the folders' trust changed. b's sessions continue in the new
// agent from their next turn (Claim.Move moves a claimed one now); the
// agent replaced is closed once no turn runs in it. ctx's values are
// kept, not its end (see setup.Build).
func (h *Host[S]) Rebuild(ctx context.Context, b *Build) error {
	b.rebuilding.Lock()
	defer b.rebuilding.Unlock()
	fresh, err := b.built().Rebuild(ctx)
	if err != nil {
		return err
	}
	b.replace(fresh)
	return nil
}
