package mcp

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A server that says its tools changed while answering a call has them
// listed again before the call returns: the tools offered next are the
// new list, as Gemini CLI 0.61 lists them again on
// notifications/tools/list_changed.
func TestAToolListChangedDuringACallIsOfferedWhenTheCallReturns(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer, Args: []string{"-grow"}}})
	if slices.Contains(names(m), "mcp_alpha_grown") {
		t.Fatal("grown is offered before grow ran")
	}
	if res := run(t, find(t, m, "mcp_alpha_grow"), nil); res.Output != "grew" {
		t.Fatalf("grow = %+v", res)
	}
	if !slices.Contains(names(m), "mcp_alpha_grown") {
		t.Fatalf("after grow, the tools are %v: grown is not among them", names(m))
	}
	if res := run(t, find(t, m, "mcp_alpha_grown"), nil); res.Output != "grown here" {
		t.Errorf("grown = %+v", res)
	}
	if st := m.Servers(); len(st) != 1 || st[0].Tools != 10 {
		t.Errorf("status = %+v, want 10 tools", st)
	}
}

// A disabled server is listed as such and never started; Reload starts
// the servers it is given anew, those added included, leaves off the
// disabled and removed ones, and a tool keeps its name.
func TestReloadStartsTheServersGivenLeavingOffTheDisabled(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	servers := map[string]settings.MCPServer{"alpha": {Command: testServer}, "beta": {Command: testServer, Args: []string{"-extra", "b"}}}
	if err := m.Reload(ctx, servers, map[string]bool{"alpha": true}); err != nil {
		t.Fatal(err)
	}
	got := names(m)
	if slices.Contains(got, "mcp_alpha_echo") || !slices.Contains(got, "mcp_beta_b") {
		t.Errorf("with alpha disabled and beta added, the tools are %v", got)
	}
	st := m.Servers()
	if len(st) != 2 || st[0].State != StateDisabled || st[1].State != StateReady {
		t.Errorf("statuses = %+v, want alpha disabled and beta ready", st)
	}
	if err := m.Reload(ctx, map[string]settings.MCPServer{"alpha": {Command: testServer}}, nil); err != nil {
		t.Fatal(err)
	}
	got = names(m)
	if !slices.Contains(got, "mcp_alpha_echo") || slices.Contains(got, "mcp_beta_b") {
		t.Errorf("with alpha enabled and beta removed, the tools are %v", got)
	}
	if st := m.Servers(); len(st) != 1 || st[0].Name != "alpha" || st[0].State != StateReady {
		t.Errorf("statuses = %+v, want alpha alone, ready", st)
	}
}

// A server disabled from the start is not started.
func TestADisabledServerIsNotStarted(t *testing.T) {
	m := Start(Config{Servers: map[string]settings.MCPServer{"alpha": {Command: testServer}}, Disabled: map[string]bool{"alpha": true}, Dir: t.TempDir()})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if len(m.Tools()) != 0 || m.Servers()[0].State != StateDisabled {
		t.Errorf("tools %v, status %+v: want none, disabled", names(m), m.Servers())
	}
}
