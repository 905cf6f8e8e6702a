package setup

import (
	"context"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A build's trust (Built.Trust) is decided once, before anything of the
// workspace is read. What decides it can change while the build serves:
// the user answers the trust question or runs /permissions trust, or
// trusts the folder in Gemini CLI. The front end asks Stale before
// each prompt and builds anew (Rebuild) when it did, so that what the
// workspace brings (its settings, .env, MCP servers, commands, agents,
// GEMINI.md) counts from that prompt on, without a restart.

// TrustNow is the roots' trust decided again, from what decides it now.
// A trustedFolders.json that cannot be read trusts nothing, as at build.
func (b *Built) TrustNow() settings.Trust {
	trust, _ := settings.DecideTrust(b.opts.Getenv, b.projectRoots)
	return trust
}

// ExtensionsChanged records that the installed extensions changed since
// b was built (a chat's /extensions install, uninstall, link, update or
// reload), for Stale to report: Gemini CLI loads the extensions it
// changes in its running session.
func (b *Built) ExtensionsChanged() { b.extensionsChanged.Store(true) }

// Stale reports whether b must be built anew (Rebuild) for what changed
// since it was built to count: the roots' trust, the installed
// extensions, or the workspace's roots. The front end asks it before
// each prompt.
func (b *Built) Stale() bool {
	return b.extensionsChanged.Load() || b.TrustChanged() || b.RootsChanged()
}

// RootsChanged reports whether the workspace's roots are not those b was
// built with (the editor's workspace folders changed): built anew, the
// roots' trust, settings, GEMINI.md files and ignore rules are read again.
// A root /directory add made (AddDirectory) is b's own, not a change.
func (b *Built) RootsChanged() bool {
	return !slices.Equal(b.opts.Workspace.Roots(), b.builtRoots())
}

// builtRoots are the roots b was built with, and those it added since.
func (b *Built) builtRoots() []string {
	b.includes.mu.Lock()
	defer b.includes.mu.Unlock()
	return slices.Concat(b.projectRoots, b.includes.dirs)
}

// TrustChanged reports whether the roots trusted now are not those b was
// built with: b must be built anew for the change to count.
func (b *Built) TrustChanged() bool { return !b.TrustNow().SameTrusted(b.Trust) }

// SetTrust records level for folder in the user's trustedFolders.json
// (settings.RecordTrust), where the process environment, never a
// workspace's .env, says it is.
func (b *Built) SetTrust(ctx context.Context, folder, level string) error {
	return settings.RecordTrust(ctx, b.opts.Getenv, folder, level)
}

// Trusts reports whether dir, as it resolves, is a trusted folder now,
// decided from the process environment as the workspace's trust is.
func (b *Built) Trusts(dir string) bool { return b.trusts(dir) == nil }
