package conversation_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// rebuilding is a host over a fake model, and a shared build of its
// whose agent, when closed, runs a SessionEnd hook that leaves ended.
type rebuilding struct {
	f           *chanFront
	built       *conversation.Build
	model       *geminitest.Server
	home, ended string
}

func rebuildHost(t *testing.T, turns ...geminitest.Turn) rebuilding {
	t.Helper()
	sh := osshell.Local() // whose hook the tests of the ending wait for
	home, root := t.TempDir(), t.TempDir()
	ended := filepath.Join(t.TempDir(), "ended")
	model := geminitest.NewTestServer(t, turns...)
	env := map[string]string{
		"HOME": home, "USERPROFILE": home, "PATH": os.Getenv("PATH"), "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	f := newChanFront(conversation.Config{Getenv: func(k string) string { return env[k] }, Retry: dialog.RetryPolicy{MaxAttempts: 1}})
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	built, err := f.host.Build(t.Context(), conversation.Place{Workspace: ws, Overlay: map[string]any{
		"hooksConfig": map[string]any{"enabled": true},
		"hooks": map[string]any{"SessionEnd": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "name": "end", "command": "echo ended > " + sh.Quote(ended)},
		}}}},
	}})
	if err != nil || built.AuthErr() != nil {
		t.Fatal(err, built.AuthErr())
	}
	t.Cleanup(built.Close)
	return rebuilding{f: f, built: built, model: model, home: home, ended: ended}
}

// declares reports whether req offers the model tool name.
func declares(req geminitest.Request, name string) bool {
	for _, tool := range req.Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				return true
			}
		}
	}
	return false
}

// An agent made anew under live sessions (Host.Rebuild) does not end the
// one a turn still runs in: that agent is closed once the turn ends, and
// the session continues in the new agent from its next turn.
func TestRebuildWaitsForTheRunningTurn(t *testing.T) {
	platformtest.LocalShell(t) // to run the SessionEnd hook
	r := rebuildHost(t, geminitest.Turn{Hang: true}, geminitest.TextTurn("Done."))
	f, built, model, ended := r.f, r.built, r.model, r.ended
	live := f.host.Open(built, false, struct{}{})
	outcome := make(chan conversation.Outcome, 1)
	go func() { outcome <- f.host.Prompt(t.Context(), live.ID(), dialog.Input{Text: "hang"}, f) }()
	if _, err := model.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}

	if err := f.host.Rebuild(t.Context(), built); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ended); err == nil {
		t.Fatal("the agent a turn runs in was closed when it was made anew")
	}
	f.host.Cancel(live.ID())
	if o := <-outcome; o.Ending != conversation.Cancelled {
		t.Fatalf("the turn that ran across the rebuild: %+v", o)
	}
	if _, err := os.Stat(ended); err != nil {
		t.Errorf("the agent replaced was not closed once its turn ended: %v", err)
	}

	if o := f.host.Prompt(t.Context(), live.ID(), dialog.Input{Text: "again"}, f); o.Ending != conversation.Done || o.Text != "Done." {
		t.Errorf("the session's next prompt, in the new agent: %+v", o)
	}
}

// An agent no turn runs in is closed as soon as it is replaced, and the
// sessions of the build continue in the new one, which reads the
// settings anew.
func TestRebuildClosesAnIdleAgent(t *testing.T) {
	platformtest.LocalShell(t) // to run the SessionEnd hook
	r := rebuildHost(t, geminitest.TextTurn("First."), geminitest.TextTurn("Second."))
	f, built, ended := r.f, r.built, r.ended
	live := f.host.Open(built, false, struct{}{})
	if o := f.host.Prompt(t.Context(), live.ID(), dialog.Input{Text: "one"}, f); o.Text != "First." {
		t.Fatalf("the first prompt: %+v", o)
	}
	writeFile(t, filepath.Join(r.home, ".gemini", "settings.json"), `{"tools": {"exclude": ["run_shell_command"]}}`)
	if err := f.host.Rebuild(t.Context(), built); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ended); err != nil {
		t.Errorf("the agent replaced, idle, was not closed: %v", err)
	}
	o := f.host.Prompt(t.Context(), live.ID(), dialog.Input{Text: "two"}, f)
	if o.Ending != conversation.Done || o.Text != "Second." {
		t.Fatalf("the second prompt: %+v", o)
	}
	if l, ok := f.host.Lookup(live.ID()); !ok || len(l.RewindPoints()) != 2 {
		t.Errorf("the session in the new agent does not hold both prompts: %v", ok)
	}
	reqs := r.model.Requests()
	if !declares(reqs[0], "run_shell_command") || declares(reqs[len(reqs)-1], "run_shell_command") {
		t.Errorf("the second prompt did not run in the agent made anew, whose settings exclude run_shell_command")
	}
}

// The settings a front end changed (Build.Reload, LSP's
// workspace/didChangeConfiguration) hold in the agent made anew.
func TestRebuildKeepsTheSettingsChanged(t *testing.T) {
	r := rebuildHost(t)
	f, built := r.f, r.built
	if _, _, err := built.Reload(map[string]any{"model": map[string]any{"name": "gemini-2.5-flash"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.host.Rebuild(context.WithoutCancel(t.Context()), built); err != nil {
		t.Fatal(err)
	}
	if got := f.host.Model(built); got != "gemini-2.5-flash" {
		t.Errorf("the model after the rebuild: %s, want the one the settings changed to", got)
	}
}
