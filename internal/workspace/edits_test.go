package workspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var editCases = []struct{ name, before, after string }{
	{"equal", "a\nb\n", "a\nb\n"},
	{"empty to text", "", "hello\nworld\n"},
	{"text to empty", "hello\nworld\n", ""},
	{"both empty", "", ""},
	{"change middle line", "a\nb\nc\n", "a\nB\nc\n"},
	{"no trailing newline", "a\nb", "a\nc"},
	{"add trailing newline", "a\nb", "a\nb\n"},
	{"drop trailing newline", "a\nb\n", "a\nb"},
	{"crlf", "one\r\ntwo\r\nthree\r\n", "one\r\n2\r\nthree\r\nfour\r\n"},
	{"crlf to lf", "one\r\ntwo\r\n", "one\ntwo\n"},
	{"mixed endings", "a\r\nb\nc\r\n", "a\nb\r\nc\r\nd"},
	{"emoji", "😀 smile\n🎉 party\n", "😀 smile\n🎉🎉 party\n🚀\n"},
	{"cjk", "日本語\n中文\n한국어", "日本語\n中文字\n한국어\n"},
	{"lone cr", "a\rb\n", "a\rc\n"},
	{"insert at start", "x\ny\n", "new\nx\ny\n"},
	{"append", "x\ny\n", "x\ny\nz\n"},
	{"many hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\ntwo\n3\n4\n5\nsix\n7\n8\nnine\n"},
}

func TestComputeEditsRoundTrip(t *testing.T) {
	for _, tt := range editCases {
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			t.Run(fmt.Sprintf("%s/enc%d", tt.name, enc), func(t *testing.T) {
				edits := ComputeEdits(tt.before, tt.after, enc)
				if tt.before == tt.after && len(edits) != 0 {
					t.Fatalf("equal texts gave edits %v", edits)
				}
				got, err := ApplyEdits(tt.before, edits, enc)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.after {
					t.Fatalf("round trip = %q, want %q (edits %v)", got, tt.after, edits)
				}
			})
		}
	}
}

func TestComputeEditsIsMinimal(t *testing.T) {
	before := "a\nb\nc\nd\ne\n"
	after := "a\nB\nc\nd\nE\n"
	edits := ComputeEdits(before, after, UTF16)
	want := []TextEdit{
		{Range{Position{1, 0}, Position{1, 1}}, "B"},
		{Range{Position{4, 0}, Position{4, 1}}, "E"},
	}
	if fmt.Sprint(edits) != fmt.Sprint(want) {
		t.Fatalf("edits = %v, want %v", edits, want)
	}
}

// Narrowed edits land mid-line, so their columns count in the encoding:
// after an emoji (two UTF-16 units, four UTF-8 bytes, one code point) and
// a CJK character (one unit, three bytes, one code point).
func TestComputeEditsColumnsFollowEncoding(t *testing.T) {
	before := "x := \"😀中\" + 1\r\nnext\r\n"
	after := "x := \"😀中\" + 2\r\nnext\r\n"
	for _, tt := range []struct {
		enc  Encoding
		char int
	}{{UTF16, 13}, {UTF8, 17}, {UTF32, 12}} {
		edits := ComputeEdits(before, after, tt.enc)
		want := []TextEdit{{Range{Position{0, tt.char}, Position{0, tt.char + 1}}, "2"}}
		if fmt.Sprint(edits) != fmt.Sprint(want) {
			t.Errorf("encoding %v: edits = %v, want %v", tt.enc, edits, want)
		}
	}
}

// A change of line ending alone must not split \r\n.
func TestComputeEditsNeverSplitsCRLF(t *testing.T) {
	before := "a\r\nb"
	after := "a\nb"
	for _, e := range ComputeEdits(before, after, UTF16) {
		if e.Range.Start.Character > 1 || e.Range.End.Character > 1 && e.Range.End.Line == 0 {
			t.Errorf("edit %v splits \\r\\n", e)
		}
	}
	got, err := ApplyEdits(before, ComputeEdits(before, after, UTF16), UTF16)
	if err != nil || got != after {
		t.Fatalf("round trip = %q, %v", got, err)
	}
}

