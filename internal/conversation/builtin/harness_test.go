package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// harness is a user's machine: a home, a project, and the fake Gemini
// API; each conversation on it is built as a front end builds one.
type harness struct {
	t     *testing.T
	home  string
	root  string
	model *geminitest.Server
	env   map[string]string
	// unattended builds conversations nobody can be asked in (headless),
	// where a plan is approved at once.
	unattended bool
	// showAuthURL is setup.Options'.
	showAuthURL func(server, authURL string)
}

func newHarness(t *testing.T, turns ...geminitest.Turn) *harness {
	t.Helper()
	h := &harness{t: t, home: t.TempDir(), root: t.TempDir(), model: geminitest.NewTestServer(t, turns...)}
	h.env = map[string]string{
		"HOME": h.home, "USERPROFILE": h.home,
		"GEMINI_API_KEY": "test-key",
		// A concrete model, as a user could name it: no routing classifier
		// request ahead of the prompt's in the fake's script.
		"GEMINI_MODEL":                    "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          h.model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(h.home, "no-system-settings.json"),
		// Custom commands and MCP servers load only in a trusted folder.
		"GEMINI_CLI_TRUST_WORKSPACE": "true",
	}
	return h
}

// write puts text in the file at path (relative to home with "~/").
func (h *harness) write(path, text string) string {
	h.t.Helper()
	if rest, ok := cutHome(path); ok {
		path = filepath.Join(h.home, rest)
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(h.root, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return path
}

func cutHome(path string) (string, bool) {
	if len(path) > 2 && path[:2] == "~/" {
		return path[2:], true
	}
	return "", false
}

// conversation is a new process's conversation: a fresh build of the
// agent over the same home and project, and a new session in it.
func (h *harness) conversation() builtin.Env {
	h.t.Helper()
	ws, err := workspace.New([]string{h.root}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	built, err := setup.Build(context.Background(), setup.Options{
		Workspace: ws,
		Getenv:    func(k string) string { return h.env[k] },
		Version:   "1.2.3-test",
		// A request the test did not script fails at once.
		Retry:       dialog.RetryPolicy{MaxAttempts: 1},
		Warn:        func(what string, err error) { h.t.Logf("warning: %s: %v", what, err) },
		Unattended:  h.unattended,
		ShowAuthURL: h.showAuthURL,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if built.AuthErr != nil {
		h.t.Fatal(built.AuthErr)
	}
	h.t.Cleanup(built.Close)
	env := builtin.Env{Session: built.Agent.NewSession(), Built: built, Root: h.root, Version: "1.2.3-test"}
	for _, b := range builtin.Table() {
		env.Commands = append(env.Commands, b.Command)
	}
	// As conversation.Commands lists them (which this package cannot
	// import: it is the conversation's).
	custom, errs := commands.Load(context.Background(), settings.UserDir(built.Getenv), h.root, built.Trust.Trusted(h.root))
	var dirs []commands.ExtensionDir
	for _, e := range built.Extensions.Active() {
		dirs = append(dirs, commands.ExtensionDir{Name: e.Name, Dir: e.CommandsDir()})
	}
	ext, extErrs := commands.LoadExtensions(context.Background(), dirs, custom, func(name string) bool { b, ok := builtin.Find(name); return ok && b.Name == name }, built.Trust.Trusted(h.root))
	errs = append(errs, extErrs...)
	custom = append(custom, ext...)
	env.User = commands.ReadUserCommands(context.Background(), custom, errs, built.Tools)
	env.Commands = append(env.Commands, env.User.List...)
	return env
}

// run runs line, a "/name args" naming a built-in, as a front end does.
func (h *harness) run(env builtin.Env, line string) (builtin.Reply, error) {
	h.t.Helper()
	inv, ok := commands.Parse(line)
	if !ok {
		h.t.Fatalf("%q is not a command", line)
	}
	b, ok := builtin.Find(inv.Name)
	if !ok {
		h.t.Fatalf("%q names no built-in", line)
	}
	return b.Invoke(context.Background(), env, inv.Args)
}

// answer runs line, which must answer without a model call.
func (h *harness) answer(env builtin.Env, line string) string {
	h.t.Helper()
	before := len(h.model.Requests())
	reply, err := h.run(env, line)
	if err != nil {
		h.t.Fatalf("%s: %v", line, err)
	}
	if reply.Input != nil {
		h.t.Fatalf("%s asked to prompt the model: %+v", line, reply.Input)
	}
	if n := len(h.model.Requests()); n != before {
		h.t.Fatalf("%s made %d model request(s)", line, n-before)
	}
	return reply.Text
}

// fails runs line, which must fail without a model call.
func (h *harness) fails(env builtin.Env, line string) error {
	h.t.Helper()
	before := len(h.model.Requests())
	reply, err := h.run(env, line)
	if err == nil {
		h.t.Fatalf("%s answered %q, want an error", line, reply.Text)
	}
	if n := len(h.model.Requests()); n != before {
		h.t.Fatalf("%s made %d model request(s)", line, n-before)
	}
	return err
}

// prompt sends text to the model in env's session.
func (h *harness) prompt(env builtin.Env, text string) dialog.PromptResult {
	h.t.Helper()
	res, err := env.Session.Prompt(context.Background(), dialog.Input{Text: text}, nil)
	if err != nil || res.Err != nil {
		h.t.Fatalf("prompt %q: %v, %v", text, err, res.Err)
	}
	return res
}

// lastRequest is the contents of the model's last request.
func (h *harness) lastRequest() []string {
	h.t.Helper()
	reqs := h.model.Requests()
	if len(reqs) == 0 {
		h.t.Fatal("no model request")
	}
	var texts []string
	for _, c := range reqs[len(reqs)-1].Contents {
		text := c.Role + ":"
		for _, p := range c.Parts {
			// The session context that begins a conversation is not
			// what these tests are about.
			if !strings.HasPrefix(p.Text, "<session_context>") {
				text += p.Text
			}
		}
		texts = append(texts, text)
	}
	return texts
}
