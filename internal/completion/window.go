package completion

import (
	"strings"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The windows of a document a prompt shows around the cursor, in bytes;
// each is cut at a line boundary, and always holds the cursor's line.
const (
	prefixWindow = 4000
	suffixWindow = 2000
)

// window is the document around the cursor, as a request sees it: with a
// selected menu item, as if it were already inserted.
type window struct {
	prefix, suffix         string // cut at line boundaries
	linePrefix, lineSuffix string // the cursor's line, split at the cursor
	line                   int    // the cursor's line
	cursor                 workspace.Position
	size                   int // the document's length, the selected item in
	selected               *Selected
}

// cut takes the windows of text around p.
func cut(text string, p workspace.Position, enc workspace.Encoding, sel *Selected) window {
	at := workspace.OffsetAt(text, p, enc)
	before, after := text[:at], text[at:]
	w := window{line: p.Line, cursor: p, selected: sel, size: len(text)}
	if sel != nil && sel.Range.Start.Line == p.Line && sel.Range.End.Line == p.Line {
		start := min(workspace.OffsetAt(text, sel.Range.Start, enc), at)
		end := max(workspace.OffsetAt(text, sel.Range.End, enc), at)
		before, after = text[:start]+sel.Text, text[end:]
		w.size = len(before) + len(after)
	} else {
		w.selected = nil
	}
	lineStart := strings.LastIndexByte(before, '\n') + 1
	w.linePrefix = before[lineStart:]
	lineEnd := strings.IndexByte(after, '\n')
	if lineEnd < 0 {
		lineEnd = len(after)
	}
	w.lineSuffix = strings.TrimSuffix(after[:lineEnd], "\r")

	start := 0
	if from := len(before) - prefixWindow; from > 0 {
		if from >= lineStart {
			start = runeStart(before, from) // a line longer than the window
		} else {
			start = from + strings.IndexByte(before[from:], '\n') + 1
		}
	}
	w.prefix = before[start:]
	end := len(after)
	if len(after) > suffixWindow {
		if lineEnd >= suffixWindow {
			end = runeStart(after, suffixWindow)
		} else {
			end = lineEnd + strings.LastIndexByte(after[lineEnd:suffixWindow], '\n')
		}
	}
	w.suffix = after[:end]
	return w
}

// runeStart is i, moved on to the start of a character.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// midLine reports whether the cursor has text after it on its line: the
// suggestion then completes the line only.
func (w window) midLine() bool { return strings.TrimSpace(w.lineSuffix) != "" }

// key says what a request asked, for the cache of answers: the nearest
// parts of the windows.
func (w window) key(path string) string {
	p, s := w.prefix, w.suffix
	if len(p) > 1500 {
		p = p[len(p)-1500:]
	}
	if len(s) > 500 {
		s = s[:500]
	}
	return path + "\x00" + p + "\x00" + s
}
