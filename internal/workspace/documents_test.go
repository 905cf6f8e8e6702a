package workspace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func rng(l1, c1, l2, c2 int) *Range {
	return &Range{Position{l1, c1}, Position{l2, c2}}
}

func TestDocumentsChangeEncodings(t *testing.T) {
	const path = "/w/doc.txt"
	text := "a😀b世\r\nnext\n"
	tests := []struct {
		name    string
		enc     Encoding
		changes []ContentChange
		want    string
	}{
		{"utf16 after emoji", UTF16, []ContentChange{{Range: rng(0, 3, 0, 4), Text: "B"}}, "a😀B世\r\nnext\n"},
		{"utf32 after emoji", UTF32, []ContentChange{{Range: rng(0, 2, 0, 3), Text: "B"}}, "a😀B世\r\nnext\n"},
		{"utf8 after emoji", UTF8, []ContentChange{{Range: rng(0, 5, 0, 6), Text: "B"}}, "a😀B世\r\nnext\n"},
		{"utf16 replace cjk", UTF16, []ContentChange{{Range: rng(0, 4, 0, 5), Text: "界"}}, "a😀b界\r\nnext\n"},
		{"utf8 replace cjk", UTF8, []ContentChange{{Range: rng(0, 6, 0, 9), Text: "界"}}, "a😀b界\r\nnext\n"},
		{"join crlf lines", UTF16, []ContentChange{{Range: rng(0, 5, 1, 0), Text: " "}}, "a😀b世 next\n"},
		{"end past line keeps crlf", UTF16, []ContentChange{{Range: rng(0, 50, 0, 50), Text: "!"}}, "a😀b世!\r\nnext\n"},
		{"out of bounds clamps to end", UTF16, []ContentChange{{Range: rng(9, 0, 12, 3), Text: "tail"}}, text + "tail"},
		{"sequential ascending", UTF16, []ContentChange{
			{Range: rng(0, 0, 0, 0), Text: "x\n"},
			{Range: rng(1, 0, 1, 1), Text: "A"}, // line 1 is the old line 0 now
		}, "x\nA😀b世\r\nnext\n"},
		{"descending batch", UTF16, []ContentChange{
			{Range: rng(1, 0, 1, 4), Text: "NEXT"},
			{Range: rng(0, 0, 0, 1), Text: "A"},
		}, "A😀b世\r\nNEXT\n"},
		{"insert then edit at the same place", UTF16, []ContentChange{
			{Range: rng(1, 0, 1, 0), Text: "1"},
			{Range: rng(1, 0, 1, 0), Text: "2"},
		}, "a😀b世\r\n21next\n"},
		{"clamped end equal to previous start is sequential", UTF16, []ContentChange{
			{Range: rng(0, 9, 0, 9), Text: "XYZ"}, // clamps to the line end
			{Range: rng(0, 9, 0, 9), Text: "!"},   // line is longer now: after XYZ
		}, "a😀b世XYZ!\r\nnext\n"},
		{"full then ranged", UTF16, []ContentChange{
			{Text: "full\ntext"},
			{Range: rng(1, 0, 1, 4), Text: "TEXT"},
		}, "full\nTEXT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDocuments()
			d.Open(Document{Path: path, Version: 1, Text: text})
			if err := d.Change(path, 2, tt.changes, tt.enc); err != nil {
				t.Fatal(err)
			}
			doc, ok := d.Get(path)
			if !ok || doc.Text != tt.want || doc.Version != 2 {
				t.Fatalf("got %q v%d (open %v), want %q v2", doc.Text, doc.Version, ok, tt.want)
			}
		})
	}
}

// Applying changes one by one, each to the text the last left, is what the
// protocol means; the batched path must agree with it.
func TestDocumentsChangeMatchesSequentialApplication(t *testing.T) {
	text := "l0 😀\r\nl1 世界\nl2\n\nl4 é"
	changes := []ContentChange{
		{Range: rng(4, 3, 4, 5), Text: "E"},
		{Range: rng(3, 0, 3, 0), Text: "new\n"},
		{Range: rng(1, 3, 2, 1), Text: "x"},
		{Range: rng(1, 3, 1, 3), Text: "y"},
		{Range: rng(0, 3, 0, 5), Text: ""},
		{Range: rng(0, 0, 0, 0), Text: ">"},
		{Range: rng(2, 0, 2, 3), Text: "after"}, // ascending again: new run
		{Range: rng(0, 1, 0, 1), Text: "<"},
	}
	want := text
	for _, c := range changes {
		var err error
		if want, err = ApplyEdits(want, []TextEdit{{Range: *c.Range, NewText: c.Text}}, UTF16); err != nil {
			t.Fatal(err)
		}
	}
	d := NewDocuments()
	d.Open(Document{Path: "/w/a", Text: text})
	if err := d.Change("/w/a", 1, changes, UTF16); err != nil {
		t.Fatal(err)
	}
	if doc, _ := d.Get("/w/a"); doc.Text != want {
		t.Fatalf("batched %q, sequential %q", doc.Text, want)
	}
}

