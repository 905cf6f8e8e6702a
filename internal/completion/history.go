package completion

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The recent edits kept: how many, and how much of each one's old and
// new text.
const (
	keptEdits    = 12
	keptEditText = 2000
)

// edit is one of the user's recent edits: at byte offset Offset of the
// document, Old became New. Keystrokes that continue one another are one
// edit.
type edit struct {
	Path     string
	Offset   int
	Line     int // the line the edit starts on
	Old, New string
	At       time.Time
}

// history is the user's recent edits, oldest first, across documents.
type history struct {
	mu    sync.Mutex
	edits []edit
}

// record notes the change of path's text from before to after.
func (h *history) record(path, before, after string, at time.Time) {
	if before == after {
		return
	}
	p := commonPrefix(before, after)
	for p > 0 && (p < len(before) && !utf8.RuneStart(before[p]) || p < len(after) && !utf8.RuneStart(after[p])) {
		p-- // never split a character
	}
	s := commonSuffix(before[p:], after[p:])
	for s > 0 && (!utf8.RuneStart(before[len(before)-s]) || !utf8.RuneStart(after[len(after)-s])) {
		s--
	}
	// Cloned: a slice of a version of the document would keep it all.
	old, new := strings.Clone(clip(before[p:len(before)-s])), strings.Clone(clip(after[p:len(after)-s]))
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.edits); n > 0 {
		last := &h.edits[n-1]
		if last.Path == path && continues(last, p, old, new) {
			last.At = at
			return
		}
	}
	h.edits = append(h.edits, edit{Path: path, Offset: p, Line: strings.Count(before[:p], "\n"), Old: old, New: new, At: at})
	if len(h.edits) > keptEdits {
		h.edits = append(h.edits[:0], h.edits[len(h.edits)-keptEdits:]...)
	}
}

// continues folds the change at offset (old → new) into last when it
// carries on from where last ended: typing on, or deleting back into
// what last typed. It reports whether it did.
func continues(last *edit, offset int, old, new string) bool {
	end := last.Offset + len(last.New)
	switch {
	case old == "" && offset == end && len(last.New)+len(new) <= keptEditText:
		last.New += new
		return true
	case new == "" && offset+len(old) == end && len(old) <= len(last.New) && strings.HasSuffix(last.New, old):
		last.New = last.New[:len(last.New)-len(old)]
		return true
	}
	return false
}

// recent returns the edits, oldest first.
func (h *history) recent() []edit {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]edit, 0, len(h.edits))
	for _, e := range h.edits {
		if e.Old != e.New {
			out = append(out, e)
		}
	}
	return out
}

// lastIn is the latest edit of path, if there is one.
func (h *history) lastIn(path string) (edit, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.edits) - 1; i >= 0; i-- {
		if h.edits[i].Path == path {
			return h.edits[i], true
		}
	}
	return edit{}, false
}

// clip shortens s to keptEditText bytes, saying so: a paste or a reload
// is too big to show, and where it was still says where the user works.
func clip(s string) string {
	if len(s) <= keptEditText {
		return s
	}
	return runeCut(s, keptEditText) + "…"
}

// runeCut is s's first n bytes, not splitting a character.
func runeCut(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// commonPrefix is the length of a's and b's common prefix, compared a
// block at a time: a keystroke in a long file compares it whole.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	const block = 64
	for i+block <= n && a[i:i+block] == b[i:i+block] {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of a's and b's common suffix.
func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	const block = 64
	for i+block <= n && a[len(a)-i-block:len(a)-i] == b[len(b)-i-block:len(b)-i] {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
