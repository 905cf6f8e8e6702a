package lsptest

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// applyAsNeovim applies edits to a buffer holding text the way
// vim.lsp.util.apply_text_edits does (Neovim 0.7 to 0.11). The buffer is
// lines plus a final line break ('eol'). A character past its line's end
// is clamped to it, and a position past the last line to that line's end;
// when an edit reached past the last line, an empty last line it leaves is
// dropped ('fixeol'). So an insertion at 0:0 into an empty buffer ("\n")
// keeps that empty line after the new text, while an edit reaching line 1
// replaces it.
func applyAsNeovim(text string, edits []workspace.TextEdit, enc workspace.Encoding) (string, error) {
	content, eol := strings.CutSuffix(text, "\n")
	lines := strings.Split(content, "\n")
	end := positionOf(content, len(content), enc) // the end of the last line
	clampToLine := func(p workspace.Position) workspace.Position {
		if p.Line < len(lines) {
			p.Character = min(p.Character, positionOf(lines[p.Line], len(lines[p.Line]), enc).Character)
		}
		return p
	}
	clamped := make([]workspace.TextEdit, len(edits))
	reachesPast := false
	for i, e := range edits {
		e.Range.Start, e.Range.End = clampToLine(e.Range.Start), clampToLine(e.Range.End)
		if e.Range.Start.Line >= len(lines) {
			// Inserted on a new line after the last one.
			e.Range.Start, e.NewText = end, "\n"+e.NewText
			reachesPast = true
		}
		if e.Range.End.Line >= len(lines) {
			e.Range.End = end
			reachesPast = true
		}
		clamped[i] = e
	}
	out, err := applyIndependently(content, clamped, enc)
	if err != nil {
		return "", err
	}
	if reachesPast {
		out = strings.TrimSuffix(out, "\n")
	}
	if eol {
		out += "\n"
	}
	return out, nil
}
