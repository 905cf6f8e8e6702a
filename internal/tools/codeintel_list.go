package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// uriOf is path's file: URI.
func uriOf(path string) string { return codeintel.URIOf(path) }

// lister collects the places a language server named and lists them as
// the model reads them: under each file (relative to the workspace, in
// path order), one `<line>: <text>` per line, several places on a line
// once. Places the model may not read (outside the roots, ignored, in
// .git, no file at all) are left out and counted; past maxCodeLines
// lines the rest are counted.
type lister struct {
	ctx   context.Context
	ws    *workspace.Workspace
	found int // places added
	left  int // of them, left out
	files map[string]map[int]string
	lines map[string][]string // each file's lines, read once
	// seen is whether each path a server named may be read, resolved:
	// asked once per file, not once per place (the ignore rules are
	// read from disk each time).
	seen map[string]readablePath
}

type readablePath struct {
	path string
	ok   bool
}

func newLister(ctx context.Context, ws *workspace.Workspace) *lister {
	return &lister{ctx: ctx, ws: ws, files: map[string]map[int]string{}, lines: map[string][]string{}, seen: map[string]readablePath{}}
}

// know takes text as path's, already read (the file asked about), so
// that its lines are not read again.
func (l *lister) know(path, text string) {
	l.lines[path] = strings.Split(toLF(text), "\n")
}

// add adds loc, with note said of it ("" for none).
func (l *lister) add(loc codeintel.Location, note string) {
	l.found++
	path, ok := l.readable(loc.Path)
	if !ok {
		l.left++
		return
	}
	if l.files[path] == nil {
		l.files[path] = map[int]string{}
	}
	line := loc.Range.Start.Line
	if prev, seen := l.files[path][line]; seen && prev != "" && note != "" && !strings.Contains(prev, note) {
		note = prev + "; " + note
	} else if seen && note == "" {
		note = prev
	}
	l.files[path][line] = note
}

// readable is path resolved, when the model may read it, as read_file
// decides.
func (l *lister) readable(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	if r, ok := l.seen[path]; ok {
		return r.path, r.ok
	}
	resolved, err := l.ws.Resolve(path)
	r := readablePath{path: resolved, ok: err == nil && !hidden(l.ctx, l.ws, resolved, false)}
	l.seen[path] = r
	return r.path, r.ok
}

// lineText is line (0-based) of path, trimmed and clipped; "" when it
// cannot be read.
func (l *lister) lineText(path string, line int) string {
	lines, ok := l.lines[path]
	if !ok {
		if f, err := l.ws.ReadFile(l.ctx, path, maxReadSize); err == nil && !readHidden(l.ctx, l.ws, path, f, false) && !isBinary(f.Content) {
			lines = strings.Split(toLF(string(f.Content)), "\n")
		}
		l.lines[path] = lines
	}
	if line < 0 || line >= len(lines) {
		return ""
	}
	return clip(strings.TrimRightFunc(lines[line], func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' }), maxLineText)
}

// text is the list under head, or none when nothing was found.
func (l *lister) text(head, none string) string {
	if l.found == 0 {
		return none
	}
	var b strings.Builder
	b.WriteString(head + ":")
	paths := slices.SortedFunc(maps.Keys(l.files), workspace.ComparePaths)
	shown, cutLines, cutFiles := 0, 0, 0
	for _, path := range paths {
		lines := slices.Sorted(maps.Keys(l.files[path]))
		if shown >= maxCodeLines {
			cutLines += len(lines)
			cutFiles++
			continue
		}
		b.WriteString("\n" + l.ws.Display(path))
		for i, line := range lines {
			if shown == maxCodeLines {
				cutLines += len(lines) - i
				break
			}
			shown++
			fmt.Fprintf(&b, "\n  %d: %s", line+1, l.lineText(path, line))
			if note := l.files[path][line]; note != "" {
				b.WriteString("   (" + note + ")")
			}
		}
	}
	if cutLines > 0 {
		fmt.Fprintf(&b, "\n(%d more %s", cutLines, plural(cutLines, "line", "lines"))
		if cutFiles > 0 {
			fmt.Fprintf(&b, ", %d more %s,", cutFiles, plural(cutFiles, "file", "files"))
		}
		b.WriteString(" not shown: narrow the question to see them.)")
	}
	if l.left > 0 {
		fmt.Fprintf(&b, "\n(%d %s outside the workspace or in ignored files %s left out.)", l.left, plural(l.left, "place", "places"), plural(l.left, "was", "were"))
	}
	return b.String()
}
