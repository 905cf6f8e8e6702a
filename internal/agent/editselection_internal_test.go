package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The model's answer becomes the text the selection is replaced with:
// a fence around all of it and the markers go, and it ends in a line
// break exactly when the selection does.
func TestCleanSelection(t *testing.T) {
	for _, c := range []struct{ answer, selection, want string }{
		{"x := 1", "y := 2\n", "x := 1\n"},
		{"x := 1\n\n", "y := 2", "x := 1"},
		{"```go\n\tx := 1\n```", "\ty := 2\n", "\tx := 1\n"},
		{"```\nx\n```\n", "y", "x"},
		{"<selection>x</selection>", "y", "x"},
		{"x\r\n", "y\r\n", "x\n"}, // the file's endings come back when the change is prepared
		{"", "y\n", ""},           // deleted
		// A selection that is itself a fence keeps the answer's.
		{"```go\nx\n```", "```go\ny\n```", "```go\nx\n```"},
		// Not one fence around all of it.
		{"```go\nx\n```\nmore", "y", "```go\nx\n```\nmore"},
	} {
		if got := cleanSelection(c.answer, c.selection); got != c.want {
			t.Errorf("cleanSelection(%q, %q) = %q, want %q", c.answer, c.selection, got, c.want)
		}
	}
}

// The model sees whole lines around the selection, at most
// selectionContextLines each way, and where the selection is.
func TestSelectionPromptContext(t *testing.T) {
	var lines []string
	for i := 1; i <= 200; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	text := strings.Join(lines, "\n") + "\n"
	start := strings.Index(text, "line 100") + len("line ")
	end := strings.Index(text, "line 101") + len("line 1")
	got := selectionPrompt("f.txt", dialog.SelectionEdit{Path: "/w/f.txt", Text: text, Start: start, End: end, Instruction: " double it \n"})
	for _, want := range []string{
		"File: f.txt\nLanguage: txt\nThe selection is lines 100-101.\n",
		"between <selection> and </selection>:\n\nline 50\nline 51\n",
		"line 99\nline <selection>100\nline 1</selection>01\nline 102\n",
		"line 151\n\nInstruction: double it\n\nAnswer with the text that replaces the selection.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"line 49\n", "line 152"} {
		if strings.Contains(got, not) {
			t.Errorf("the prompt has %q, beyond the context", not)
		}
	}
	// At the file's start and end, and a place rather than a selection.
	got = selectionPrompt("g.go", dialog.SelectionEdit{Path: "/w/g.go", Language: "go", Text: "a\nb", Start: 1, End: 1, Instruction: "x"})
	if !strings.Contains(got, "Language: go\nThe selection is on line 1.\n") || !strings.Contains(got, ":\n\na<selection></selection>\nb\n\nInstruction: x") {
		t.Errorf("prompt:\n%s", got)
	}
}
