package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// toolHooks records the BeforeTool and AfterTool events it hears, and
// answers each BeforeTool with before's outcome (none when nil).
type toolHooks struct {
	mu     sync.Mutex
	heard  []agent.HookEvent
	before func(agent.HookEvent) agent.HookOutcome
}

func (h *toolHooks) Handles(name string) bool {
	return name == agent.HookBeforeTool || name == agent.HookAfterTool
}

func (h *toolHooks) Fire(_ context.Context, ev agent.HookEvent) agent.HookOutcome {
	if !h.Handles(ev.Name) {
		return agent.HookOutcome{}
	}
	h.mu.Lock()
	h.heard = append(h.heard, ev)
	h.mu.Unlock()
	if ev.Name == agent.HookBeforeTool && h.before != nil {
		return h.before(ev)
	}
	return agent.HookOutcome{}
}

// events are the events of name heard, in the order they came.
func (h *toolHooks) events(name string) []agent.HookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []agent.HookEvent
	for _, ev := range h.heard {
		if ev.Name == name {
			out = append(out, ev)
		}
	}
	return out
}

// inputs are the tool_inputs of the events of name heard, as JSON, sorted
// (calls running at once fire their hooks in any order).
func (h *toolHooks) inputs(name string) []string {
	var out []string
	for _, ev := range h.events(name) {
		out = append(out, toJSON(ev.Input["tool_input"]))
	}
	slices.Sort(out)
	return out
}

// policyOf is an engine of one user policy file holding rules.
func policyOf(t *testing.T, interactive bool, rules string) *policy.Engine {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.toml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}}, interactive)
	for _, p := range e.Problems() {
		t.Fatalf("policy problem: %s", p)
	}
	return e
}

const secretRules = `
[[rule]]
toolName = "read_file"
argsPattern = '"path":"secret\.txt"'
decision = "deny"
priority = 100
deny_message = "Secrets stay secret."

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "read_file"
argsPattern = '"path":"ask\.txt"'
decision = "ask_user"
priority = 100
`

// As in Gemini CLI 0.61, whose scheduler runs the BeforeTool hooks before
// its policy check: the hooks hear calls a rule then denies, which are
// still denied, without the user being asked about them (the shell
// command would be asked about, were it not denied) and without the
// AfterTool hooks, as they did not run.
func TestBeforeToolHooksHearCallsThePolicyDenies(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "secret.txt"}),
			geminitest.Call(tools.ShellName, map[string]any{"command": "rm -rf build"}),
		),
		geminitest.TextTurn("ok"))
	shell := &shellTool{}
	hooks := &toolHooks{}
	conf := always(dialog.ProceedOnce)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool(), shell.tool()), Hooks: hooks,
		Policy: policyOf(t, true, secretRules)})
	if res, _ := ui.prompt(t, a.NewSession(), "read it"); res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []string{`{"command":"rm -rf build"}`, `{"path":"secret.txt"}`}
	if got := hooks.inputs(agent.HookBeforeTool); !slices.Equal(got, want) {
		t.Errorf("the BeforeTool hooks heard %v, want %v", got, want)
	}
	if got := hooks.events(agent.HookAfterTool); len(got) != 0 {
		t.Errorf("the AfterTool hooks heard denied calls: %v", got)
	}
	if asked := conf.asked(); len(asked) != 0 {
		t.Errorf("the user was asked about denied calls: %+v", asked)
	}
	if ran := shell.commands(); len(ran) != 0 {
		t.Errorf("denied commands ran: %v", ran)
	}
	fr := responses(t, srv.Requests()[1])
	if len(fr) != 2 || fr[0].Response["error"] != "Tool execution denied by policy. Secrets stay secret." ||
		fr[1].Response["error"] != "Tool execution denied by policy." {
		t.Errorf("the model was told %s", toJSON(fr))
	}
}

