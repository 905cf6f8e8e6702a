package memory

import (
	"context"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Discover returns the context files newly found around path (absolute,
// resolved, inside a root), a file or directory a tool touched: those in
// its directory and each parent below its innermost root, top down, that
// this session has not been given yet, wrapped as SystemMemory wraps
// them and joined by a blank line; "" when there are none. Files in the
// root and above are SystemMemory's and never returned here. The tool
// appends the text to its result for the model (Gemini CLI's "Newly
// Discovered Project Context"). A file the agent may not read (ignored,
// in .git) is skipped, as are unreadable files (logged, and not tried
// again in the session); imports are held to the workspace's rules
// (bounds.go).
func (l *Loader) Discover(ctx context.Context, sessionID, path string) string {
	path = filepath.Clean(path)
	root := innermostRoot(l.ws.Roots(), path)
	if root == "" || (l.trusted != nil && !l.trusted(root)) {
		return ""
	}
	dir := path
	if isDir, err := l.ws.Stat(path); err != nil || !isDir {
		dir = filepath.Dir(path) // a file, or one not written yet
	}
	var dirs []string
	// Up to the root, not into it: a path may name the root in another
	// case than the root does on Windows (c:\repo for C:\Repo), which
	// Within compares as Windows does.
	for d := dir; workspace.Within(root, d) && !workspace.Within(d, root); d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	var found []string
	for i := len(dirs) - 1; i >= 0; i-- {
		for _, name := range l.names {
			if p := filepath.Join(dirs[i], name); present(l.ws.Documents(), p) && !l.hidden(ctx, root, p) && l.claim(sessionID, p) {
				found = append(found, p)
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	sc := l.projectScope(root)
	if sc == nil {
		return ""
	}
	var blocks []string
	for i, p := range found {
		text, ok := l.load(ctx, file{path: p, scope: sc, tier: tierProject})
		if ctx.Err() != nil {
			l.unclaim(sessionID, found[i:]) // not given: a later call may
			break
		}
		if ok {
			blocks = appendBlock(blocks, p, text)
		}
	}
	return strings.Join(blocks, "\n\n")
}

// hidden reports whether the context file at path, below root, is one
// the agent may not read (ignored, in .git), as read_file decides: the
// tool that touched its directory (a listing of an ignored one) is no way
// to it. Logged, as a file skipped.
func (l *Loader) hidden(ctx context.Context, root, path string) bool {
	ignored, err := l.ws.Ignored(ctx, path)
	if inGitDir(root, path) || err != nil || ignored {
		l.log.Info("skipping a context file the agent may not read", zap.String("path", path), zap.Bool("ignored", ignored), zap.Error(err))
		return true
	}
	return false
}

// claim records that session has been given path, and reports whether
// it had not been before; concurrent calls claim each file once.
func (l *Loader) claim(sessionID, path string) bool {
	key := identity(path)
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := l.seen[sessionID]
	if seen == nil {
		seen = make(map[string]bool)
		l.seen[sessionID] = seen
	}
	if seen[key] {
		return false
	}
	seen[key] = true
	return true
}

// unclaim undoes claim for paths.
func (l *Loader) unclaim(sessionID string, paths []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range paths {
		delete(l.seen[sessionID], identity(p))
	}
}

// EndSession forgets what Discover gave the session.
func (l *Loader) EndSession(sessionID string) {
	l.mu.Lock()
	delete(l.seen, sessionID)
	l.mu.Unlock()
}

// innermostRoot is the deepest root holding path, or "".
func innermostRoot(roots []string, path string) string {
	best := ""
	for _, r := range roots {
		if workspace.Within(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
}
