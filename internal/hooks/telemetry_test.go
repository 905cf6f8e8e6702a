package hooks_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// hookCalls is a telemetry.Recorder that keeps the hook calls it hears.
type hookCalls struct {
	telemetry.Nop
	mu    sync.Mutex
	calls []telemetry.HookCall
}

func (h *hookCalls) HookCall(e telemetry.HookCall) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, e)
}

func (h *hookCalls) byName(name string) (telemetry.HookCall, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := slices.IndexFunc(h.calls, func(c telemetry.HookCall) bool { return c.Name == name })
	if i < 0 {
		return telemetry.HookCall{}, false
	}
	return h.calls[i], true
}

// TestEveryHookRunIsTold: each hook of an event that ran is one
// gemini_cli.hook_call, with what Gemini CLI 0.61's HookCallEvent
// carries: its name (else its command), exit code, success (exit code
// 0), stdout and stderr, the input it read, and its output as 0.61 reads
// it (its JSON; plain text as the decision 0.61 makes of it); a hook that
// timed out has no exit code and says why.
func TestEveryHookRunIsTold(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are command lines
	rec := &hookCalls{}
	named := func(name, cmd string, timeoutMS float64) settings.HookCommand {
		return settings.HookCommand{Type: "command", Name: name, Command: cmd, Timeout: timeoutMS}
	}
	r, problems := hooks.New(hooks.Config{
		Sources: []hooks.Source{{Name: "settings", Hooks: settings.Hooks{agent.HookBeforeTool: {def("",
			named("json", `echo '{"decision":"allow","reason":"fine"}'`, 0),
			named("warns", `echo 'lint crashed' >&2; exit 1`, 0),
			named("text", `echo 'all good'`, 0),
			named("slow", `sleep 30`, 200),
			command(`echo '"{\"decision\":\"allow\"}"'`, 0),
		)}}}},
		ProjectDir: t.TempDir(),
		Telemetry:  rec,
	})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	fire(t, r, beforeTool("run_shell_command", map[string]any{"command": "ls"}))
	if len(rec.calls) != 5 {
		t.Fatalf("%d hook calls told, want 5: %+v", len(rec.calls), rec.calls)
	}
	for _, c := range rec.calls {
		if c.Event != agent.HookBeforeTool || c.Type != "command" || c.SessionID != "s-1" ||
			c.Input["hook_event_name"] != agent.HookBeforeTool || c.Input["tool_name"] != "run_shell_command" {
			t.Errorf("%s: event %q type %q session %q input %v", c.Name, c.Event, c.Type, c.SessionID, c.Input)
		}
	}
	check := func(name string, code *int, success bool, output map[string]any, stdout, stderr, errText string) {
		t.Helper()
		c, ok := rec.byName(name)
		if !ok {
			t.Fatalf("no hook call of %q", name)
		}
		if (code == nil) != (c.ExitCode == nil) || code != nil && *code != *c.ExitCode || c.Success != success {
			t.Errorf("%s: exit code %v success %v", name, c.ExitCode, c.Success)
		}
		got, _ := c.Output.(map[string]any)
		if len(got) != len(output) || !mapsEqual(got, output) {
			t.Errorf("%s: output %#v, want %#v", name, c.Output, output)
		}
		if c.Stdout != stdout || c.Stderr != stderr || !strings.Contains(c.Error, errText) || (errText == "") != (c.Error == "") {
			t.Errorf("%s: stdout %q stderr %q error %q", name, c.Stdout, c.Stderr, c.Error)
		}
	}
	zero, one := 0, 1
	check("json", &zero, true, map[string]any{"decision": "allow", "reason": "fine"}, "{\"decision\":\"allow\",\"reason\":\"fine\"}\n", "", "")
	check("warns", &one, false, map[string]any{"decision": "allow", "systemMessage": "Warning: lint crashed"}, "", "lint crashed\n", "")
	check("text", &zero, true, map[string]any{"decision": "allow", "systemMessage": "all good"}, "all good\n", "", "")
	check("slow", nil, false, nil, "", "", "timed out")
	check(`echo '"{\"decision\":\"allow\"}"'`, &zero, true, map[string]any{"decision": "allow"}, "\"{\\\"decision\\\":\\\"allow\\\"}\"\n", "", "")
}

func mapsEqual(a, b map[string]any) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
