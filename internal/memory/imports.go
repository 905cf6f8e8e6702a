package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// maxImportDepth is how deep imports nest, as in Gemini CLI: a file
	// imported at this depth is included with its own imports as written.
	maxImportDepth = 5
	// maxImports bounds the imports one context file tries in all, so a
	// file importing another many times, at every level, or a million
	// times a path it may not import, stays cheap.
	maxImports = 500
)

// expander expands one context file's imports (Gemini CLI's
// processImports, tree format) and records every file it looked at.
type expander struct {
	scope *scope
	guard guard
	// bounds holds a project's imports to the agent's rules (bounds.go);
	// nil for the user's own files (global, extensions', private).
	bounds *bounds
	log    *zap.Logger
	deps   []stamp   // the file and every import tried, for the cache
	judged []verdict // every import bounds judged, for the cache
	size   int       // bytes of text read so far
	count  int       // imports tried so far
}

// file reads the context file at path and expands its imports.
func (e *expander) file(ctx context.Context, path string) (string, error) {
	e.deps = append(e.deps, e.scope.stampOf(path))
	text, err := e.scope.read(ctx, path)
	if err != nil {
		return "", err
	}
	e.size = len(text)
	// The file itself is in its chain: importing it back does not expand
	// it a second time (Gemini CLI starts with an empty chain and does).
	chain := map[string]bool{identity(path): true}
	return e.expand(ctx, text, path, chain, 0), nil
}

// identity is the key a file has in an import chain: its resolved path.
func identity(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}

// expand replaces each import in content (the file from, depth imports
// deep, chain the files importing it) with the imported text between
// Gemini CLI's markers, or with a comment saying why it was not.
func (e *expander) expand(ctx context.Context, content, from string, chain map[string]bool, depth int) string {
	if depth >= maxImportDepth {
		return content
	}
	imports := findImports(content)
	if len(imports) == 0 {
		return content
	}
	code := codeRegions(content)
	var b strings.Builder
	last := 0
	for _, im := range imports {
		b.WriteString(content[last:im.start])
		last = im.end
		if inRegions(code, im.start) {
			b.WriteString("@" + im.path)
			continue
		}
		b.WriteString(e.importFile(ctx, im.path, from, chain, depth))
	}
	b.WriteString(content[last:])
	return b.String()
}

// importFile renders one import of path by the file from.
func (e *expander) importFile(ctx context.Context, path, from string, chain map[string]bool, depth int) string {
	failed := func(why string) string { return fmt.Sprintf("<!-- Import failed: %s - %s -->", path, why) }
	// Every import tried counts, refused or not, before any look at the
	// file system: past the bound an import costs nothing.
	if e.count >= maxImports || e.size >= MaxFileSize {
		return failed(fmt.Sprintf("this context file's imports reached the limit of %d files or %s", maxImports, workspace.FormatSize(MaxFileSize)))
	}
	e.count++
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(filepath.Dir(from), full)
	}
	full = filepath.Clean(full)
	if isURL(path) || !e.scope.inside(full) {
		e.log.Warn("context file import outside its scope refused", zap.String("import", path), zap.String("scope", e.scope.root))
		return failed("Path traversal attempt")
	}
	if e.guard.refuses(full) {
		e.log.Warn("context file import of credentials or settings refused", zap.String("import", path))
		return failed(refusedWhy)
	}
	if why := e.kept(ctx, from, full); why != "" {
		e.log.Warn("context file import the agent may not read refused", zap.String("import", path), zap.String("why", why))
		return failed(why)
	}
	key := identity(full)
	if chain[key] {
		return fmt.Sprintf("<!-- File already processed: %s -->", path)
	}
	e.deps = append(e.deps, e.scope.stampOf(full))
	text, err := e.scope.read(ctx, full)
	if err != nil {
		e.log.Warn("context file import failed", zap.String("import", path), zap.Error(err))
		return failed(err.Error())
	}
	e.size += len(text)
	inner := make(map[string]bool, len(chain)+1)
	for k := range chain {
		inner[k] = true
	}
	inner[key] = true
	text = e.expand(ctx, text, full, inner, depth+1)
	return fmt.Sprintf("<!-- Imported from: %s -->\n%s\n<!-- End of import from: %s -->", path, text, path)
}

