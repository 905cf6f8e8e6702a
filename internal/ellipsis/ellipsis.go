// Package ellipsis cuts text shown to the user (a session's title, a
// progress line, a code action's title) to a length, marking the cut.
package ellipsis

import "unicode/utf8"

// Cut cuts s to at most n runes, its last "…" where it was cut.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
