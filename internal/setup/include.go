package setup

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// includes are the roots added to the project's: Gemini CLI's include
// directories. They are searched, read and written like the project's
// roots, but they are not projects: their settings, .env and trust are
// not read, and their GEMINI.md files count only when
// context.loadMemoryFromIncludeDirectories says so.
type includes struct {
	// memory is context.loadMemoryFromIncludeDirectories, fixed at Build.
	memory bool

	mu   sync.Mutex
	dirs []string
}

func (in *includes) add(dir string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !slices.Contains(in.dirs, dir) {
		in.dirs = append(in.dirs, dir)
	}
}

func (in *includes) has(dir string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Contains(in.dirs, dir)
}

// includeDirectories adds settings' context.includeDirectories, then the
// front end's, to the workspace, as Gemini CLI does; one that cannot be
// added is reported and left out. (A folder that is not trusted cannot
// add any: its settings are not read.)
func (b *Built) includeDirectories(set settings.Settings) {
	b.includes.memory = set.Context.LoadMemoryFromIncludeDirectories
	for _, dir := range slices.Concat(set.Context.IncludeDirectories, b.opts.IncludeDirectories) {
		if _, _, err := b.AddDirectory(dir); err != nil {
			b.opts.Warn("a directory was not added to the workspace", err)
		}
	}
}

// AddDirectory makes dir a root of the workspace from now on, as Gemini
// CLI's --include-directories does: ~ is the home directory, and a
// relative path is the first root's. It returns dir resolved, and
// whether it was not a root already.
func (b *Built) AddDirectory(dir string) (string, bool, error) {
	return b.addDirectory(dir, false)
}

// ErrNotTrusted is a directory /directory add refuses: as in Gemini CLI,
// the user adds only a folder they trust (Gemini CLI asks; gemini-ls
// says how to trust it: /permissions trust).
var ErrNotTrusted = errors.New("not a trusted folder")

// AddTrustedDirectory is AddDirectory for /directory add, which, as in
// Gemini CLI, adds only a trusted folder (wrapping ErrNotTrusted
// otherwise): trust is decided for dir as for a workspace root.
func (b *Built) AddTrustedDirectory(dir string) (string, bool, error) {
	return b.addDirectory(dir, true)
}

func (b *Built) addDirectory(dir string, mustTrust bool) (string, bool, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", false, fmt.Errorf("an empty directory name")
	}
	dir = b.UserPath(dir)
	if mustTrust {
		if err := b.trusts(dir); err != nil {
			return "", false, err
		}
	}
	real, added, err := b.opts.Workspace.AddRoot(dir)
	if err != nil {
		return "", false, fmt.Errorf("adding %s to the workspace: %w", dir, err)
	}
	if added {
		b.includes.add(real)
	}
	return real, added, nil
}

// trusts is nil when dir, as it resolves, is a trusted folder, else why
// not, wrapping ErrNotTrusted; decided from the process environment as
// the workspace's trust was.
func (b *Built) trusts(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("adding %s to the workspace: %w", dir, err)
	}
	trust, err := settings.DecideTrust(b.opts.Getenv, []string{real})
	if err != nil {
		return fmt.Errorf("%w: %s: the trusted folders were not read: %w", ErrNotTrusted, dir, err)
	}
	if why := trust.Why(real); why != nil {
		return fmt.Errorf("%w: %w", ErrNotTrusted, why)
	}
	return nil
}

// UserPath is a path the user wrote (a setting, a command's argument):
// one starting at the home (settings.ExpandHome) is in it, and a
// relative one in the first root's (an editor's server has no meaningful
// working directory).
func (b *Built) UserPath(p string) string {
	p, _ = settings.ExpandHome(b.Getenv, p)
	if !filepath.IsAbs(p) && len(b.projectRoots) > 0 {
		p = filepath.Join(b.projectRoots[0], p)
	}
	return filepath.Clean(p)
}

// readsMemory says whether the GEMINI.md files of root count: a project
// root's when it is a trusted folder; an included one's when
// context.loadMemoryFromIncludeDirectories is set and the workspace is
// trusted.
func (b *Built) readsMemory(root string) bool {
	if b.Trust.Trusted(root) {
		return true
	}
	return b.includes.memory && b.NotTrusted() == nil && b.includes.has(root)
}
