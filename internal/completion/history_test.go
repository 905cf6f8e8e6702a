package completion

import (
	"strings"
	"testing"
	"time"
)

func TestHistoryFoldsKeystrokes(t *testing.T) {
	var h history
	text := "func f() {\n\t\n}\n"
	typeAt := func(offset int, s string) {
		next := text[:offset] + s + text[offset:]
		h.record("a.go", text, next, time.Now())
		text = next
	}
	at := strings.Index(text, "\t\n") + 1
	for i, c := range "return nil" {
		typeAt(at+i, string(c))
	}
	// Two backspaces, then "ok".
	end := at + len("return nil")
	for range 2 {
		next := text[:end-1] + text[end:]
		h.record("a.go", text, next, time.Now())
		text = next
		end--
	}
	typeAt(end, "ok")
	got := h.recent()
	if len(got) != 1 || got[0].Old != "" || got[0].New != "return nok" || got[0].Line != 1 {
		t.Fatalf("edits %+v, want one: +\"return nok\" on line 1", got)
	}
	// An edit elsewhere is a new one; a replacement keeps its old text.
	h.record("a.go", text, strings.Replace(text, "func f", "func g", 1), time.Now())
	got = h.recent()
	if len(got) != 2 || got[1].Old != "f" || got[1].New != "g" || got[1].Line != 0 {
		t.Errorf("edits %+v", got)
	}
}

func TestHistoryKeepsCharactersWhole(t *testing.T) {
	var h history
	h.record("a.go", "x := \"é\"", "x := \"è\"", time.Now())
	if got := h.recent(); len(got) != 1 || got[0].Old != "é" || got[0].New != "è" {
		t.Errorf("edits %+v, want é → è whole", got)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	var h history
	for i := range 3 * keptEdits {
		h.record("a.go", strings.Repeat("a", i+1)+"\n"+strings.Repeat("x", 10), strings.Repeat("a", i+1)+"\n"+strings.Repeat("y", 10), time.Now())
	}
	big := strings.Repeat("z", 10*keptEditText)
	h.record("b.go", "", big, time.Now())
	got := h.recent()
	if len(got) != keptEdits {
		t.Errorf("%d edits kept, want %d", len(got), keptEdits)
	}
	if last := got[len(got)-1]; len(last.New) > keptEditText+len("…") {
		t.Errorf("a paste of %d bytes kept whole", len(last.New))
	}
}

func TestCommonPrefixAndSuffix(t *testing.T) {
	a := strings.Repeat("abcdefgh", 100) + "X" + strings.Repeat("12345678", 100)
	b := strings.Repeat("abcdefgh", 100) + "YZ" + strings.Repeat("12345678", 100)
	if p := commonPrefix(a, b); p != 800 {
		t.Errorf("prefix %d, want 800", p)
	}
	if s := commonSuffix(a, b); s != 800 {
		t.Errorf("suffix %d, want 800", s)
	}
}