// A call a BeforeTool hook blocks is not asked about: the hooks run
// before the door's question (Gemini CLI 0.61), and the model is told the
// hook's reason.
func TestBeforeToolHookBlockAsksNobody(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.ShellName, map[string]any{"command": "make"})),
		geminitest.TextTurn("ok"))
	shell := &shellTool{}
	hooks := &toolHooks{before: func(agent.HookEvent) agent.HookOutcome {
		return agent.HookOutcome{Block: true, Reason: "no builds today"}
	}}
	conf := always(dialog.ProceedOnce)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(shell.tool()), Hooks: hooks})
	if res, _ := ui.prompt(t, a.NewSession(), "build"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if asked := conf.asked(); len(asked) != 0 {
		t.Errorf("the user was asked about a call a hook blocked: %+v", asked)
	}
	if ran := shell.commands(); len(ran) != 0 {
		t.Errorf("the blocked command ran: %v", ran)
	}
	if fr := responses(t, srv.Requests()[1]); len(fr) != 1 || fr[0].Response["error"] != "Tool execution blocked: no builds today" {
		t.Errorf("the model was told %s", toJSON(fr))
	}
}

// A call a BeforeTool hook rewrites goes through the door as rewritten,
// once: a rewrite to what a rule denies is denied, one away from it runs
// (Gemini CLI 0.61 checks its policy on the rewritten call), and one a
// rule asks about is asked about with the new arguments.
func TestBeforeToolHookRewriteGoesThroughTheDoor(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "c.txt"}),
			geminitest.Call("read_file", map[string]any{"path": "secret.txt"}),
			geminitest.Call("read_file", map[string]any{"path": "b.txt"}),
		),
		geminitest.TextTurn("ok"))
	rewrites := map[string]string{"c.txt": "secret.txt", "secret.txt": "a.txt", "b.txt": "ask.txt"}
	hooks := &toolHooks{before: func(ev agent.HookEvent) agent.HookOutcome {
		path, _ := ev.Input["tool_input"].(map[string]any)["path"].(string)
		return agent.HookOutcome{ToolInput: map[string]any{"path": rewrites[path]}}
	}}
	conf := always(dialog.ProceedOnce)
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Hooks: hooks,
		Policy: policyOf(t, true, secretRules)})
	if res, _ := ui.prompt(t, a.NewSession(), "read them"); res.Err != nil {
		t.Fatal(res.Err)
	}
	const note = "\n\n[System] Tool input parameters (path) were modified by a hook before execution."
	fr := responses(t, srv.Requests()[1])
	if len(fr) != 3 || fr[0].Response["error"] != "Tool execution denied by policy. Secrets stay secret." ||
		fr[1].Response["output"] != "contents of a.txt"+note || fr[2].Response["output"] != "contents of ask.txt"+note {
		t.Errorf("the model was told %s", toJSON(fr))
	}
	asked := conf.asked()
	if len(asked) != 1 || asked[0].Details != "Read ask.txt" {
		t.Errorf("the user was asked %+v, want once, about the rewritten read of ask.txt", asked)
	}
	want := []string{`{"path":"a.txt"}`, `{"path":"ask.txt"}`}
	if got := hooks.inputs(agent.HookAfterTool); !slices.Equal(got, want) {
		t.Errorf("the AfterTool hooks heard %v, want %v", got, want)
	}
}

// mcpEcho is an MCP server's tool as internal/tools/mcp makes it: named
// mcp_srv_echo, reached by its older name echo too, and telling hooks of
// its server.
type mcpEcho struct{ fakeTool }

func (mcpEcho) OlderNames() []string             { return []string{"echo"} }
func (mcpEcho) MCPOrigin() (server, tool string) { return "srv", "echo" }
func (mcpEcho) MCPContext() map[string]any {
	return map[string]any{"server_name": "srv", "tool_name": "echo", "command": "srv-bin"}
}

// source offers its tools as an MCP manager does.
type source []tools.Tool

func (s source) Tools() []tools.Tool { return s }

