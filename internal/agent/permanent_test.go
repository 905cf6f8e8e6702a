package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// An "always allow" for all future sessions is offered under 0.61's label
// where a saved policy file is configured, saved there as a rule, and
// honoured by an agent that loads that file: the next process asks no
// more.
func TestPermanentApprovalIsSavedAndHonouredNextTime(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "policies")
	saved := filepath.Join(dir, policy.AutoSavedFile)
	conf := always(dialog.ProceedAlwaysAndSave)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{
		Tools:       tools.NewRegistry((&shellTool{}).tool()),
		AlwaysAllow: agent.AlwaysAllow{SavedPolicy: saved}})
	s := a.NewSession()
	if ok, err := s.AllowShell(ctx, "git log", ui.port(nil)); !ok || err != nil {
		t.Fatalf("AllowShell(git log) = %v, %v", ok, err)
	}
	if ok, err := s.AllowShell(ctx, "git status", ui.port(nil)); !ok || err != nil {
		t.Fatalf("AllowShell(git status) = %v, %v", ok, err)
	}
	asked := conf.asked()
	if len(asked) != 1 || !asked[0].CanAllowAlways || asked[0].Permanent != "Allow this command for all future sessions" {
		t.Fatalf("asked %+v, want once, offered the permanent answer; git status covered for the session", asked)
	}
	if _, err := os.Stat(saved); err != nil {
		t.Fatalf("nothing saved: %v", err)
	}

	next := always(dialog.Cancel)
	b, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{
		Tools:  tools.NewRegistry((&shellTool{}).tool()),
		Policy: policy.Load([]policy.Source{{Tier: policy.TierWorkspace, Path: dir}}, true)})
	if ok, err := b.NewSession().AllowShell(ctx, "git diff", front{confirmer: next}.port(nil)); !ok || err != nil || len(next.asked()) != 0 {
		t.Errorf("the next agent: AllowShell(git diff) = %v, %v, asked %+v; want it allowed by the saved rule", ok, err, next.asked())
	}
}

// Without a saved policy file, no permanent answer is offered, only the
// session's "always"; with "always allow" disabled, no "always" is
// offered and an answer of it holds for the call alone.
func TestAlwaysAllowOffers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		allow      agent.AlwaysAllow
		answer     dialog.ConfirmOutcome
		wantAlways bool
		wantAsked  int
	}{
		{"no saved policy", agent.AlwaysAllow{}, dialog.ProceedAlways, true, 1},
		{"disabled", agent.AlwaysAllow{Disabled: true}, dialog.ProceedAlways, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := always(tc.answer)
			ui := front{confirmer: conf}
			a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{Tools: tools.NewRegistry((&shellTool{}).tool()), AlwaysAllow: tc.allow})
			s := a.NewSession()
			for _, command := range []string{"git log", "git status"} {
				if ok, err := s.AllowShell(ctx, command, ui.port(nil)); !ok || err != nil {
					t.Fatalf("AllowShell(%s) = %v, %v", command, ok, err)
				}
			}
			asked := conf.asked()
			if len(asked) != tc.wantAsked {
				t.Fatalf("asked %d times, want %d", len(asked), tc.wantAsked)
			}
			for _, r := range asked {
				if r.CanAllowAlways != tc.wantAlways || r.Permanent != "" {
					t.Errorf("asked %+v, want CanAllowAlways %v and no permanent answer", r, tc.wantAlways)
				}
			}
		})
	}
}

// A model's call of another tool is offered the permanent answer under
// 0.61's "Allow for all future sessions", suggested with
// autoAddToPolicyByDefault, and saved as a rule of the tool's name; a
// shell command is never suggested, as 0.61 deems it unsafe to persist
// by default.
func TestPermanentApprovalOfOtherTools(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "policies")
	saved := filepath.Join(dir, policy.AutoSavedFile)
	allow := agent.AlwaysAllow{SavedPolicy: saved, SaveByDefault: true}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call("probe_tool", nil)), geminitest.TextTurn("ok"))
	conf := always(dialog.ProceedAlwaysAndSave)
	probe := newAnnotatedTool("probe_tool", tools.Annotations{}, &tools.Confirmation{Kind: "fetch", AllowKeys: []string{"probe_tool"}})
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(probe, (&shellTool{}).tool()), AlwaysAllow: allow})
	s := a.NewSession()
	if res, _ := ui.prompt(t, s, "probe"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if ok, err := s.AllowShell(context.Background(), "make", ui.port(nil)); !ok || err != nil {
		t.Fatalf("AllowShell(make) = %v, %v", ok, err)
	}
	asked := conf.asked()
	if len(asked) != 2 {
		t.Fatalf("asked %+v, want twice", asked)
	}
	if asked[0].Permanent != "Allow for all future sessions" || !asked[0].SaveByDefault {
		t.Errorf("asked about probe_tool %+v, want the permanent answer offered and suggested", asked[0])
	}
	if asked[1].Permanent != "Allow this command for all future sessions" || asked[1].SaveByDefault {
		t.Errorf("asked about make %+v, want the permanent answer offered, not suggested", asked[1])
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, true)
	for _, c := range []policy.Call{
		{Name: "probe_tool", Mode: policy.ModeDefault},
		{Name: tools.ShellName, Args: map[string]any{"command": "make test"}, Mode: policy.ModeDefault},
	} {
		if v := e.Check(c); v.Decision != policy.Allow {
			t.Errorf("the saved rules on %s: %+v, want allowed", c.Name, v)
		}
	}
}
