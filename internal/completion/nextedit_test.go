package completion

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// blocksTurn answers a next edit prompt with one block for each pair of
// lines, as they are and as they become.
func blocksTurn(pairs ...string) geminitest.Turn {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n%s\n", searchMarker, pairs[i], replaceMarker, pairs[i+1], endMarker)
	}
	return geminitest.TextTurn(b.String())
}

// nextEdit asks for name's next edit at the line and character given, of
// the document's current version.
func (r *rig) nextEdit(name string, line, char int) NextEdit {
	r.t.Helper()
	doc, _ := r.docs.Get(r.path(name))
	got, err := r.e.NextEdit(context.Background(), NextEditRequest{Path: doc.Path, Version: &doc.Version, Position: workspace.Position{Line: line, Character: char}, Encoding: workspace.UTF16})
	if err != nil {
		r.t.Fatal(err)
	}
	return got
}

// take applies got to name's document, as the editor does when the user
// accepts it.
func (r *rig) take(name string, got NextEdit) {
	r.t.Helper()
	doc, _ := r.docs.Get(r.path(name))
	text, err := workspace.ApplyEdits(doc.Text, got.Edits, workspace.UTF16)
	if err != nil {
		r.t.Fatal(err)
	}
	r.change(name, text)
}

func TestNextEditCarriesARenameOnOneChangeAtATime(t *testing.T) {
	before := "func sum(xs []int) int {\n\tcount := 0\n\tfor _, x := range xs {\n\t\tcount += x\n\t}\n\treturn count\n}\n"
	after := strings.Replace(before, "\tcount := 0", "\ttotal := 0", 1)
	answer := blocksTurn("\treturn count", "\treturn total", "\t\tcount += x", "\t\ttotal += x")
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		// The model sees the recent edit and the whole file, the cursor
		// in it.
		prompt := req.Contents[0].Parts[0].Text
		if !strings.Contains(prompt, "-count\n+total") {
			return geminitest.TextTurn("no edit in the prompt:\n" + prompt)
		}
		if !strings.Contains(prompt, "\ttotal "+userCursor+":= 0\n") || !strings.Contains(prompt, "\treturn count\n}\n") {
			return geminitest.TextTurn("no file with the cursor in the prompt:\n" + prompt)
		}
		return answer
	}})
	r.open("sum.go", before+"|")
	r.change("sum.go", after)

	// The change the user reaches first from the cursor comes first,
	// whatever the model's order: the count on line 3.
	got := r.nextEdit("sum.go", 1, 7)
	if len(got.Edits) != 1 || got.Edits[0].NewText != "total" || got.Edits[0].Range != lineRange(3, 2, 7) {
		t.Fatalf("edits %+v, want count → total on line 3 only", got.Edits)
	}
	if doc, _ := r.docs.Get(r.path("sum.go")); got.Version != doc.Version {
		t.Errorf("version %d, want %d", got.Version, doc.Version)
	}
	// Taken, the next one is answered from the same prediction.
	r.take("sum.go", got)
	got = r.nextEdit("sum.go", 3, 7)
	if len(got.Edits) != 1 || got.Edits[0].NewText != "total" || got.Edits[0].Range != lineRange(5, 8, 13) {
		t.Fatalf("then edits %+v, want count → total on line 5", got.Edits)
	}
	r.take("sum.go", got)
	if doc, _ := r.docs.Get(r.path("sum.go")); doc.Text != strings.ReplaceAll(after, "count", "total") {
		t.Errorf("after both: %q", doc.Text)
	}
	if n := len(r.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the second change was foreseen with the first", n)
	}
}

func lineRange(line, from, to int) workspace.Range {
	return workspace.Range{Start: workspace.Position{Line: line, Character: from}, End: workspace.Position{Line: line, Character: to}}
}

// A long file's prompt shows the part around the cursor and, elsewhere,
// the lines that mention what the user renamed; the edit there is
// answered, however far from the cursor.
func TestNextEditFarFromTheCursorInALongFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("func price(amount int) int {\n\treturn amount * rate\n}\n")
	for i := 0; b.Len() < 3*nextEditFile; i++ {
		fmt.Fprintf(&b, "func filler%d() int { return %d }\n", i, i)
	}
	far := strings.Count(b.String(), "\n")
	b.WriteString("func report(amount int) string {\n\treturn fmt.Sprint(amount)\n}\n")
	before := b.String()
	after := strings.Replace(before, "func price(amount int)", "func price(cents int)", 1)
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		prompt := req.Contents[0].Parts[0].Text
		if len(prompt) > nextEditFile+elsewhereBudget+4000 {
			return geminitest.TextTurn(fmt.Sprintf("the prompt has %d bytes", len(prompt)))
		}
		if !strings.Contains(prompt, `excerpt="lines 1-`) {
			return geminitest.TextTurn("the file is not said to be an excerpt:\n" + prompt[:2000])
		}
		want := fmt.Sprintf("<file_excerpt path=%q lines=\"%d-%d\">\nfunc report(amount int) string {\n\treturn fmt.Sprint(amount)\n</file_excerpt>", "prices.go", far+1, far+2)
		if !strings.Contains(prompt, want) {
			return geminitest.TextTurn("no excerpt of the far lines:\n" + prompt[len(prompt)-2000:])
		}
		return blocksTurn("\treturn amount * rate", "\treturn cents * rate")
	}})
	r.open("prices.go", "|"+before)
	r.change("prices.go", after)
	got := r.nextEdit("prices.go", 0, 14)
	if len(got.Edits) != 1 || got.Edits[0].Range != lineRange(1, 8, 14) {
		t.Fatalf("edits %+v, want amount → cents on line 1", got.Edits)
	}
}

