package ellipsis

import (
	"runtime"
	"strings"
	"testing"
)

// A cut counts runes, not bytes, and ends in "…" within the length.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"one too long", 11, "one too lo…"},
		{"héllo wörld", 6, "héllo…"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// An invalid byte kept in the cut is U+FFFD, as it was.
func TestCutInvalidUTF8(t *testing.T) {
	if got, want := Cut("a\xffbcdef", 4), "a\uFFFDb…"; got != want {
		t.Errorf("Cut = %q, want %q", got, want)
	}
}

// Cutting a huge text (a prompt of tens of MiB) reads it only as far as
// the cut: it allocates the cut's bytes, not the text's.
func TestCutAllocatesOnlyTheCut(t *testing.T) {
	huge := strings.Repeat("é", 8<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := Cut(huge, 80)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64<<10 {
		t.Errorf("cutting a %d MiB text allocated %d bytes", len(huge)>>20, allocated)
	}
	if got != strings.Repeat("é", 79)+"…" {
		t.Errorf("Cut = %q", got)
	}
}
