package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// "Always allow" scoped to a command's prefix allows the lines that
// start with it and nothing more: not another subcommand of the same
// program, and not a line that also runs what nobody allowed (the
// policy engine's judge reads it command by command).
func TestAlwaysAllowPrefixAllowsThePrefixOnly(t *testing.T) {
	ctx := context.Background()
	answer := dialog.ProceedAlwaysPrefix
	conf := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		o := answer
		answer = dialog.ProceedOnce // only the first question scopes an "always"
		return o, nil
	}}
	ui := front{confirmer: conf}
	a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{Tools: tools.NewRegistry((&shellTool{}).tool())})
	s := a.NewSession()
	for _, tc := range []struct {
		command string
		asked   bool
	}{
		{"go test ./internal/...", true},
		{"go test -run TestX ./...", false},
		{"go test ./a && go test ./b", false},
		{"go vet ./...", true},
		{"go test ./...; rm -rf x", true},
		{"go test ./... | tee log", true},
		{"go test $(rm -rf x)", true},
		{"go test ./... > out.txt", true},
		{"gotest ./...", true},
		{"rm -rf x", true},
	} {
		before := len(conf.asked())
		if allowed, err := s.AllowShell(ctx, tc.command, ui.port(nil)); !allowed || err != nil {
			t.Fatalf("AllowShell(%q) = %v, %v", tc.command, allowed, err)
		}
		if asked := len(conf.asked()) > before; asked != tc.asked {
			t.Errorf("%q: asked = %v, want %v", tc.command, asked, tc.asked)
		}
	}
	first := conf.asked()[0]
	if !slices.Equal(first.AlwaysPrefixes, []string{"go test"}) || !slices.Equal(first.AlwaysCommands, []string{"go"}) || !first.CanAllowAlways {
		t.Errorf("the first question offers prefixes %q and commands %q (always %v), want [go test] and [go]", first.AlwaysPrefixes, first.AlwaysCommands, first.CanAllowAlways)
	}
}

// A prefix is offered only where it is narrower than the command's
// name, and never where "always" is not.
func TestAlwaysAllowPrefixOffered(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		command  string
		prefixes []string
	}{
		{"go test ./...", []string{"go test"}},
		{"ls -la", nil},
		{"cd sub && npm run build", []string{"cd", "npm run"}},
		{"git status | grep x", []string{"git status", "grep"}},
		{"echo hi", nil},
		{"git status > out.txt", nil}, // asked every time
		{`"go" test`, nil},            // written otherwise than it reads
	} {
		conf := always(dialog.ProceedOnce)
		ui := front{confirmer: conf}
		a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{Tools: tools.NewRegistry((&shellTool{}).tool())})
		if _, err := a.NewSession().AllowShell(ctx, tc.command, ui.port(nil)); err != nil {
			t.Fatal(err)
		}
		if got := conf.asked()[0].AlwaysPrefixes; !slices.Equal(got, tc.prefixes) {
			t.Errorf("%q offers prefixes %q, want %q", tc.command, got, tc.prefixes)
		}
	}
}

// The question about a shell call names the directory it runs in: its
// dir_path, resolved, or else the workspace's root, never a stand-in.
func TestShellQuestionNamesItsDirectory(t *testing.T) {
	root, err := filepath.EvalSymlinks(os.TempDir()) // the fake shell's workspace
	if err != nil {
		t.Fatal(err)
	}
	sub, err := os.MkdirTemp(root, "dir")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sub) })
	turn := geminitest.Turn{Chunks: []geminitest.Chunk{
		{Call: geminitest.Call("run_shell_command", map[string]any{"command": "go test ./...", "dir_path": sub})},
		{Call: geminitest.Call("run_shell_command", map[string]any{"command": "go vet ./..."})},
	}}
	conf := always(dialog.ProceedOnce)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, geminitest.NewTestServer(t, turn, geminitest.TextTurn("ok")), agent.Config{Tools: tools.NewRegistry((&shellTool{}).tool())})
	ui.prompt(t, a.NewSession(), "test")
	var dirs []string
	for _, r := range conf.asked() {
		d, _ := filepath.EvalSymlinks(r.Dir)
		dirs = append(dirs, d)
	}
	if want := []string{sub, root}; !slices.Equal(dirs, want) {
		t.Errorf("the questions name directories %q, want %q", dirs, want)
	}
}