// kept is why bounds refuse the import of full by from, recorded for the
// cache; "" when allowed, or when no bounds hold.
func (e *expander) kept(ctx context.Context, from, full string) string {
	if e.bounds == nil {
		return ""
	}
	why := e.bounds.kept(ctx, from, full)
	e.judged = append(e.judged, verdict{from: from, path: full, why: why})
	return why
}

// refusedWhy is what the memory says of a file the guard refuses, in
// place of its text.
const refusedWhy = "it may hold credentials or settings, which are never imported"

// isURL reports what Gemini CLI refuses as a URL import.
func isURL(path string) bool {
	for _, scheme := range []string{"file://", "http://", "https://"} {
		if strings.HasPrefix(path, scheme) {
			return true
		}
	}
	return false
}

// anImport is one "@path" in a context file; content[start:end] is it.
type anImport struct {
	start, end int
	path       string
}

// findImports finds "@path" as Gemini CLI does: an @ at the start or
// after whitespace, up to the next whitespace, the path starting with
// ".", "/" or an ASCII letter.
func findImports(content string) []anImport {
	var found []anImport
	for i := 0; i < len(content); {
		at := strings.IndexByte(content[i:], '@')
		if at < 0 {
			break
		}
		i += at
		if i > 0 && !isSpace(content[i-1]) {
			i++
			continue
		}
		j := i + 1
		for j < len(content) && !isSpace(content[j]) {
			j++
		}
		if p := content[i+1 : j]; p != "" && (p[0] == '.' || p[0] == '/' || isLetter(p[0])) {
			found = append(found, anImport{start: i, end: j, path: p})
		}
		i = j + 1
	}
	return found
}

func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// codeRegions finds code spans and blocks as Gemini CLI's /(`+)([\s\S]*?)\1/g
// does: a run of backticks up to the next run as long, a shorter opening
// tried when no closing run matches. It reads content once: the regular
// expression, tried literally, is quadratic in a long run of backticks.
func codeRegions(content string) [][2]int {
	type run struct{ start, end int } // a maximal run of backticks
	var runs []run
	for i := 0; i < len(content); {
		k := strings.IndexByte(content[i:], '`')
		if k < 0 {
			break
		}
		r := run{start: i + k, end: i + k}
		for r.end < len(content) && content[r.end] == '`' {
			r.end++
		}
		runs = append(runs, r)
		i = r.end
	}
	// longest[r] is the longest run from runs[r] on.
	longest := make([]int, len(runs)+1)
	for r := len(runs) - 1; r >= 0; r-- {
		longest[r] = max(runs[r].end-runs[r].start, longest[r+1])
	}
	var regions [][2]int
	at := 0 // where the search goes on, perhaps inside runs[r]
	for r := 0; r < len(runs); {
		open := max(at, runs[r].start)
		n := runs[r].end - open // the opening's backticks
		if n <= 0 {
			r++
			continue
		}
		// A fence of m backticks, tried from m = n down, closes on the
		// opening run's own rest when 2m <= n, else on the first later
		// run at least m long.
		if m := min(n, longest[r+1]); 2*m > n {
			c := r + 1
			for runs[c].end-runs[c].start < m {
				c++
			}
			at, r = runs[c].start+m, c
			regions = append(regions, [2]int{open, at})
			continue
		}
		if n >= 2 {
			at = open + n/2*2
			regions = append(regions, [2]int{open, at})
			continue
		}
		at = open + 1 // a lone backtick nothing closes
	}
	return regions
}

// inRegions reports whether at is in one of regions, which are in order
// and apart.
func inRegions(regions [][2]int, at int) bool {
	i := sort.Search(len(regions), func(i int) bool { return regions[i][1] > at })
	return i < len(regions) && regions[i][0] <= at
}