func TestDocumentsChangeErrors(t *testing.T) {
	d := NewDocuments()
	err := d.Change("/w/closed.go", 2, []ContentChange{{Text: "x"}}, UTF16)
	if err == nil || !strings.Contains(err.Error(), "/w/closed.go") || !strings.Contains(err.Error(), "not open") {
		t.Fatalf("change of a closed document: %v", err)
	}

	d.Open(Document{Path: "/w/a.go", Version: 1, Text: "abc"})
	err = d.Change("/w/a.go", 2, []ContentChange{
		{Range: rng(0, 0, 0, 1), Text: "X"},
		{Range: rng(0, 2, 0, 1), Text: "bad"},
	}, UTF16)
	if err == nil || !strings.Contains(err.Error(), "ends before it starts") {
		t.Fatalf("reversed range: %v", err)
	}
	if doc, _ := d.Get("/w/a.go"); doc.Text != "abc" || doc.Version != 1 {
		t.Fatalf("failed change modified the document: %q v%d", doc.Text, doc.Version)
	}
}

func TestDocumentsLifecycle(t *testing.T) {
	d := NewDocuments()
	d.Open(Document{Path: "/w/b.go", URI: "file:///w/b.go", LanguageID: "go", Version: 3, Text: "\uFEFFpackage b\n"})
	d.Open(Document{Path: "/w/a.go", Version: 1, Text: "package a\n"})
	doc, ok := d.Get("/w/b.go")
	if !ok || doc.Text != "package b\n" || doc.LanguageID != "go" || doc.URI != "file:///w/b.go" {
		t.Fatalf("Get = %+v, %v", doc, ok)
	}
	// Listed as the system spells them (\w\a.go on Windows).
	if list := d.List(); len(list) != 2 || list[0].Path != filepath.FromSlash("/w/a.go") || list[1].Path != filepath.FromSlash("/w/b.go") {
		t.Fatalf("List = %+v", list)
	}
	text := "saved text\n"
	d.Saved("/w/b.go", &text)
	if doc, _ := d.Get("/w/b.go"); doc.Text != text || doc.Version != 3 {
		t.Fatalf("after Saved: %+v", doc)
	}
	d.Saved("/w/b.go", nil)
	if doc, _ := d.Get("/w/b.go"); doc.Text != text {
		t.Fatalf("Saved without text changed the overlay: %+v", doc)
	}
	d.Close("/w/b.go")
	if _, ok := d.Get("/w/b.go"); ok {
		t.Fatal("document still open after Close")
	}
}

// The editor may spell a path through a symlink; the workspace resolves it.
// Both spellings reach the same document.
func TestDocumentsResolveSymlinkedPaths(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	symlink(t, real, link)
	d := NewDocuments()
	d.Open(Document{Path: filepath.Join(link, "new.go"), Text: "x"})
	doc, ok := d.Get(filepath.Join(real, "new.go"))
	if !ok || doc.Path != filepath.Join(real, "new.go") {
		t.Fatalf("Get by resolved path = %+v, %v", doc, ok)
	}
	if err := d.Change(filepath.Join(link, "new.go"), 2, []ContentChange{{Text: "y"}}, UTF16); err != nil {
		t.Fatal(err)
	}
	if doc, _ := d.Get(filepath.Join(real, "new.go")); doc.Text != "y" {
		t.Fatalf("change through the editor's spelling not seen: %q", doc.Text)
	}
	d.Close(filepath.Join(link, "new.go"))
	if _, ok := d.Get(filepath.Join(real, "new.go")); ok {
		t.Fatal("still open after Close through the editor's spelling")
	}
}

