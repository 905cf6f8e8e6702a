package workspace

import (
	"strings"
	"testing"
)

// A review that takes one change and drops another, however close they
// are, leaves a file Taken reads as a part of the proposal; a file the
// user wrote in is not.
func TestTakenCountsTheChangesAFileHolds(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	before := lines("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	// Two changes four lines apart (b and g).
	proposal := lines("a", "B", "c", "d", "e", "f", "G", "h", "i", "j", "k", "l")
	first := lines("a", "B", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	second := lines("a", "b", "c", "d", "e", "f", "G", "h", "i", "j", "k", "l")
	for _, c := range []struct {
		name         string
		final        string
		taken, total int
		part         bool
	}{
		{"the first change", first, 1, 2, true},
		{"the second change", second, 1, 2, true},
		{"both", proposal, 2, 2, true},
		{"neither", before, 0, 2, true},
		{"the first, and a line of the user's", strings.Replace(first, "k", "K", 1), 0, 2, false},
		{"the first changed further", strings.Replace(first, "B", "BB", 1), 0, 2, false},
	} {
		taken, total, part := Taken(before, proposal, c.final)
		if taken != c.taken || total != c.total || part != c.part {
			t.Errorf("%s: Taken = %d of %d, part %v; want %d of %d, part %v", c.name, taken, total, part, c.taken, c.total, c.part)
		}
	}
}

// Take makes the changes asked for and no other, each where the diff
// found it; Taken reads the result back as that part.
func TestTakeMakesTheChangesChosen(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\n"
	proposal := "A\nb\nc\nd\nE\nf\ng\nh\n"
	d := DiffLines(before, proposal)
	if d.Changes() != 3 {
		t.Fatalf("Changes = %d, want 3", d.Changes())
	}
	if lines := []int{d.ChangeLine(0), d.ChangeLine(1), d.ChangeLine(2)}; lines[0] != 1 || lines[1] != 5 || lines[2] != 8 {
		t.Errorf("ChangeLine = %v, want [1 5 8]", lines)
	}
	for _, c := range []struct {
		take []bool
		want string
	}{
		{[]bool{true, false, false}, "A\nb\nc\nd\ne\nf\ng\n"},
		{[]bool{false, true, true}, "a\nb\nc\nd\nE\nf\ng\nh\n"},
		{[]bool{true, true, true}, proposal},
		{[]bool{false, false, false}, before},
	} {
		got := d.Take(func(i int) bool { return c.take[i] })
		if got != c.want {
			t.Errorf("Take(%v) = %q, want %q", c.take, got, c.want)
		}
		n := 0
		for _, y := range c.take {
			if y {
				n++
			}
		}
		if taken, total, part := Taken(before, proposal, got); taken != n || total != 3 || !part {
			t.Errorf("Taken of Take(%v) = %d of %d, part %v", c.take, taken, total, part)
		}
	}
}