// The prediction holds while the user takes its changes; an edit of
// their own ends it, and the model is asked again.
func TestNextEditAsksAgainAfterAnEditOfTheUsers(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil,
		blocksTurn("b = a", "b = z"),
		blocksTurn("c = a", "c = z"))
	r.open("a.go", "|a = 1\nb = a\nc = a\n")
	r.change("a.go", "z = 1\nb = a\nc = a\n")
	first := r.nextEdit("a.go", 0, 0)
	if len(first.Edits) != 1 || first.Edits[0].Range != lineRange(1, 4, 5) {
		t.Fatalf("edits %+v, want line 1's a", first.Edits)
	}
	if again := r.nextEdit("a.go", 0, 0); len(again.Edits) != 1 || again.Edits[0] != first.Edits[0] || len(r.model.Requests()) != 1 {
		t.Fatalf("asked again of the same text: %+v after %d requests, want the same edit, not asked", again.Edits, len(r.model.Requests()))
	}
	r.change("a.go", "z = 1\nb = a\nc = a\nd = 2\n")
	got := r.nextEdit("a.go", 3, 0)
	if len(got.Edits) != 1 || got.Edits[0].Range != lineRange(2, 4, 5) || len(r.model.Requests()) != 2 {
		t.Errorf("edits %+v after %d requests, want the model's new answer", got.Edits, len(r.model.Requests()))
	}
}

func TestNextEditAsksNothingWithoutRecentEdits(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil)
	req := r.open("a.go", "x := 1|\n")
	one := int32(1)
	got, err := r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Version: &one, Position: req.Position, Encoding: workspace.UTF8})
	if err != nil || len(got.Edits) != 0 || len(r.model.Requests()) != 0 {
		t.Errorf("edits %+v, err %v, %d requests: want nothing asked", got, err, len(r.model.Requests()))
	}
	// An old version is not predicted for either.
	r.change("a.go", "x := 2\n")
	got, err = r.e.NextEdit(context.Background(), NextEditRequest{Path: req.Path, Version: &one, Position: req.Position, Encoding: workspace.UTF8})
	if err != nil || len(got.Edits) != 0 || len(r.model.Requests()) != 0 {
		t.Errorf("for a stale version: edits %+v, err %v", got, err)
	}
}

func TestNextEditNothingForeseen(t *testing.T) {
	for name, answer := range map[string]geminitest.Turn{
		"nothing":         geminitest.TextTurn(""),
		"the same lines":  blocksTurn("c", "c"),
		"lines not there": blocksTurn("d", "e"),
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, settings.InlineCompletion{}, nil, answer)
			r.open("a.go", "a\nb|\nc")
			r.change("a.go", "a\nbb\nc")
			if got := r.nextEdit("a.go", 1, 2); len(got.Edits) != 0 {
				t.Errorf("edits %+v, want none", got.Edits)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	raw := "```\n" + searchMarker + "\n\tx := 1" + userCursor + "\n" + replaceMarker + "\n\ty := 1\n" + endMarker + "\n" +
		searchMarker + "\ncut\n" + replaceMarker + "\nshort\n```"
	got := parseBlocks(raw)
	if len(got) != 1 || got[0] != (block{search: "\tx := 1", replace: "\ty := 1"}) {
		t.Errorf("blocks %+v, want the whole one, fence and cursor marker off", got)
	}
}

func TestLocate(t *testing.T) {
	text := "a := f(x)\nb := a\n\tb := a\nb := a\n"
	cases := []struct {
		name   string
		blocks []block
		at     int
		want   []change
	}{
		{"the occurrence nearest the cursor", []block{{"b := a", "b := c"}}, len(text), []change{{offset: 25, old: "b := a", new: "b := c"}}},
		{"whole lines before parts of lines", []block{{"b := a", "b := c"}}, 21, []change{{offset: 25, old: "b := a", new: "b := c"}}},
		{"part of a line widened to the line", []block{{"f(x)", "g(x)"}}, 0, []change{{offset: 0, old: "a := f(x)", new: "a := g(x)"}}},
		{"overlapping blocks: the first", []block{{"a := f(x)", "a := g(x)"}, {"f(x)\nb", "h(x)\nb"}}, 0, []change{{offset: 0, old: "a := f(x)", new: "a := g(x)"}}},
		{"in the document's order", []block{{"\tb := a", "\tb := c"}, {"a := f(x)", "a := g(x)"}}, 0, []change{{offset: 0, old: "a := f(x)", new: "a := g(x)"}, {offset: 17, old: "\tb := a", new: "\tb := c"}}},
	}
	for _, c := range cases {
		if got := locate(text, c.blocks, c.at); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	crlf := "x := 1\r\ny := x\r\n"
	if got := locate(crlf, []block{{"x := 1\ny := x", "z := 1\ny := z"}}, 0); len(got) != 1 || got[0].old != "x := 1\r\ny := x\r" || got[0].new != "z := 1\r\ny := z\r" {
		t.Errorf("CRLF: %+v", got)
	}
}

// The next edit is the change the user reaches first going down from the
// cursor, then from the top of the file.
func TestNextEditOfTheCursor(t *testing.T) {
	doc := workspace.Document{Text: "a\nb\nc\n"}
	changes := []change{{offset: 0, old: "a", new: "A"}, {offset: 4, old: "c", new: "C"}}
	for at, want := range map[int]string{0: "A", 1: "A", 2: "C", 4: "C", 5: "C", 6: "A"} {
		if got := nextEditOf(doc, changes, at, workspace.UTF8); len(got.Edits) != 1 || got.Edits[0].NewText != want {
			t.Errorf("cursor at %d: %+v, want %s", at, got.Edits, want)
		}
	}
}