func TestComputeEditsEndOfTextPositionUsesEncoding(t *testing.T) {
	// The last line has no newline, so the edit ends mid-line, counted in units.
	before := "x\n😀y"
	after := "x\nz"
	for enc, char := range map[Encoding]int{UTF8: 5, UTF16: 3, UTF32: 2} {
		edits := ComputeEdits(before, after, enc)
		if len(edits) != 1 || edits[0].Range.End != (Position{1, char}) {
			t.Errorf("enc %d: edits %v, want one ending at 1:%d", enc, edits, char)
		}
	}
}

func TestApplyEdits(t *testing.T) {
	text := "héllo\r\nwörld 😀\n"
	tests := []struct {
		name  string
		edits []TextEdit
		enc   Encoding
		want  string
	}{
		{"reverse order", []TextEdit{
			{Range{Position{1, 0}, Position{1, 5}}, "earth"},
			{Range{Position{0, 0}, Position{0, 5}}, "hi"},
		}, UTF16, "hi\r\nearth 😀\n"},
		{"after emoji utf16", []TextEdit{{Range{Position{1, 8}, Position{1, 8}}, "!"}}, UTF16, "héllo\r\nwörld 😀!\n"},
		{"after emoji utf32", []TextEdit{{Range{Position{1, 7}, Position{1, 7}}, "!"}}, UTF32, "héllo\r\nwörld 😀!\n"},
		{"after emoji utf8", []TextEdit{{Range{Position{1, 11}, Position{1, 11}}, "!"}}, UTF8, "héllo\r\nwörld 😀!\n"},
		{"past line end keeps crlf", []TextEdit{{Range{Position{0, 99}, Position{0, 99}}, "!"}}, UTF16, "héllo!\r\nwörld 😀\n"},
		{"same-place inserts keep order", []TextEdit{
			{Range{Position{0, 0}, Position{0, 0}}, "1"},
			{Range{Position{0, 0}, Position{0, 0}}, "2"},
		}, UTF16, "12héllo\r\nwörld 😀\n"},
		{"insert before replace at same start", []TextEdit{
			{Range{Position{0, 0}, Position{0, 1}}, "H"},
			{Range{Position{0, 0}, Position{0, 0}}, ">"},
		}, UTF16, ">Héllo\r\nwörld 😀\n"},
		{"past end of text", []TextEdit{{Range{Position{7, 0}, Position{9, 0}}, "tail"}}, UTF16, text + "tail"},
	}
	for _, tt := range tests {
		got, err := ApplyEdits(text, tt.edits, tt.enc)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestApplyEditsRejectsBadEdits(t *testing.T) {
	text := "abc\ndef\n"
	if _, err := ApplyEdits(text, []TextEdit{
		{Range{Position{0, 0}, Position{1, 1}}, "x"},
		{Range{Position{1, 0}, Position{1, 2}}, "y"},
	}, UTF16); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping edits: err = %v", err)
	}
	if _, err := ApplyEdits(text, []TextEdit{{Range{Position{1, 2}, Position{0, 1}}, "x"}}, UTF16); err == nil || !strings.Contains(err.Error(), "ends before it starts") {
		t.Errorf("reversed range: err = %v", err)
	}
}

func FuzzEditsRoundTrip(f *testing.F) {
	for _, tt := range editCases {
		f.Add(tt.before, tt.after, uint8(0))
		f.Add(tt.before, tt.after, uint8(1))
		f.Add(tt.before, tt.after, uint8(2))
	}
	f.Fuzz(func(t *testing.T, before, after string, e uint8) {
		enc := Encoding(e % 3)
		edits := ComputeEdits(before, after, enc)
		got, err := ApplyEdits(before, edits, enc)
		if err != nil {
			t.Fatalf("ApplyEdits: %v (edits %v)", err, edits)
		}
		if got != after {
			t.Fatalf("round trip = %q, want %q (edits %v)", got, after, edits)
		}
		// The same edits sent as an editor would, last first, give the same text.
		docs := NewDocuments()
		docs.Open(Document{Path: "/fuzz", Text: before})
		if err := docs.Change("/fuzz", 2, reversedChanges(edits), enc); err != nil {
			t.Fatal(err)
		}
		if doc, _ := docs.Get("/fuzz"); doc.Text != after {
			t.Fatalf("via Change = %q, want %q", doc.Text, after)
		}
	})
}

// Random multi-line texts from a small alphabet rich in awkward characters.
func TestEditsRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "\n", "\r\n", "\r", "😀", "世", "é", " "}
	gen := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 2000 {
		before, after := gen(), gen()
		enc := Encoding(i % 3)
		got, err := ApplyEdits(before, ComputeEdits(before, after, enc), enc)
		if err != nil || got != after {
			t.Fatalf("enc %d: %q -> %q: got %q, %v", enc, before, after, got, err)
		}
	}
}

