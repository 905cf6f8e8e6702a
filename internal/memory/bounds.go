package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// What a project's context file imports, the model is shown, so the
// rules of what the agent may read hold of it (besides the scope and the
// guard, which hold of every import): a context file inside the
// workspace roots imports only files inside them (the model may have
// written it, or a cloned repository may name its parent's files), and
// no project import brings a file the ignore rules ignore or one in
// .git. A context file between the git root and the roots (loaded at
// start-up as 0.61 loads it; the agent cannot write there) keeps the
// git root as its scope, ignore rules holding there too.

// Why an import is refused, as its comment says it.
const (
	outsideRootsWhy = "it lies outside the workspace roots, which a context file inside the workspace may not import from"
	ignoredWhy      = "it is ignored by .gitignore or .geminiignore, and what the agent may not read is never imported"
	gitDirWhy       = "it is in .git, which the agent may not read"
)

// bounds holds a project's imports to the agent's rules: the
// workspace's roots and ignore rules.
type bounds struct {
	ws    *workspace.Workspace // the agent's: its roots and ignore rules
	scope *scope               // the project's git root, whose rules hold above the roots
}

// verdict is one import bounds judged: of path by the file from, and why
// it was refused ("": allowed). A cached expansion holds only while its
// verdicts do: the roots grow, ignore files change.
type verdict struct {
	from, path, why string
}

// kept says why path (absolute, cleaned, inside the scope), imported by
// the context file from, may not be imported; "" when it may.
func (b *bounds) kept(ctx context.Context, from, path string) string {
	real := identity(path)
	inRoots := b.ws.RootOf(real) != ""
	if !inRoots && b.inRoots(from) {
		return outsideRootsWhy
	}
	rules, top := b.scope.ws, b.scope.root
	if inRoots {
		rules, top = b.ws, b.ws.RootOf(real) // as read_file decides
	}
	if inGitDir(top, real) {
		return gitDirWhy
	}
	ignored, err := rules.Ignored(ctx, real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "" // the read says it is missing
	case err != nil:
		return fmt.Sprintf("whether the ignore rules keep it from the agent could not be told: %v", err)
	case ignored:
		return ignoredWhy
	}
	return ""
}

// inRoots reports whether the file at path lies inside the workspace
// roots, as named or where its links lead.
func (b *bounds) inRoots(path string) bool {
	return b.ws.RootOf(filepath.Clean(path)) != "" || b.ws.RootOf(identity(path)) != ""
}

// inGitDir reports whether path lies in a .git directory below top.
func inGitDir(top, path string) bool {
	rel, err := filepath.Rel(top, path)
	return err == nil && slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), ".git")
}

// hold reports whether each of verdicts is still what bounds would say.
func (b *bounds) hold(ctx context.Context, verdicts []verdict) bool {
	for _, v := range verdicts {
		if b.kept(ctx, v.from, v.path) != v.why {
			return false
		}
	}
	return true
}
