package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// The built-ins that are not prompts answer over ACP without a model
// request: /help lists the commands with their subcommands, and /chat
// saves, lists and resumes a conversation, /clear empties it; the model
// is asked only for the user's prompts, and the one after /chat resume
// carries the saved turns.
func TestACPBuiltinsAnswerWithoutTheModel(t *testing.T) {
	h := startACP(t, acpSetup{}, geminitest.TextTurn("Hello, Ada."), geminitest.TextTurn("You are Ada."))
	requests := func(want int) {
		t.Helper()
		if n := len(h.model.Requests()); n != want {
			t.Fatalf("%d model requests, want %d", n, want)
		}
	}
	if got := h.command("/help"); !strings.Contains(got, "- `/chat` (or `/resume`) — ") || !strings.Contains(got, "  - `resume <tag>` (or `load`) — ") || !strings.Contains(got, "- `/help` (or `/?`) — ") {
		t.Errorf("/help said %q", got)
	}
	if got := h.command("/chat list"); !strings.HasPrefix(got, "No saved conversation checkpoints found") {
		t.Errorf("/chat list said %q", got)
	}
	requests(0)

	h.command("my name is Ada")
	if got := h.command("/chat save ada"); got != "Conversation checkpoint saved with tag: ada." {
		t.Errorf("/chat save said %q", got)
	}
	if got := h.command("/chat save"); got != "Missing tag; usage: /chat save <tag>." {
		t.Errorf("/chat save without a tag said %q", got)
	}
	if got := h.command("/clear"); got != "The conversation was cleared: the next prompt starts afresh." {
		t.Errorf("/clear said %q", got)
	}
	if got := h.command("/chat list"); !strings.Contains(got, "- `ada` (saved ") {
		t.Errorf("/chat list said %q", got)
	}
	if got := h.command("/chat resume ada"); !strings.HasPrefix(got, "Resumed the conversation saved as ada") {
		t.Errorf("/chat resume said %q", got)
	}
	requests(1)

	h.command("who am I?")
	c := withoutSessionContext(h.model.Requests()[1].Contents)
	if len(c) != 3 || c[0].Parts[0].Text != "my name is Ada" || c[1].Parts[0].Text != "Hello, Ada." || c[2].Parts[0].Text != "who am I?" {
		t.Errorf("the prompt after /chat resume sent %d contents", len(c))
	}
}

// Over ACP, /commands reload has the client list the commands again
// (available_commands_update), a command file added since among them;
// a built-in's other name (/usage, /exit) runs it without the model.
func TestACPCommandsReloadAndOtherNames(t *testing.T) {
	home := t.TempDir()
	h := startACP(t, acpSetup{home: home})
	if got := h.command("/usage"); !strings.Contains(got, "- Prompts: 0") {
		t.Errorf("/usage said %q", got)
	}
	if got := h.command("/exit"); !strings.HasPrefix(got, "There is no terminal to exit here") {
		t.Errorf("/exit said %q", got)
	}
	file := filepath.Join(home, ".gemini", "commands", "greet.toml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("prompt = \"Say hello.\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := len(h.client.Updates())
	if got := h.command("/commands reload"); !strings.HasPrefix(got, "Custom commands reloaded successfully: 1 custom command(s)") {
		t.Errorf("/commands reload said %q", got)
	}
	listed := false
	for _, u := range h.since(n) {
		if a := u.AvailableCommandsUpdate; a != nil {
			listed = slices.ContainsFunc(a.AvailableCommands, func(c sdk.AvailableCommand) bool { return c.Name == "greet" })
		}
	}
	if !listed {
		t.Error("no available_commands_update listing /greet after /commands reload")
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the commands made %d model requests", n)
	}
}