// The BeforeTool and AfterTool hooks of an MCP tool's call hear it by its
// Gemini CLI 0.61 name, mcp_SERVER_TOOL, also when the model called it by
// the name gemini-ls gave it before, and with its server's mcp_context,
// as 0.61's hooks do; a built-in's hooks have none.
func TestToolHooksHearMCPCallsAsGeminiCLI061(t *testing.T) {
	echo := mcpEcho{fakeTool{name: "mcp_srv_echo", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "echo", kind: dialog.KindOther, exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Output: "echoed"}, nil
		}}, nil
	}}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("echo", map[string]any{"path": "old"})),
		geminitest.CallTurn(geminitest.Call("mcp_srv_echo", map[string]any{"path": "new"})),
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("ok"))
	reg := tools.NewRegistry(readTool())
	reg.AddSource(source{echo})
	hooks := &toolHooks{}
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Hooks: hooks})
	if res, _ := prompt(t, a.NewSession(), "echo"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, name := range []string{agent.HookBeforeTool, agent.HookAfterTool} {
		evs := hooks.events(name)
		if len(evs) != 3 {
			t.Fatalf("%s hooks heard %d calls, want 3", name, len(evs))
		}
		for _, ev := range evs[:2] {
			if ev.Target != "mcp_srv_echo" || ev.Input["tool_name"] != "mcp_srv_echo" || !reflect.DeepEqual(ev.Input["mcp_context"], echo.MCPContext()) {
				t.Errorf("%s hook of %v heard %q: %v", name, ev.Input["tool_input"], ev.Target, ev.Input)
			}
		}
		if ev := evs[2]; ev.Target != "read_file" || ev.Input["tool_name"] != "read_file" || ev.Input["mcp_context"] != nil {
			t.Errorf("%s hook of read_file heard %q: %v", name, ev.Target, ev.Input)
		}
	}
	if fr := responses(t, srv.Requests()[1]); len(fr) != 1 || fr[0].Name != "echo" || fr[0].Response["output"] != "echoed" {
		t.Errorf("the call by the older name was answered %s", toJSON(fr))
	}
}

// recordingHooks handle the events named in handled, and record every
// event they are asked to fire.
type recordingHooks struct {
	handled []string
	mu      sync.Mutex
	fired   []string
}

func (h *recordingHooks) Handles(name string) bool { return slices.Contains(h.handled, name) }

func (h *recordingHooks) Fire(_ context.Context, ev agent.HookEvent) agent.HookOutcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fired = append(h.fired, ev.Name)
	return agent.HookOutcome{}
}

// Hooks are asked to fire only the events they handle: no event (nor its
// transcript path, which a store looks up on disk) is made for the others.
func TestHooksFireOnlyEventsTheyHandle(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("ok"))
	hooks := &recordingHooks{handled: []string{agent.HookAfterAgent}}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Hooks: hooks})
	if res, _ := prompt(t, a.NewSession(), "read it"); res.Err != nil {
		t.Fatal(res.Err)
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if !slices.Equal(hooks.fired, []string{agent.HookAfterAgent}) {
		t.Errorf("fired %v, want only %s", hooks.fired, agent.HookAfterAgent)
	}
}

