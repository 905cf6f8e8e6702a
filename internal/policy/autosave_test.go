package policy_test

import (
	"github.com/gemini-ls/gemini-ls/internal/tools"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// What Save writes is a policy file Load reads back as rules of
// priority tier + 0.950, as Gemini CLI 0.61's updater writes it: a shell
// command's names as commandPrefix, an MCP tool by its server, each
// rule once however often it is saved; an unreadable file is kept as
// .bak and started afresh.
func TestSaveWritesRulesLoadReads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "policies")
	path := filepath.Join(dir, policy.AutoSavedFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[[rule]\nbroken"), 0o644); err != nil {
		t.Fatal(err)
	}
	modes := []policy.Mode{policy.ModeDefault, policy.ModeAutoEdit, policy.ModeYolo}
	shell := policy.SavedRule{ToolName: tools.ShellName, CommandPrefix: []string{"git", "ls"}, Modes: modes}
	mcp := policy.SavedRule{ToolName: "echo", MCPName: "tester", Modes: modes}
	for _, r := range []policy.SavedRule{shell, mcp, shell} {
		if err := policy.Save(t.Context(), path, r); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(path + ".bak"); err != nil || string(b) != "[[rule]\nbroken" {
		t.Errorf(".bak = %q, %v; want the broken file kept", b, err)
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, true)
	if p := e.Problems(); len(p) != 0 {
		t.Fatalf("problems %v", p)
	}
	rules := e.Rules()
	var saved []*policy.Rule
	for _, r := range rules {
		if policy.IsAlwaysAllow(r) {
			saved = append(saved, r)
		}
	}
	// git and ls, each its own rule as commandPrefix lists them, and echo.
	if len(saved) != 3 {
		t.Fatalf("%d always-allow rules, want 3: %+v", len(saved), saved)
	}
	for _, r := range saved {
		if r.Priority != 4.95 || r.Decision != policy.Allow || len(r.Modes) != 3 {
			t.Errorf("rule %+v, want an allow of priority 4.95 in default, autoEdit and yolo", r)
		}
	}
	for _, c := range []policy.Call{
		{Name: tools.ShellName, Args: map[string]any{"command": "git status"}, Mode: policy.ModeDefault},
		{Name: policy.MCPToolName("tester", "echo"), Server: "tester", Mode: policy.ModeAutoEdit},
	} {
		if v := e.Check(c); v.Decision != policy.Allow {
			t.Errorf("%s: %+v, want allowed by the saved rule", c.Name, v)
		}
	}
	if v := e.Check(policy.Call{Name: tools.ShellName, Args: map[string]any{"command": "git status"}, Mode: policy.ModePlan}); v.Decision == policy.Allow {
		t.Error("the saved rule allows in plan mode, stricter than it was given in")
	}
	if v := e.WithoutAlwaysAllow().Check(policy.Call{Name: tools.ShellName, Args: map[string]any{"command": "git status"}, Mode: policy.ModeDefault}); v.Decision == policy.Allow {
		t.Error("WithoutAlwaysAllow kept the saved rule")
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "[[rule]]"); n != 2 {
		t.Errorf("%d [[rule]] in\n%s\nwant 2: the shell rule saved twice is one", n, b)
	}
}

// Rules saved at once, by several sessions, are all kept, each save
// waiting for the others' lock; a save waits for a fresh lock on the
// file, and gives up, the file unchanged, on one never released.
func TestSaveHonoursTheLock(t *testing.T) {
	const n = 12
	path := filepath.Join(t.TempDir(), "policies", policy.AutoSavedFile)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- policy.Save(t.Context(), path, policy.SavedRule{ToolName: fmt.Sprint("tool", i)})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if !strings.Contains(string(text), fmt.Sprintf("toolName = \"tool%d\"\n", i)) {
			t.Errorf("the rule of tool%d was lost:\n%s", i, text)
		}
	}
	locktest.Waits(t, path, func(ctx context.Context) error {
		return policy.Save(ctx, path, policy.SavedRule{ToolName: "waited"})
	})
	if text, _ := os.ReadFile(path); !strings.Contains(string(text), `"waited"`) || !strings.Contains(string(text), `"tool0"`) {
		t.Errorf("after the wait the file is\n%s", text)
	}
	locktest.Refused(t, path, func(ctx context.Context) error {
		return policy.Save(ctx, path, policy.SavedRule{ToolName: "refused"})
	})
}
