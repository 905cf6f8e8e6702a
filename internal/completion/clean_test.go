package completion

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// at cuts text, which marks the cursor with |, as a request would.
func at(text string) window {
	i := strings.Index(text, "|")
	doc := text[:i] + text[i+1:]
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndexByte(text[:i], '\n') + 1)
	return cut(doc, workspace.Position{Line: line, Character: col}, workspace.UTF8, nil)
}

func TestClean(t *testing.T) {
	for _, c := range []struct {
		name, doc, raw, want string
	}{
		{"plain", "x := |\n", "compute(a, b)", "compute(a, b)"},
		{"fence off", "x := |\n", "```go\ncompute(a, b)\n```", "compute(a, b)"},
		{"cursor marker echoed", "x := |\n", "<|cursor|>compute()", "compute()"},
		{"echo of the line", "\tresult := |\n", "result := compute()", "compute()"},
		{"suffix overlap mid-line", "fmt.Println(|)\n", "total)", "total"},
		{"overlap of several characters", "if x == |) {\n", "nil) {", "nil"},
		{"mid-line keeps one line", "call(|)\n", "a,\nb)", "a,"},
		{"a closer nothing opened is cut", "x := |\n", "f(a))", "f(a)"},
		{"a closer the line opened is kept, the suffix's overlap trimmed", "f(g(|))\n", "x))", "x"},
		{"brackets in strings do not count", "s := |\n", `strings.Trim(x, ")")`, `strings.Trim(x, ")")`},
		{"end of line keeps several lines", "func f() {\n\t|\n}\n", "a := 1\n\treturn a", "a := 1\n\treturn a"},
		{"the suffix's lines written out again are trimmed", "func f() {\n\t|\n}\n", "return 1\n}", "return 1"},
		{"only what follows", "func f() {\n\treturn 1\n|\n}\n", "}", ""},
		{"blank", "x := |\n", "  \n ", ""},
		{"repeated indentation at a line start", "func f() {\n\t|\n}\n", "\treturn 1", "return 1"},
		{"many lines are bounded", "x := |\n", strings.Repeat("a\n", 40), strings.TrimSuffix(strings.Repeat("a\n", maxLines), "\n")},
		{"CRLF answers", "x := |\n", "a\r\nb", "a\nb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := clean(c.raw, at(c.doc)); got != c.want {
				t.Errorf("clean(%q) at %q = %q, want %q", c.raw, c.doc, got, c.want)
			}
		})
	}
}

func TestCutWindows(t *testing.T) {
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = "line " + strings.Repeat("x", i%7)
	}
	text := strings.Join(lines, "\n")
	w := cut(text, workspace.Position{Line: 1500, Character: 3}, workspace.UTF8, nil)
	if len(w.prefix) > prefixWindow || len(w.suffix) > suffixWindow {
		t.Errorf("windows of %d and %d bytes, want at most %d and %d", len(w.prefix), len(w.suffix), prefixWindow, suffixWindow)
	}
	if !strings.HasPrefix(w.prefix, "line") || !strings.HasSuffix(w.prefix, "\nlin") {
		t.Errorf("the prefix is not cut at a line start: %q…%q", w.prefix[:10], w.prefix[len(w.prefix)-10:])
	}
	if !strings.HasPrefix(w.suffix, "e "+lines[1500][5:]+"\n") || !strings.HasSuffix(w.suffix, strings.Split(w.suffix, "\n")[len(strings.Split(w.suffix, "\n"))-1]) || strings.HasSuffix(w.suffix, "\n") {
		t.Errorf("the suffix is not cut at a line end: %q", w.suffix[len(w.suffix)-20:])
	}
	if w.linePrefix != "lin" || w.lineSuffix != lines[1500][3:] {
		t.Errorf("line split %q|%q", w.linePrefix, w.lineSuffix)
	}
	// A line longer than the window is cut inside, on a character.
	long := strings.Repeat("é", 5000)
	w = cut(long, workspace.Position{Line: 0, Character: 4000}, workspace.UTF32, nil)
	if len(w.prefix) > prefixWindow || !strings.HasPrefix(w.prefix, "é") {
		t.Errorf("a long line's window: %d bytes, starting %q", len(w.prefix), w.prefix[:2])
	}
}
