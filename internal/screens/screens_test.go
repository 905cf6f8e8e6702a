package screens

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestMask(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// The transcript path of a session, two runs apart.
		{"Transcript: /tmp/tmp.wcpPyNuMcj/state/gemini-ls/transcripts/P4UETHKABSUOHLA7DPYLWNCUIW.md",
			"Transcript: /tmp/tmp.xxxxxxxxxx/state/gemini-ls/transcripts/xxxxxxxxxxxxxxxxxxxxxxxxxx.md"},
		{"Transcript: /tmp/tmp.bTUzmGlOPZ/state/gemini-ls/transcripts/238fd3da-344e-4a25-9faa-8c3deb48804f.md",
			"Transcript: /tmp/tmp.xxxxxxxxxx/state/gemini-ls/transcripts/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.md"},
		// A gemini.prompt transcript's day and id, not its title.
		{"Transcript: /tmp/tmp.bTUzmGlOPZ/state/gemini-ls/transcripts/2026-11-24-make-greet-say-hi-238fd3da.md",
			"Transcript: /tmp/tmp.xxxxxxxxxx/state/gemini-ls/transcripts/xxxx-xx-xx-make-greet-say-hi-xxxxxxxx.md"},
		{" NOR   ~/.local/state/gemini-ls/transcripts/2026-11-24-1a2b3c4d.md    1 sel  1:1",
			" NOR   ~/.local/state/gemini-ls/transcripts/xxxx-xx-xx-xxxxxxxx.md    1 sel  1:1"},
		{"  - OK: gemini-ls found: /tmp/nvimND7afH/1", "  - OK: gemini-ls found: /tmp/nvimxxxxxx/1"},
		{"- ✅ OK gemini-ls found: /tmp/nvim.root/sRz4Jw/0", "- ✅ OK gemini-ls found: /tmp/nvim.root/xxxxxx/0"},
		// A chat window wraps after the first slash.
		{"connecting: cannot start /\n~   │tmp/tmp.DOB94lh8Io/no-such-mcp-server", "connecting: cannot start /\n~   │tmp/tmp.xxxxxxxxxx/no-such-mcp-server"},
		// Emacs's echo area wraps a long line with a backslash.
		{"connecting: cannot start /tmp/tmp.RV5h\\\nkRRBWR/no-such-mcp-server", "connecting: cannot start /tmp/tmp.xxxx\\\nxxxxxx/no-such-mcp-server"},
		// Helix's spinner, at any frame, in the status line only.
		{" NOR ⣽ greet.py [+]    1 sel  48:1\n INS ⢿ shop.py\n \"⣽\" NOR ⣽ x", " NOR ⣾ greet.py [+]    1 sel  48:1\n INS ⣾ shop.py\n \"⣽\" NOR ⣽ x"},
		{"Created project/.agent-shell/transcripts/2026-11-24-01-03-18.md",
			"Created project/.agent-shell/transcripts/xxxx-xx-xx-xx-xx-xx.md"},
		// An agent's elapsed time in Neovim's agents view, its state kept.
		{"● make app.txt greet  working               4s   1.2k tok  no changes\n✓ Write the docs      done              3m 05s  12.3k tok  2 files +14 −2\n? Port it  waiting for you   1h 02m  no changes",
			"● make app.txt greet  working               xs   1.2k tok  no changes\n✓ Write the docs      done              xm xxs  12.3k tok  2 files +14 −2\n? Port it  waiting for you   xh xxm  no changes"},
		// A background agent queued; its task's random digits, wherever the
		// name shows, not its words.
		{"◌ Add a flag  queued                0s     GitHub", "◌ Add a flag  queued                xs     GitHub"},
		{"its work is in .gemini/worktrees/write-cloud-txt-cb25 for review.", "its work is in .gemini/worktrees/write-cloud-txt-xxxx for review."},
		{`<-saying-hello-from-github-cb25": write cloud.txt  ga accept`, `<-saying-hello-from-github-xxxx": write cloud.txt  ga accept`},
		{`land the agent "add-a-flag-3f9a"; bg-add-a-flag-3f9a`, `land the agent "add-a-flag-xxxx"; bg-add-a-flag-xxxx`},
		// What users should see stays.
		{"│ ## You   greet.py   Gemini:asking (gemini-test)  W:1 3,8  All", "│ ## You   greet.py   Gemini:asking (gemini-test)  W:1 3,8  All"},
		{"GEMINI_API_KEY is not set; 2026-11-23", "GEMINI_API_KEY is not set; 2026-11-23"},
		// An all-capitals word of 26 letters is not an id unless it is one
		// by itself.
		{"ABCDEFGHJKMNPQRSTVWXYZ01234", "ABCDEFGHJKMNPQRSTVWXYZ01234"},
	} {
		got := Mask(tc.in)
		if got != tc.want {
			t.Errorf("Mask(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
		if utf8.RuneCountInString(got) != utf8.RuneCountInString(tc.in) {
			t.Errorf("Mask(%q) changed the length: %q", tc.in, got)
		}
	}
}

// Copy writes a picture only where it differs once masked, and tells of
// committed pictures no test took.
func TestCopy(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(from, "a.txt", "session 238fd3da-344e-4a25-9faa-8c3deb48804f\n")
	write(to, "a.txt", "session xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n")
	write(from, "b.txt", "new words\n")
	write(to, "b.txt", "old words\n")
	write(from, "c.png", "\x89PNG same")
	write(to, "c.png", "\x89PNG same")
	write(to, "gone.txt", "nobody takes this\n")
	write(from, "notes.log", "not a picture")
	// Kept pictures no test takes (docs/screenshots/before) are in a
	// folder of their own, which is neither compared nor stale.
	if err := os.Mkdir(filepath.Join(to, "before"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(to, "before"), "old.png", "\x89PNG before")

	res, err := Copy(from, to)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{"b.txt"}) || !slices.Equal(res.Same, []string{"a.txt", "c.png"}) || !slices.Equal(res.Stale, []string{"gone.txt"}) {
		t.Errorf("Copy = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(to, "b.txt")); string(b) != "new words\n" {
		t.Errorf("b.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(to, "gone.txt")); err != nil {
		t.Errorf("a stale picture was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(to, "notes.log")); err == nil {
		t.Error("notes.log, not a picture, was copied")
	}
}

// A browser picture is the same when its pixels differ by no more than
// anti-aliasing does; a mark or a letter, or another size, is a change.
func TestCopyPNG(t *testing.T) {
	pic := func(w int, dot uint8) []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, 4))
		for i := range img.Pix {
			img.Pix[i] = 255
		}
		img.Set(1, 1, color.RGBA{dot, dot, dot, 255})
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, tc := range []struct {
		name      string
		committed []byte
		taken     []byte
		changed   bool
	}{
		{"anti-aliasing", pic(4, 200), pic(4, 202), false},
		{"a mark", pic(4, 200), pic(4, 140), true},
		{"another size", pic(4, 200), pic(5, 200), true},
	} {
		from, to := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(from, "p.png"), tc.taken, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, "p.png"), tc.committed, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Copy(from, to)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(to, "p.png"))
		if changed := len(res.Changed) == 1; changed != tc.changed || bytes.Equal(got, tc.taken) != tc.changed {
			t.Errorf("%s: Copy = %+v, committed picture replaced: %v; want changed %v", tc.name, res, bytes.Equal(got, tc.taken), tc.changed)
		}
	}
}
