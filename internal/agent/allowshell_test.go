package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A command run for the user (a custom command's !{…}) is decided as a
// run_shell_command call of it is: tools.allowed and yolo let it run
// unasked; else the port is asked the shell call's question.
func TestAllowShellDecidedAsShellCalls(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		cfg     agent.Config
		command string
		answer  dialog.ConfirmOutcome
		allowed bool
		asked   bool
	}{
		{"tools.allowed names its root command", agent.Config{AllowedKeys: []string{"git"}}, "git log --oneline", dialog.Cancel, true, false},
		{"tools.allowed names another", agent.Config{AllowedKeys: []string{"git"}}, "git log; rm -rf x", dialog.ProceedOnce, true, true},
		{"yolo", agent.Config{ApprovalMode: dialog.ApprovalYolo}, "rm -rf x", dialog.Cancel, true, false},
		{"auto_edit still asks", agent.Config{ApprovalMode: dialog.ApprovalAutoEdit}, "ls", dialog.ProceedOnce, true, true},
		{"declined", agent.Config{}, "ls", dialog.Cancel, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := always(tc.answer)
			tc.cfg.Tools = tools.NewRegistry((&shellTool{}).tool())
			ui := front{confirmer: conf}
			a, _ := newAgent(t, geminitest.NewTestServer(t), tc.cfg)
			allowed, err := a.NewSession().AllowShell(ctx, tc.command, ui.port(nil))
			if err != nil || allowed != tc.allowed {
				t.Errorf("AllowShell = %v, %v; want %v", allowed, err, tc.allowed)
			}
			asked := conf.asked()
			if (len(asked) > 0) != tc.asked {
				t.Fatalf("asked %+v, want asked=%v", asked, tc.asked)
			}
			if tc.asked && (asked[0].Kind != "execute" || asked[0].Title != "Allow shell command?" || asked[0].Details != tc.command || asked[0].CallID != "") {
				t.Errorf("asked %+v, want the shell call's question about %q", asked[0], tc.command)
			}
		})
	}
}

// "Always allow" given to a !{git …} covers the model's later git calls,
// and one given to the model's call covers a later !{…}: one record.
func TestAllowShellSharesAlwaysAllowWithShellCalls(t *testing.T) {
	ctx := context.Background()
	srv := geminitest.NewTestServer(t, shellTurn("git status", "ls"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	conf := always(dialog.ProceedAlways)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	s := a.NewSession()
	if allowed, err := s.AllowShell(ctx, "git log", ui.port(nil)); !allowed || err != nil {
		t.Fatalf("AllowShell(git log) = %v, %v", allowed, err)
	}
	ui.prompt(t, s, "look")
	if allowed, err := s.AllowShell(ctx, "ls -la", ui.port(nil)); !allowed || err != nil {
		t.Fatalf("AllowShell(ls -la) = %v, %v", allowed, err)
	}
	var details []string
	for _, r := range conf.asked() {
		details = append(details, r.Details)
	}
	if want := []string{"git log", "ls"}; !slices.Equal(details, want) {
		t.Errorf("asked about %q, want %q (git status and ls -la covered by the answers before)", details, want)
	}
	// The two calls of one answer run at once: which ran, not in what order.
	if got := slices.Sorted(slices.Values(sh.commands())); !slices.Equal(got, []string{"git status", "ls"}) {
		t.Errorf("ran %q", got)
	}
}

// Where nobody can be asked, AllowShell says so with ErrCannotAsk, from
// the port or for want of one.
func TestAllowShellNobodyToAsk(t *testing.T) {
	ctx := context.Background()
	a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{})
	if allowed, err := a.NewSession().AllowShell(ctx, "ls", nil); allowed || !errors.Is(err, dialog.ErrCannotAsk) {
		t.Errorf("without a port: %v, %v; want ErrCannotAsk", allowed, err)
	}
	nobody := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		return dialog.Cancel, errors.Join(dialog.ErrCannotAsk, errors.New("headless"))
	}}
	ui := front{confirmer: nobody}
	b, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{})
	if allowed, err := b.NewSession().AllowShell(ctx, "ls", ui.port(nil)); allowed || !errors.Is(err, dialog.ErrCannotAsk) {
		t.Errorf("with a Confirmer that cannot ask: %v, %v; want ErrCannotAsk", allowed, err)
	}
}

// A command run for the user passes the policy rules as the model's calls
// do: denied even in yolo, allowed without asking, or asked about even in
// yolo.
func TestAllowShellFollowsPolicyRules(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rules := `
[[rule]]
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
commandPrefix = "git"
decision = "allow"
priority = 100

[[rule]]
commandPrefix = "make"
decision = "ask_user"
priority = 100
`
	if err := os.WriteFile(filepath.Join(dir, "rules.toml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	engine := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, true)
	for _, tc := range []struct {
		mode    dialog.ApprovalMode
		command string
		allowed bool
		asked   bool
	}{
		{dialog.ApprovalYolo, "rm -rf x", false, false},
		{dialog.ApprovalDefault, "git log", true, false},
		{dialog.ApprovalYolo, "make all", true, true},
	} {
		conf := always(dialog.ProceedOnce)
		ui := front{confirmer: conf}
		a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{ApprovalMode: tc.mode, Policy: engine, Tools: tools.NewRegistry((&shellTool{}).tool())})
		allowed, err := a.NewSession().AllowShell(ctx, tc.command, ui.port(nil))
		if allowed != tc.allowed || (err != nil) != !tc.allowed {
			t.Errorf("%s in %s: AllowShell = %v, %v; want %v", tc.command, tc.mode, allowed, err, tc.allowed)
		}
		if !tc.allowed && (err == nil || !strings.Contains(err.Error(), "Tool execution denied by policy.")) {
			t.Errorf("%s: error %v, want the policy's denial", tc.command, err)
		}
		if asked := len(conf.asked()) > 0; asked != tc.asked {
			t.Errorf("%s in %s: asked=%v, want %v", tc.command, tc.mode, asked, tc.asked)
		}
	}
}
