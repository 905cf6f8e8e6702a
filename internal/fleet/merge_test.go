package fleet

import (
	"testing"
)

func TestMergeTakesTheAgentsHunksTheUserLeftAlone(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	theirs := "a\nB\nc\nd\ne\nf\nG\n" // the agent changed b and g
	yours := "a\nb\nc\nD\ne\nf\ng\n"  // the user changed d
	merged, conflicts := Merge(base, theirs, yours)
	if want := "a\nB\nc\nD\ne\nf\nG\n"; merged != want {
		t.Errorf("merged = %q, want %q", merged, want)
	}
	if len(conflicts) != 0 {
		t.Errorf("conflicts = %+v, want none", conflicts)
	}
}

func TestMergeLeavesAConflictWithBothSides(t *testing.T) {
	base := "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	theirs := "one\ntwo\nthree\nFOUR by agent\nfive\nsix\nSEVEN\n"
	yours := "zero\none\ntwo\nthree\nfour by user\nfive\nsix\nseven\n"
	merged, conflicts := Merge(base, theirs, yours)
	// The user's line stands; the agent's other hunk lands.
	if want := "zero\none\ntwo\nthree\nfour by user\nfive\nsix\nSEVEN\n"; merged != want {
		t.Errorf("merged = %q, want %q", merged, want)
	}
	if len(conflicts) != 1 {
		t.Fatalf("conflicts = %+v, want one", conflicts)
	}
	c := conflicts[0]
	if c.Yours != "four by user\n" || c.Theirs != "FOUR by agent\n" || c.Base != "four\n" {
		t.Errorf("conflict sides = %+v", c)
	}
	if c.Line != 5 { // after the user's inserted "zero"
		t.Errorf("conflict line = %d, want 5", c.Line)
	}
}

func TestMergeCountsTouchingHunksAsConflicts(t *testing.T) {
	base := "a\nb\nc\n"
	theirs := "a\nb\nX\nc\n" // inserted after b
	yours := "a\nB\nc\n"     // changed b: the agent's line meets it
	merged, conflicts := Merge(base, theirs, yours)
	if merged != yours || len(conflicts) != 1 {
		t.Errorf("merged = %q, conflicts = %+v; want the user's text and one conflict", merged, conflicts)
	}
}

func TestMergeTakesAHunkBothMadeOnce(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	theirs := "a\nB\nc\nd\nE\n"
	yours := "a\nB\nc\nd\ne\n"
	merged, conflicts := Merge(base, theirs, yours)
	if want := "a\nB\nc\nd\nE\n"; merged != want || len(conflicts) != 0 {
		t.Errorf("merged = %q, conflicts = %+v; want %q and none", merged, conflicts, want)
	}
}

func TestMergeShortcuts(t *testing.T) {
	if m, c := Merge("a\n", "b\n", "a\n"); m != "b\n" || c != nil {
		t.Errorf("user unchanged: %q %v", m, c)
	}
	if m, c := Merge("a\n", "a\n", "c\n"); m != "c\n" || c != nil {
		t.Errorf("agent unchanged: %q %v", m, c)
	}
	if m, c := Merge("a\n", "b\n", "b\n"); m != "b\n" || c != nil {
		t.Errorf("both the same: %q %v", m, c)
	}
}

// FuzzMerge checks what Merge promises on any three texts: the user's
// lines never disappear under the agent's (every conflict's Yours is in
// the merged text at its line), and with no conflict and no hunk of the
// user's, the merge is the agent's text.
func FuzzMerge(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("x", "y", "z")
	f.Add("", "new\n", "mine\n")
	f.Fuzz(func(t *testing.T, base, theirs, yours string) {
		merged, conflicts := Merge(base, theirs, yours)
		for _, c := range conflicts {
			if c.Line < 1 {
				t.Fatalf("conflict line %d", c.Line)
			}
			if !containsAtLine(merged, c.Line, c.Yours) {
				t.Fatalf("merge(%q, %q, %q) = %q: the user's %q is not at line %d", base, theirs, yours, merged, c.Yours, c.Line)
			}
		}
		if yours == base && merged != theirs {
			t.Fatalf("user unchanged, merged %q != theirs %q", merged, theirs)
		}
	})
}

// containsAtLine reports whether text holds want from the start of line.
func containsAtLine(text string, line int, want string) bool {
	at := 0
	for l := 1; l < line; l++ {
		i := indexByte(text[at:], '\n')
		if i < 0 {
			return want == "" && l == line-1
		}
		at += i + 1
	}
	return len(text)-at >= len(want) && text[at:at+len(want)] == want
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}