func TestDocumentsWait(t *testing.T) {
	ctx := context.Background()
	d := NewDocuments()
	d.Open(Document{Path: "/w/a.go", Version: 1, Text: "one"})

	// stillWaiting checks that Wait blocks while nothing differs.
	stillWaiting := func(t *testing.T, path string, version int32) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if doc, open, err := d.Wait(ctx, path, version); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait(%s, %d) returned early: %+v, %v, %v", path, version, doc, open, err)
		}
	}

	t.Run("returns at once when already different", func(t *testing.T) {
		doc, open, err := d.Wait(ctx, "/w/a.go", 0)
		if err != nil || !open || doc.Version != 1 {
			t.Fatalf("Wait = %+v, %v, %v", doc, open, err)
		}
	})

	t.Run("wakes on change", func(t *testing.T) {
		stillWaiting(t, "/w/a.go", 1)
		done := make(chan Document)
		go func() {
			doc, _, _ := d.Wait(ctx, "/w/a.go", 1)
			done <- doc
		}()
		// Changes elsewhere wake it, but it keeps waiting.
		d.Open(Document{Path: "/w/other.go", Version: 1})
		if err := d.Change("/w/a.go", 2, []ContentChange{{Text: "two"}}, UTF16); err != nil {
			t.Fatal(err)
		}
		if doc := <-done; doc.Version != 2 || doc.Text != "two" {
			t.Fatalf("woke with %+v", doc)
		}
	})

	t.Run("wakes on close", func(t *testing.T) {
		done := make(chan bool)
		go func() {
			_, open, _ := d.Wait(ctx, "/w/a.go", 2)
			done <- open
		}()
		d.Close("/w/a.go")
		if open := <-done; open {
			t.Fatal("reported open after close")
		}
	})

	t.Run("negative version waits for open", func(t *testing.T) {
		stillWaiting(t, "/w/new.go", -1)
		done := make(chan Document)
		go func() {
			doc, _, _ := d.Wait(ctx, "/w/new.go", -1)
			done <- doc
		}()
		d.Open(Document{Path: "/w/new.go", Version: 0, Text: "hi"})
		if doc := <-done; doc.Text != "hi" {
			t.Fatalf("woke with %+v", doc)
		}
	})

	t.Run("ends with ctx", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() {
			_, _, err := d.Wait(ctx, "/w/new.go", 0)
			done <- err
		}()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

// Random change lists, mostly in descending order so runs get batched,
// with out-of-bounds and mid-character positions, must match applying the
// changes one at a time.
func TestDocumentsChangeBatchingRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "\n", "\r\n", "😀", "世", "é", "\r"}
	gen := func(n int) string {
		var b strings.Builder
		for range r.IntN(n) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 3000 {
		enc := Encoding(i % 3)
		text := gen(30)
		var changes []ContentChange
		line, char := 8, 12
		for range 1 + r.IntN(6) {
			if r.IntN(4) == 0 { // sometimes jump forward: a new run
				line, char = 8, 12
			}
			end := Position{r.IntN(line + 1), r.IntN(char + 1)}
			start := end
			if r.IntN(2) == 0 {
				start = Position{r.IntN(end.Line + 1), r.IntN(char + 1)}
				if start.Line == end.Line {
					start.Character = min(start.Character, end.Character)
				}
			}
			line, char = start.Line, max(start.Character, 1)
			changes = append(changes, ContentChange{Range: &Range{start, end}, Text: gen(6)})
		}
		want := text
		for _, c := range changes {
			var err error
			if want, err = ApplyEdits(want, []TextEdit{{Range: *c.Range, NewText: c.Text}}, enc); err != nil {
				t.Fatal(err)
			}
		}
		d := NewDocuments()
		d.Open(Document{Path: "/r", Text: text})
		if err := d.Change("/r", 1, changes, enc); err != nil {
			t.Fatal(err)
		}
		if doc, _ := d.Get("/r"); doc.Text != want {
			t.Fatalf("enc %d, text %q, changes %s:\nbatched    %q\nsequential %q", enc, text, fmtChanges(changes), doc.Text, want)
		}
	}
}

func fmtChanges(changes []ContentChange) string {
	var parts []string
	for _, c := range changes {
		parts = append(parts, fmt.Sprintf("%s=%q", c.Range, c.Text))
	}
	return strings.Join(parts, " ")
}

func TestDocumentsZeroValue(t *testing.T) {
	var d Documents
	if _, ok := d.Get("/x"); ok {
		t.Fatal("empty set has a document")
	}
	d.Open(Document{Path: "/x", Text: "x"})
	if doc, ok := d.Get("/x"); !ok || doc.Text != "x" {
		t.Fatalf("Get = %+v, %v", doc, ok)
	}
}
