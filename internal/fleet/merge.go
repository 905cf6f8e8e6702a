package fleet

import (
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Conflict is a hunk of the agent's left out of a merge because the
// user changed the same base lines (or lines touching them): both
// sides, and where the user's side begins in the merged text.
type Conflict struct {
	// Line is the 1-based line of the merged text (the user's file)
	// where Yours begins.
	Line int
	// Yours is the user's text of the lines in conflict, Theirs the
	// agent's; Base what both began from.
	Yours, Theirs, Base string
}

// Merge is the user's text yours with the agent's changes of base
// (theirs) that do not meet the user's own: a three-way merge by hunk.
// A hunk of the agent's the user made too, identically, is taken as
// made. Every other hunk that overlaps or touches one of the user's is
// a Conflict, and left out.
func Merge(base, theirs, yours string) (merged string, conflicts []Conflict) {
	if theirs == base || theirs == yours {
		return yours, nil
	}
	if yours == base {
		return theirs, nil
	}
	their, your := udiff.Lines(base, theirs), udiff.Lines(base, yours)
	edits := slices.Clone(your)
	for _, t := range their {
		meets := slices.IndexFunc(your, func(y udiff.Edit) bool { return touches(t, y) })
		if meets < 0 {
			edits = append(edits, t)
			continue
		}
		if slices.Contains(your, t) {
			continue // the user made it too
		}
		conflicts = append(conflicts, conflictOf(base, t, your))
	}
	udiff.SortEdits(edits)
	merged, err := udiff.Apply(base, edits)
	if err != nil {
		// Edits that meet are conflicts above, so this is not expected;
		// the user's text stands, and every hunk of the agent's with it.
		return yours, conflictsOfAll(base, their, your)
	}
	// Lines are counted in the merged text: the agent's hunks applied
	// before a conflict move it as the user's do.
	for i := range conflicts {
		conflicts[i].Line = lineAt(merged, mergedOffset(conflicts[i].Line, edits))
	}
	return merged, conflicts
}

// touches reports whether two edits of one base overlap or meet.
func touches(a, b udiff.Edit) bool {
	return a.Start <= b.End && b.Start <= a.End
}

// conflictOf is t's conflict with the user's edits it meets: the base
// span they cover, as each side has it. Line holds the span's base
// offset until Merge maps it.
func conflictOf(base string, t udiff.Edit, your []udiff.Edit) Conflict {
	start, end := t.Start, t.End
	var mine []udiff.Edit
	for _, y := range your {
		if touches(t, y) {
			start, end = min(start, y.Start), max(end, y.End)
			mine = append(mine, y)
		}
	}
	span := func(edits []udiff.Edit) string {
		var b strings.Builder
		at := start
		for _, e := range edits {
			b.WriteString(base[at:e.Start])
			b.WriteString(e.New)
			at = e.End
		}
		b.WriteString(base[at:end])
		return b.String()
	}
	return Conflict{Line: start, Yours: span(mine), Theirs: span([]udiff.Edit{t}), Base: base[start:end]}
}

// conflictsOfAll makes every hunk of the agent's that differs from the
// user's a conflict.
func conflictsOfAll(base string, their, your []udiff.Edit) []Conflict {
	var out []Conflict
	for _, t := range their {
		if !slices.Contains(your, t) {
			c := conflictOf(base, t, your)
			c.Line = lineAt(base, c.Line)
			out = append(out, c)
		}
	}
	return out
}

// mergedOffset maps a base offset into the text edits make of the base:
// moved by every edit that ends at or before it.
func mergedOffset(offset int, edits []udiff.Edit) int {
	at := offset
	for _, e := range edits {
		if e.Start < offset && e.End <= offset {
			at += len(e.New) - (e.End - e.Start)
		}
	}
	return at
}

// lineAt is the 1-based line of text that offset is on.
func lineAt(text string, offset int) int {
	offset = min(max(offset, 0), len(text))
	return strings.Count(text[:offset], "\n") + 1
}
