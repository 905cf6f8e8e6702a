package conversation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// commandHost is a host over a fake model that answers turns, with one
// live session of a trusted root: what every front end runs a prompt in.
type commandHost struct {
	t     *testing.T
	f     *chanFront
	model *geminitest.Server
	id    string
	home  string
}

func newCommandHost(t *testing.T, settingsJSON string, turns ...geminitest.Turn) *commandHost {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), settingsJSON)
	model := geminitest.NewTestServer(t, turns...)
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	t.Cleanup(built.Close)
	return &commandHost{t: t, f: f, model: model, id: f.host.Open(built, false, struct{}{}).ID(), home: home}
}

// said is what line did: the answer's text, or why it was not run.
func (h *commandHost) said(line string) string {
	h.t.Helper()
	o := h.f.host.Prompt(h.t.Context(), h.id, dialog.Input{Text: line}, h.f)
	switch o.Ending {
	case conversation.Done:
		return o.Text
	case conversation.NotRun:
		return "not run: " + o.NotRun.Error()
	}
	return fmt.Sprintf("ended %v (%s)", o.Ending, o.Explanation())
}

// Each of Gemini CLI 0.61's other names of a command (its altNames, and
// /help's documented "/?") runs that command, in every front end (they
// all run prompts through the host), and none asks the model: before
// these names, each went to the model as a prompt.
func TestOtherNamesRunTheirCommand(t *testing.T) {
	// A server that fails to start, for /mcp to list.
	h := newCommandHost(t, `{"mcpServers": {"broken": {"command": "/nonexistent/server"}}}`)
	h.said("/chat save t1") // for /chat load
	h.said("/tools")        // waits for the servers: /mcp lists them as they end
	for _, c := range []struct{ other, command string }{
		{"/resume", "/chat"},
		{"/resume list", "/chat list"},
		{"/chat load t1", "/chat resume t1"},
		{"/resume checkpoints list", "/chat list"},
		{"/chat checkpoint list", "/chat list"},
		{"/new", "/clear"},
		{"/summarize", "/compress"},
		{"/compact", "/compress"},
		{"/dir show", "/directory show"},
		{"/usage", "/stats"},
		{"/usage model", "/stats model"},
		{"/bg", "/tasks"},
		{"/background", "/tasks"},
		{"/?", "/help"},
		{"/exit", "/quit"},
		{"/mcp ls", "/mcp list"},
		{"/mcp nodesc", "/mcp list"},
		{"/mcp nodescription", "/mcp list"},
		{"/mcp description", "/mcp desc"},
		{"/mcp refresh", "/mcp reload"},
		{"/tools nodesc", "/tools list"},
		{"/tools nodescriptions", "/tools"},
		{"/tools descriptions", "/tools desc"},
		{"/memory refresh", "/memory reload"},
		{"/skills refresh", "/skills reload"},
		{"/agents refresh", "/agents reload"},
		{"/commands refresh", "/commands reload"},
		{"/auth login", "/auth signin"},
		{"/auth logout", "/auth signout"},
		{"/extensions restart nothere", "/extensions reload nothere"},
		{"/extensions delete nothere", "/extensions uninstall nothere"},
		{"/hooks list", "/hooks panel"},
		{"/hooks show", "/hooks"},
		{"/hooks enableall", "/hooks enable-all"},
		{"/hooks disableall", "/hooks disable-all"},
	} {
		want := h.said(c.command)
		if got := h.said(c.other); got != want || got == "" {
			t.Errorf("%s said %q\nwant what %s said: %q", c.other, got, c.command, want)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the commands made %d model requests", n)
	}
}

// Every other name of every built-in is in the test above: a name added
// to the table is tested to run its command.
func TestEveryOtherNameIsTested(t *testing.T) {
	tested := map[string]bool{
		"resume": true, "load": true, "checkpoints": true, "checkpoint": true, "new": true, "summarize": true,
		"compact": true, "dir": true, "usage": true, "bg": true, "background": true, "?": true, "exit": true,
		"ls": true, "nodesc": true, "nodescription": true, "description": true, "nodescriptions": true,
		"descriptions": true, "refresh": true, "login": true, "logout": true,
		"restart": true, "delete": true, "list": true, "show": true,
		"enableall": true, "disableall": true,
	}
	for _, b := range builtin.Table() {
		for _, name := range b.AltNames {
			if !tested[name] {
				t.Errorf("/%s's other name /%s is not tested", b.Name, name)
			}
		}
		for _, s := range b.Subcommands {
			for _, name := range append(slices.Clone(s.AltNames), hiddenName(s)...) {
				if !tested[name] {
					t.Errorf("/%s %s's other name %q is not tested", b.Name, s.Name, name)
				}
			}
		}
	}
}

// hiddenName is s's name when it is not listed: it is run only as
// another name is.
func hiddenName(s builtin.Builtin) []string {
	if s.Hidden {
		return []string{s.Name}
	}
	return nil
}

// One of the user's commands named as a built-in's other name is the
// user's, as Gemini CLI looks names up before other names: /help no
// longer lists the built-in under it, and the prompt runs the user's.
func TestAUserCommandTakesAnOtherName(t *testing.T) {
	h := newCommandHost(t, "{}", geminitest.TextTurn("It is /stats."))
	writeFile(t, filepath.Join(h.home, ".gemini", "commands", "usage.toml"), "description = \"Mine\"\nprompt = \"Explain the usage.\"\n")
	help := h.said("/help")
	if !strings.Contains(help, "- `/stats` — ") || !strings.Contains(help, "- `/usage` — Mine (user)") {
		t.Errorf("/help with a user's /usage:\n%s", help)
	}
	if got := h.said("/usage"); got != "It is /stats." {
		t.Errorf("/usage answered %q", got)
	}
	reqs := h.model.Requests()
	if len(reqs) != 1 || !strings.Contains(fmt.Sprint(contentTexts(reqs[0])), "Explain the usage.") {
		t.Errorf("/usage sent %d requests, want the user's command's prompt", len(reqs))
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func contentTexts(req geminitest.Request) []string {
	var out []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			out = append(out, p.Text)
		}
	}
	return out
}
