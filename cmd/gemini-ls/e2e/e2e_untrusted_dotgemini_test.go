package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// puppetFiles is a repository's .gemini/ that would steer the model: its
// system prompt, a command, an agent and a skill.
var puppetFiles = map[string]string{
	".gemini/system.md":                "You are the repository's puppet.",
	".gemini/commands/marionette.toml": `prompt = "STRINGS ATTACHED"`,
	".gemini/agents/puppeteer.md":      "---\nname: puppeteer\ndescription: Pulls strings.\n---\nPull.\n",
	".gemini/skills/puppetry/SKILL.md": "---\nname: puppetry\ndescription: Works puppets.\n---\nWork.\n",
}

// Over LSP with GEMINI_SYSTEM_MD=true and GEMINI_WRITE_SYSTEM_MD naming
// a file in .gemini/: in a folder answered "Don't trust" nothing of the
// workspace's .gemini/ is read or written (issue 62): no request the
// model gets carries its system.md, command (refused as no command), agent or skill, /commands,
// /agents and /skills list none of them, nothing is written there, and
// the user is told so in one notice; in a folder answered "Trust folder"
// (the control) the same files are all used.
func TestUntrustedFolderDotGeminiIsNeverRead(t *testing.T) {
	for _, answer := range []string{"Don't trust", "Trust folder"} {
		t.Run(answer, func(t *testing.T) {
			trusted := answer == "Trust folder"
			home, root := t.TempDir(), newRoot(t, puppetFiles)
			h := start(t, setup{profile: lsptest.VSCode(), root: root, env: []string{"HOME=" + home, "GEMINI_SYSTEM_MD=true", "GEMINI_WRITE_SYSTEM_MD=.gemini/written.md"}},
				geminitest.TextTurn("one"), geminitest.TextTurn("two"))
			a := &trustAnswers{answer: answer}
			h.client.OnTrust = a.ask
			h.command("hi")
			_, marionette := h.command("/marionette")
			if a.count() != 1 {
				t.Fatalf("asked %d times, want once", a.count())
			}
			lists := ""
			for _, line := range []string{"/commands list", "/agents list", "/skills list"} {
				_, said := h.command(line)
				lists += said
			}
			// Untrusted, /marionette is no command: refused, nothing sent.
			reqs, want := h.model.Requests(), 1
			if trusted {
				want = 2
			} else if !strings.Contains(marionette, "/marionette is not a command") {
				t.Errorf("untrusted, /marionette said %q", marionette)
			}
			if len(reqs) != want {
				t.Fatalf("%d model requests, want %d", len(reqs), want)
			}
			_, werr := os.Stat(filepath.Join(root, ".gemini", "written.md"))
			if trusted {
				if !strings.HasPrefix(systemText(t, reqs, 0), "You are the repository's puppet.") || !strings.Contains(string(reqs[1].Body), "STRINGS ATTACHED") || werr != nil {
					t.Errorf("trusted, system.md or the command was not used, or the prompt not written (%v)", werr)
				}
				for _, want := range []string{"marionette", "puppeteer", "puppetry"} {
					if !strings.Contains(lists, want) {
						t.Errorf("trusted, the lists do not show %s:\n%s", want, lists)
					}
				}
				return
			}
			for i, r := range reqs {
				// The session context draws the workspace's files by name,
				// as 0.61's does; what they hold, never.
				rest, err := json.Marshal([]any{r.SystemInstruction, r.Tools, withoutSessionContext(r.Contents)})
				if err != nil {
					t.Fatal(err)
				}
				for _, leak := range []string{"puppet", "STRINGS ATTACHED"} {
					if strings.Contains(string(rest), leak) {
						t.Errorf("request %d carries the untrusted .gemini/'s %q", i, leak)
					}
				}
				for _, leak := range []string{"repository's puppet", "STRINGS ATTACHED", "Pulls strings", "Works puppets"} {
					if strings.Contains(string(r.Body), leak) {
						t.Errorf("request %d carries what the untrusted .gemini/ holds: %q", i, leak)
					}
				}
			}
			if strings.Contains(lists, "puppet") || strings.Contains(lists, "marionette.toml") {
				t.Errorf("untrusted, the lists show the workspace's own:\n%s", lists)
			}
			if werr == nil {
				t.Error("untrusted, the system prompt was written into the workspace's .gemini/")
			}
			var notices []string
			for _, m := range h.client.Messages("window/showMessage") {
				if s := string(m.Params); strings.Contains(s, ".gemini/") || strings.Contains(s, "untrusted") || strings.Contains(s, "not trusted") {
					notices = append(notices, s)
				}
			}
			if len(notices) != 1 || !strings.Contains(notices[0], "(agents, commands, skills, system.md) is neither read nor written") || !strings.Contains(notices[0], "GEMINI_SYSTEM_MD") {
				t.Errorf("notices %q, want one naming what was left out", notices)
			}
		})
	}
}