// A BeforeTool hook's decision "ask" has the user asked about the call
// whatever would let it run unasked, as Gemini CLI 0.61 forces ask_user:
// in yolo mode, and a read that needs no approval at all; with no
// "always" offered. Headless, with nobody to ask, the call is refused.
func TestBeforeToolHookAskAsksTheUser(t *testing.T) {
	for _, tc := range []struct {
		name        string
		interactive bool
	}{{"with a user", true}, {"headless", false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(
					geminitest.Call(tools.ShellName, map[string]any{"command": "git push --force"}),
					geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
				),
				geminitest.TextTurn("ok"))
			shell := &shellTool{}
			hooks := &toolHooks{before: func(agent.HookEvent) agent.HookOutcome { return agent.HookOutcome{Ask: true} }}
			conf := always(dialog.ProceedOnce)
			ui := front{confirmer: conf}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(shell.tool(), readTool()), Hooks: hooks,
				ApprovalMode: dialog.ApprovalYolo, Policy: policyOf(t, tc.interactive, "")})
			if res, _ := ui.prompt(t, a.NewSession(), "push"); res.Err != nil {
				t.Fatal(res.Err)
			}
			asked, ran := conf.asked(), shell.commands()
			fr := responses(t, srv.Requests()[1])
			if !tc.interactive {
				if len(asked) != 0 || len(ran) != 0 || len(fr) != 2 || !strings.Contains(toJSON(fr[0].Response["error"]), "BeforeTool hook asked for the user's approval") {
					t.Errorf("headless: asked %+v, ran %v, the model was told %s", asked, ran, toJSON(fr))
				}
				return
			}
			if len(asked) != 2 || asked[0].CanAllowAlways || asked[1].Details != "Read a.txt" {
				t.Errorf("asked %+v, want both calls, offering no always", asked)
			}
			if len(ran) != 1 || fr[1].Response["output"] != "contents of a.txt" {
				t.Errorf("ran %v, the model was told %s", ran, toJSON(fr))
			}
		})
	}
}

// A BeforeTool hook's tool_input is the call's arguments, whole, as in
// Gemini CLI 0.61 (its scheduler builds the call from it alone): an
// argument the model gave and the hook left out is gone. The call runs
// with them, the AfterTool hooks hear them, and telemetry logs the call
// with them (Gemini CLI's suite reads that log: "should override tool
// input parameters via BeforeTool hook"); the history keeps the model's.
func TestBeforeToolHookInputReplacesTheArguments(t *testing.T) {
	var mu sync.Mutex
	var ran []map[string]any
	probe := fakeTool{name: "probe", build: func(args map[string]any) (tools.Call, error) {
		return fakeCall{title: "probe", kind: dialog.KindRead, exec: func(context.Context) (tools.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, args)
			return tools.Result{Output: "probed"}, nil
		}}, nil
	}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("probe", map[string]any{"path": "original.txt", "limit": 3})),
		geminitest.TextTurn("ok"))
	hooks := &toolHooks{before: func(agent.HookEvent) agent.HookOutcome {
		return agent.HookOutcome{ToolInput: map[string]any{"path": "modified.txt"}}
	}}
	rec := &recorded{}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(probe), Hooks: hooks, Telemetry: rec})
	if res, _ := prompt(t, a.NewSession(), "probe it"); res.Err != nil {
		t.Fatal(res.Err)
	}
	want := map[string]any{"path": "modified.txt"}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 1 || !reflect.DeepEqual(ran[0], want) {
		t.Errorf("the call ran with %v, want the hook's %v alone", ran, want)
	}
	if got := hooks.inputs(agent.HookAfterTool); !slices.Equal(got, []string{`{"path":"modified.txt"}`}) {
		t.Errorf("the AfterTool hooks heard %v", got)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) != 1 || !reflect.DeepEqual(rec.calls[0].Args, want) {
		t.Errorf("telemetry logged the call with %+v, want %v", rec.calls, want)
	}
	fr := responses(t, srv.Requests()[1])
	// limit, which the hook left out, is gone: the model is told so too.
	if len(fr) != 1 || fr[0].Response["output"] != "probed\n\n[System] Tool input parameters (limit, path) were modified by a hook before execution." {
		t.Errorf("the model was told %s", toJSON(fr))
	}
	var called []map[string]any
	for _, c := range srv.Requests()[1].Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				called = append(called, p.FunctionCall.Args)
			}
		}
	}
	if len(called) != 1 || !reflect.DeepEqual(called[0], map[string]any{"path": "original.txt", "limit": float64(3)}) {
		t.Errorf("the history says the model called %v, not what it asked for", called)
	}
}