// reversedChanges turns edits into didChange entries the way VS Code sends
// a multi-range change: last range first, so each stays valid.
func reversedChanges(edits []TextEdit) []ContentChange {
	changes := make([]ContentChange, len(edits))
	for i, e := range edits {
		r := e.Range
		changes[len(edits)-1-i] = ContentChange{Range: &r, Text: e.NewText}
	}
	return changes
}

func TestUnifiedDiffAndStat(t *testing.T) {
	before := "a\nb\nc\n"
	after := "a\nB\nc\nd"
	got := UnifiedDiff("/dir/f.txt", before, after)
	want := "--- a/dir/f.txt\n+++ b/dir/f.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("UnifiedDiff =\n%s\nwant\n%s", got, want)
	}
	if UnifiedDiff("f", before, before) != "" {
		t.Error("UnifiedDiff of equal texts is not empty")
	}
	if added, removed := DiffLines(before, after).Stat(); added != 2 || removed != 1 {
		t.Errorf("Stat = +%d -%d, want +2 -1", added, removed)
	}
	if added, removed := DiffLines("", "x\ny").Stat(); added != 2 || removed != 0 {
		t.Errorf("Stat new file = +%d -%d, want +2 -0", added, removed)
	}
	if added, removed := DiffLines("x\ny\n", "").Stat(); added != 0 || removed != 2 {
		t.Errorf("Stat deleted = +%d -%d, want +0 -2", added, removed)
	}
}

// bigEditPair is a 20,000-line file and a copy with 50 lines changed
// throughout it.
func bigEditPair() (before, after string) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "\tline %d: some code here, x := compute(%d) // 😀 日本\n", i, i)
	}
	before = sb.String()
	lines := strings.SplitAfter(before, "\n")
	for i := range 50 {
		n := 200 + i*390
		lines[n] = strings.Replace(lines[n], "compute", "recompute", 1)
	}
	return before, strings.Join(lines, "")
}

// The agent's edit reaching the overlay as the LSP does it: diff the
// texts, then the editor's didChange with the ranges last first.
func BenchmarkApplyEdits50On20000Lines(b *testing.B) {
	before, after := bigEditPair()
	docs := NewDocuments()
	b.ReportAllocs()
	for b.Loop() {
		docs.Open(Document{Path: "/bench/big.go", Version: 1, Text: before})
		edits := ComputeEdits(before, after, UTF16)
		if err := docs.Change("/bench/big.go", 2, reversedChanges(edits), UTF16); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if doc, _ := docs.Get("/bench/big.go"); doc.Text != after {
		b.Fatal("document differs from the expected text")
	}
}

// Only the didChange half of the above.
func BenchmarkChange50On20000Lines(b *testing.B) {
	before, after := bigEditPair()
	changes := reversedChanges(ComputeEdits(before, after, UTF16))
	docs := NewDocuments()
	b.ReportAllocs()
	for b.Loop() {
		docs.Open(Document{Path: "/bench/big.go", Version: 1, Text: before})
		if err := docs.Change("/bench/big.go", 2, changes, UTF16); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if doc, _ := docs.Get("/bench/big.go"); doc.Text != after {
		b.Fatal("document differs from the expected text")
	}
}
