package builtin_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// /auth signout forgets the cached Google login as Gemini CLI 0.61 does:
// oauth_creds.json goes, the active account of google_accounts.json joins
// the old ones, and security.auth.selectedType leaves the user's
// settings, the rest of them kept.
func TestAuthSignOut(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	creds := h.write("~/.gemini/oauth_creds.json", `{"access_token": "a", "refresh_token": "r"}`)
	accounts := h.write("~/.gemini/google_accounts.json", `{"active": "me@example.com", "old": ["before@example.com"]}`)
	userSettings := h.write("~/.gemini/settings.json", `{"security": {"auth": {"selectedType": "oauth-personal"}}, "model": {"name": "gemini-2.5-pro"}}`)

	got := h.answer(env, "/auth signout")
	if !strings.HasPrefix(got, "Signed out: the cached Google login was removed.") || !strings.Contains(got, "security.auth.selectedType was removed from "+userSettings) {
		t.Errorf("/auth signout said %q", got)
	}
	if _, err := os.Stat(creds); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after signing out: %v", creds, err)
	}
	var acc struct {
		Active *string  `json:"active"`
		Old    []string `json:"old"`
	}
	if data, err := os.ReadFile(accounts); err != nil || json.Unmarshal(data, &acc) != nil || acc.Active != nil || strings.Join(acc.Old, ",") != "before@example.com,me@example.com" {
		t.Errorf("google_accounts.json after signing out: %s, %v", data, err)
	}
	if data, err := os.ReadFile(userSettings); err != nil || strings.Contains(string(data), "selectedType") || !strings.Contains(string(data), `"gemini-2.5-pro"`) {
		t.Errorf("settings.json after signing out: %s, %v", data, err)
	}
	if got := h.answer(env, "/auth signout"); got != "There was no cached Google login to remove." {
		t.Errorf("/auth signout again said %q", got)
	}
	if got := h.answer(env, "/auth"); !strings.HasPrefix(got, "Auth: gemini-api-key (from environment).") || !strings.Contains(got, "gemini-ls login") {
		t.Errorf("/auth said %q", got)
	}
}

