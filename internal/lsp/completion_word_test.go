package lsp

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The completion item starts at the word before the cursor, which editors
// filter the menu by, in the connection's position encoding.
func TestWordBefore(t *testing.T) {
	pos := func(line, char int) workspace.Position { return workspace.Position{Line: line, Character: char} }
	for _, c := range []struct {
		name  string
		text  string
		at    workspace.Position
		enc   workspace.Encoding
		word  string
		start workspace.Position
	}{
		{"after a bracket", "x\n    print(to)\n", pos(1, 12), workspace.UTF16, "to", pos(1, 10)},
		{"underscores and digits", "a = my_var2", pos(0, 11), workspace.UTF8, "my_var2", pos(0, 4)},
		{"no word", "print(", pos(0, 6), workspace.UTF16, "", pos(0, 6)},
		{"line start", "ab\ncd", pos(1, 0), workspace.UTF16, "", pos(1, 0)},
		{"not across lines", "ab\ncd", pos(1, 2), workspace.UTF16, "cd", pos(1, 0)},
		{"mid-word", "total", pos(0, 2), workspace.UTF16, "to", pos(0, 0)},
		{"letters beyond ASCII, UTF-16", "s = 𝑥é", pos(0, 7), workspace.UTF16, "𝑥é", pos(0, 4)},
		{"letters beyond ASCII, UTF-8", "s = 𝑥é", pos(0, 10), workspace.UTF8, "𝑥é", pos(0, 4)},
	} {
		word, start := wordBefore(c.text, c.at, c.enc)
		if word != c.word || start != c.start {
			t.Errorf("%s: wordBefore(%q, %v) = %q, %v; want %q, %v", c.name, c.text, c.at, word, start, c.word, c.start)
		}
	}
}
