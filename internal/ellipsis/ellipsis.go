// Package ellipsis cuts text shown to the user (a session's title, a
// progress line, a code action's title) to a length, marking the cut.
package ellipsis

// Cut cuts s to at most n runes, its last "…" where it was cut. It reads
// s only as far as the cut: s may be a prompt of tens of MiB, which a
// []rune of it would make four times as large.
func Cut(s string, n int) string {
	cut, runes := 0, 0
	for i := range s {
		if runes == n-1 {
			cut = i
		}
		if runes == n {
			// Through []rune as before, so an invalid byte kept is U+FFFD.
			return string([]rune(s[:cut])) + "…"
		}
		runes++
	}
	return s
}