// /bug answers the URL of a new gemini-ls issue titled with what followed
// it, with what runs in it; advanced.bugCommand.urlTemplate changes the
// URL, filled as Gemini CLI 0.61 fills it.
func TestBug(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	got := h.answer(env, "/bug Crash on save & more")
	link, ok := strings.CutPrefix(got, "To submit your bug report, please open the following URL in your browser:\n")
	if !ok || !strings.HasPrefix(link, "https://github.com/gemini-ls/gemini-ls/issues/new?title=Crash%20on%20save%20%26%20more&body=Crash%20on%20save%20%26%20more%0A%0A") {
		t.Fatalf("/bug said %q", got)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	body := u.Query().Get("body")
	for _, want := range []string{"Crash on save & more\n\n", "* **gemini-ls Version:** 1.2.3-test", "* **Session ID:** " + env.Session.ID(), "* **Auth Type:** gemini-api-key", "* **Model Version:** gemini-2.5-pro"} {
		if !strings.Contains(body, want) {
			t.Errorf("the report's body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(link, "test-key") {
		t.Errorf("the report holds the API key: %s", link)
	}

	h.write(".gemini/settings.json", `{"advanced": {"bugCommand": {"urlTemplate": "https://bugs.example.com/new?t={title}&d={info}&p={problem}&t2={title}"}}}`)
	got = h.answer(h.conversation(), "/bug it broke")
	if !strings.Contains(got, "\nhttps://bugs.example.com/new?t=it%20broke&d=%0A%2A%20%2A%2Agemini-ls%20Version") || !strings.HasSuffix(got, "&p=it%20broke&t2={title}") {
		t.Errorf("/bug with a urlTemplate said %q", got)
	}
}

// /commands list lists the custom command files by directory, and those
// skipped; /commands reload says what was read and has the front end
// list the commands anew.
func TestCommandsListAndReload(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/commands/deploy.toml", "prompt = \"Deploy.\"\n")
	h.write("~/.gemini/commands/bad.toml", "prompt = \n")
	h.write(".gemini/commands/git/commit.toml", "prompt = \"Commit.\"\n")
	env := h.conversation()
	got := h.answer(env, "/commands list")
	for _, want := range []string{
		"### User Commands (" + filepath.Join(h.home, ".gemini", "commands") + ")\n- deploy.toml (`/deploy`)\n",
		"### Project Commands (" + filepath.Join(h.root, ".gemini", "commands") + ")\n- git/commit.toml (`/git:commit`)\n",
		"### Skipped\n- custom command " + filepath.Join(h.home, ".gemini", "commands", "bad.toml") + " skipped: ",
		"\n_Note: MCP prompts are dynamically loaded from configured MCP servers._",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/commands list lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "### User") > strings.Index(got, "### Project") {
		t.Errorf("/commands list shows the project's before the user's:\n%s", got)
	}
	if got := h.answer(env, "/commands"); !strings.Contains(got, "deploy.toml") {
		t.Errorf("/commands (list, the default) said %q", got)
	}
	reply, err := h.run(env, "/commands reload")
	if err != nil || !reply.CommandsChanged || reply.Text != "Custom commands reloaded successfully: 2 custom command(s) and 0 MCP prompt(s). 1 file(s) could not be loaded: /commands list names them." {
		t.Errorf("/commands reload: %+v, %v", reply, err)
	}

	if got := h.answer(newHarness(t).conversation(), "/commands list"); got != "No custom command files (.toml) found.\n\n_Note: MCP prompts are dynamically loaded from configured MCP servers._" {
		t.Errorf("/commands list with none said %q", got)
	}
}

// /docs names gemini-ls's documentation, which the binary carries, each
// file with its title.
func TestDocs(t *testing.T) {
	h := newHarness(t)
	got := h.answer(h.conversation(), "/docs")
	for _, want := range []string{"(1.2.3-test) carries them:", "- `README.md` — gemini-ls\n", "- `docs/configuration.md` — Configuring gemini-ls\n", "`@cli_help`", "https://goo.gle/gemini-cli-docs"} {
		if !strings.Contains(got, want) {
			t.Errorf("/docs lacks %q:\n%s", want, got)
		}
	}
}

// /quit runs nothing, there being no terminal to exit, and says how to
// end the conversation; /quit --delete deletes the conversation, its
// history and its saved session, and a prompt after it starts afresh.
func TestQuit(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("noted: 42"), geminitest.TextTurn("What number?"))
	env := h.conversation()
	if err := h.fails(env, "/quit"); !strings.Contains(err.Error(), "there is no terminal to exit here: close the chat") || !strings.Contains(err.Error(), "`/quit --delete` deletes it") {
		t.Errorf("/quit: %v", err)
	}
	if err := h.fails(env, "/quit --now"); !strings.Contains(err.Error(), `unknown option "--now"; usage: /quit [--delete]`) {
		t.Errorf("/quit --now: %v", err)
	}
	if got := h.answer(env, "/quit --delete"); !strings.HasPrefix(got, "The conversation was deleted: its history (nothing of it had been saved).") {
		t.Errorf("/quit --delete before any prompt said %q", got)
	}

	h.prompt(env, "remember 42")
	saved := h.savedSessions()
	if len(saved) != 1 {
		t.Fatalf("saved sessions after a prompt: %q", saved)
	}
	if got := h.answer(env, "/quit --delete"); !strings.HasPrefix(got, "The conversation was deleted: its history, and its saved session. Close the chat") {
		t.Errorf("/quit --delete said %q", got)
	}
	if left := h.savedSessions(); len(left) != 0 {
		t.Errorf("saved sessions after /quit --delete: %q", left)
	}
	h.prompt(env, "what was it?")
	if got := h.lastRequest(); strings.Join(got, "|") != "user:what was it?" {
		t.Errorf("the request after /quit --delete holds %q", got)
	}
	if again := h.savedSessions(); len(again) != 1 {
		t.Errorf("saved sessions after the next prompt: %q", again)
	} else if data, err := os.ReadFile(again[0]); err != nil || strings.Contains(string(data), "remember") || !strings.Contains(string(data), `"title":"what was it?"`) {
		t.Errorf("the session saved again holds %q, %v", data, err)
	}
}

// savedSessions are the session files saved where Gemini CLI saves them.
func (h *harness) savedSessions() []string {
	h.t.Helper()
	files, err := filepath.Glob(filepath.Join(h.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if err != nil {
		h.t.Fatal(err)
	}
	return files
}
