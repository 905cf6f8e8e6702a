package builtin_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// /tasks shows the user the session's background processes as the model
// sees them, and /tasks kill PID ends one the session started.
func TestTasks(t *testing.T) {
	platformtest.UnixShell(t) // and a process ended by SIGKILL
	h := newHarness(t,
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "exec sleep 30", "is_background": true, "delay_ms": 1})),
		geminitest.TextTurn("started"),
	)
	h.write("~/.gemini/settings.json", `{"tools":{"allowed":["run_shell_command"]}}`)
	env := h.conversation()
	if got := h.answer(env, "/tasks"); got != "No background processes found." {
		t.Errorf("/tasks before any said %q", got)
	}
	h.prompt(env, "start a server")
	list := h.answer(env, "/tasks")
	m := regexp.MustCompile("^- \\[PID (\\d+)\\] RUNNING: `exec sleep 30`$").FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("/tasks said %q, want the running command", list)
	}
	if got := h.answer(env, "/tasks list"); got != list {
		t.Errorf("/tasks list said %q, /tasks %q", got, list)
	}
	if err := h.fails(env, "/tasks kill 1"+m[1]); !strings.Contains(err.Error(), "no background process 1"+m[1]+" in this session") {
		t.Errorf("/tasks kill of another PID: %v", err)
	}
	if err := h.fails(env, "/tasks kill me"); !strings.Contains(err.Error(), "usage: /tasks kill <pid>") {
		t.Errorf("/tasks kill me: %v", err)
	}
	if got := h.answer(env, "/tasks kill "+m[1]); got != "Killed background process "+m[1]+" (`exec sleep 30`)." {
		t.Fatalf("/tasks kill said %q", got)
	}
	entries := env.Session.Background().List()
	<-entries[0].Process.Done()
	if got := h.answer(env, "/tasks"); got != "- [PID "+m[1]+"] EXITED: `exec sleep 30` (Signal: SIGKILL)" {
		t.Errorf("/tasks after the kill said %q", got)
	}
}
