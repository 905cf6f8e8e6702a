package workspace

import (
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// UnifiedDiff renders a unified diff of a change, with a/ and b/ names
// (name is taken as slash-separated and relative; a leading / is dropped).
// It is empty when before and after are equal.
func UnifiedDiff(name, before, after string) string {
	name = strings.TrimLeft(filepath.ToSlash(name), "/")
	// Our line diff, not udiff.Unified's own: the same hunks, without its
	// per-rune line splitting, which dominates on large files.
	line := lineDiff(before, after)
	edits := make([]udiff.Edit, len(line))
	for i, e := range line {
		edits[i] = udiff.Edit{Start: e.start, End: e.end, New: e.text}
	}
	diff, err := udiff.ToUnified("a/"+name, "b/"+name, before, edits, udiff.DefaultContextLines)
	if err != nil {
		// Line edits of before are consistent by construction.
		panic("workspace: unified diff of line edits: " + err.Error())
	}
	return diff
}

// countLines counts lines, a final line without a newline included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// DiffStat counts the lines a change from before to after adds and
// removes, as a unified diff of it shows them.
func DiffStat(before, after string) (added, removed int) {
	for _, e := range lineDiff(before, after) {
		removed += countLines(before[e.start:e.end])
		added += countLines(e.text)
	}
	return added, removed
}
