package lsptest

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// What Neovim 0.7.2's vim.lsp.util.apply_text_edits made of each edit, as
// run headless against buffers holding these texts.
func TestApplyAsNeovimMatchesNeovim(t *testing.T) {
	edit := func(sl, sc, el, ec int, text string) workspace.TextEdit {
		return workspace.TextEdit{
			Range:   workspace.Range{Start: workspace.Position{Line: sl, Character: sc}, End: workspace.Position{Line: el, Character: ec}},
			NewText: text,
		}
	}
	for _, tc := range []struct {
		buffer string
		edit   workspace.TextEdit
		want   string
	}{
		// A new file: Neovim loads the empty file as "\n".
		{"\n", edit(0, 0, 0, 0, "# Changes\n"), "# Changes\n\n"},
		{"\n", edit(0, 0, 1, 0, "# Changes\n"), "# Changes\n"},
		{"\n", edit(0, 0, 0, 0, "x"), "x\n"},
		{"\n", edit(0, 0, 1, 0, "x"), "x\n"},
		{"\n", edit(0, 0, 0, 0, "a\n\n"), "a\n\n\n"},
		{"\n", edit(0, 0, 1, 0, "a\n\n"), "a\n\n"},
		{"\n", edit(0, 0, 1, 0, ""), "\n"},
		// Existing text.
		{"a\n", edit(1, 0, 1, 0, "b\n"), "a\nb\n"},
		{"a\nb\n", edit(0, 1, 1, 0, ""), "ab\n"},
		{"a\nb\n", edit(1, 0, 2, 0, ""), "a\n"},
		{"a\nb\n", edit(0, 0, 2, 0, "c\n"), "c\n"},
		{"a", edit(0, 1, 0, 1, "\nb"), "a\nb"},
		{"one\ntwo\n", edit(0, 1, 0, 3, "NE"), "oNE\ntwo\n"},
		// Characters past a line's end.
		{"// user was here\npackage a\n\nfunc A() int { return 1 }\n", edit(2, 22, 2, 23, "2"), "// user was here\npackage a\n2\nfunc A() int { return 1 }\n"},
		{"ab\ncd", edit(0, 5, 1, 1, "X"), "abXd"},
	} {
		got, err := applyAsNeovim(tc.buffer, []workspace.TextEdit{tc.edit}, workspace.UTF16)
		if err != nil || got != tc.want {
			t.Errorf("%q with %s %q = %q, %v; Neovim made %q", tc.buffer, tc.edit.Range, tc.edit.NewText, got, err, tc.want)
		}
	}
}
