package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The model is told what really became of its edit, whatever the editor
// answered: these are the editors whose answer is not the whole truth.

// Neovim answers applied: true to an edit it did not apply as proposed.
// The user typed as the edit arrived (Neovim sends didChange 150 ms late,
// so the server proposed against the old version): Neovim skips an edit
// for an older version, or applies one for version 0 (just opened, never
// checked) at its old positions. The model must not hear that the user
// modified its proposal.
func TestNeovimStaleEditIsNotApplied(t *testing.T) {
	const drafted = aGo + "// draft\n"
	for _, profile := range []func() lsptest.Profile{lsptest.Neovim07, lsptest.Neovim} {
		for _, tc := range []struct {
			name    string
			before  string // typed before the prompt, "" for none (version 0)
			typed   string // typed as the edit arrives
			outcome string // the buffer then
		}{
			{"skipped", drafted, "// user was here\n" + drafted, "// user was here\n" + drafted},
			{"misplaced at version 0", "", "// user was here\n" + aGo, "// user was here\npackage a\n2\nfunc A() int { return 1 }\n"},
		} {
			t.Run(profile().Name+"/"+tc.name, func(t *testing.T) {
				h := start(t, setup{profile: profile(), files: map[string]string{"a.go": aGo}}, editTurns()...)
				h.open("a.go")
				if tc.before != "" {
					if err := h.client.Type(h.ctx, h.path("a.go"), tc.before); err != nil {
						t.Fatal(err)
					}
				}
				h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
					if err := h.client.Type(ctx, h.path("a.go"), tc.typed); err != nil {
						t.Error(err)
					}
					return lsptest.Answer{Apply: true}
				}
				h.prompt(map[string]any{"prompt": "return 2"})
				h.wantOutput(1, "error: The file "+h.path("a.go")+" changed before this change could be applied, so it did not land as proposed "+
					"(the document changed in the editor before the edit reached it, and the editor did not apply it as proposed, although it answered that it did). "+
					"The file now contains:\n"+tc.outcome)
				h.wantBuffer("a.go", tc.outcome)
				h.waitLog(`"msg":"applyEdit answered","path":"` + h.path("a.go") + `","applied":true`)
			})
		}
	}
}

// A new file holds exactly what the model wrote in every editor, stock
// Neovim included (it loads the empty file as one empty line and would
// keep that line after an insertion). A file the model wrote without a
// final line break gets the one Neovim adds, and still counts as written.
func TestNewFileLandsAsProposedInEveryEditor(t *testing.T) {
	for _, tc := range []struct {
		profile func() lsptest.Profile
		opts    map[string]any
	}{
		{lsptest.Plugin, nil},
		{lsptest.NeovimPlugin, nil},
		{lsptest.VSCode, nil},
		{lsptest.Eglot, nil},
		{lsptest.Neovim07, nil},
		{lsptest.Neovim, nil},
		{lsptest.Helix, map[string]any{"approvalMode": "auto_edit"}},
	} {
		p := tc.profile()
		for _, content := range []string{"# Changes\n", "no final line break"} {
			t.Run(p.Name+"/"+content, func(t *testing.T) {
				h := start(t, setup{profile: p, opts: tc.opts},
					call("write_file", map[string]any{"file_path": "notes/CHANGES.md", "content": content}),
					geminitest.TextTurn("done"),
				)
				if err := mkdir(h.path("notes")); err != nil {
					t.Fatal(err)
				}
				h.prompt(map[string]any{"prompt": "write notes"})
				output := "Successfully created and wrote to new file: " + h.path("notes/CHANGES.md")
				want := content
				if p.VimLSP && !strings.HasSuffix(content, "\n") {
					want += "\n" // Neovim's 'fixeol'
					output += " The editor added a line break at the end of the file."
				}
				h.wantOutput(1, output)
				h.wantBuffer("notes/CHANGES.md", want)
			})
		}
	}
}

// eglot sends didChange only once Emacs is idle, after it answered the
// applyEdit. gemini.prompt answers at once, so Emacs is idle during the
// turn and the edit's didChange comes while the outcome is awaited: the
// model is told what the buffer really holds.
func TestEglotEditThroughTheCommand(t *testing.T) {
	const want = "package a\n\nfunc A() int { return 2 }\n"
	t.Run("agrees", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		h.command("return 2")
		h.wantOutput(1, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
		h.wantBuffer("a.go", want)
		if m := h.client.Messages("window/logMessage"); len(m) != 0 {
			t.Errorf("warnings: %s", m)
		}
	})
	t.Run("disagrees", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Eglot(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		// The editor says it applied the proposal but holds something else.
		other := "package a\n\nfunc A() int { return 3 }\n"
		h.client.OnApplyEdit = func(context.Context, lsptest.Edit) lsptest.Answer {
			return lsptest.Answer{Apply: true, Text: map[string]string{h.path("a.go"): other}}
		}
		h.command("return 2")
		out := strings.Join(h.toolOutputs(1), "")
		contains(t, "tool output", out, "return 3")
		if strings.Contains(out, "Successfully modified") {
			t.Errorf("the model was told the edit landed as proposed: %q", out)
		}
		h.wantBuffer("a.go", other)
	})
}
