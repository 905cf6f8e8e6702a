package memory

import (
	"context"
	"path/filepath"
	"strings"
)

// Discover returns the context files newly found around path (absolute,
// resolved, inside a root), a file or directory a tool touched: those in
// its directory and each parent below its innermost root, top down, that
// this session has not been given yet, wrapped as SystemMemory wraps
// them and joined by a blank line; "" when there are none. Files in the
// root and above are SystemMemory's and never returned here. The tool
// appends the text to its result for the model (Gemini CLI's "Newly
// Discovered Project Context"). Unreadable files are logged and skipped,
// and not tried again in the session.
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
	for d := dir; d != root && within(root, d); d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	var found []string
	for i := len(dirs) - 1; i >= 0; i-- {
		for _, name := range l.names {
			if p := filepath.Join(dirs[i], name); present(l.ws.Documents(), p) && l.claim(sessionID, p) {
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
		text, ok := l.load(ctx, file{path: p, scope: sc})
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
		if within(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// within reports whether path is dir or below it; both absolute, cleaned.
func within(dir, path string) bool {
	if path == dir {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
