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
	return udiff.Unified("a/"+name, "b/"+name, before, after)
}

// DiffStat counts added and removed lines.
func DiffStat(before, after string) (added, removed int) {
	for _, e := range lineDiff(before, after) {
		removed += countLines(before[e.start:e.end])
		added += countLines(e.text)
	}
	return added, removed
}

// countLines counts lines, a final line without a newline included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
