package tools

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// sessionSandbox is a bubblewrap sandbox over tw whose foreground
// commands run in a persistent session supervised by this test binary
// (TestMain), closed at the test's end.
func sessionSandbox(t *testing.T, tw *testWorkspace, home string) *sandbox.Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test", Supervisor: []string{exe, sandbox.SupervisorArg}}, tw.ws.Roots, home, "")
	if err != nil {
		t.Fatal(err)
	}
	if sb.Session() == nil {
		t.Fatal("a bubblewrap sandbox given a supervisor has no session")
	}
	t.Cleanup(func() { _ = sb.Close() })
	return sb
}

// A command run in the session's persistent sandbox is reported to the
// model and the user exactly as one run in a bwrap of its own (but its
// process group's number): output, its limit, exit codes, a signal, the
// inactivity timeout, what it left in the background, its environment,
// limits and capabilities, and the sandbox's note.
func TestShellInSessionReportsAsABwrapOfItsOwn(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, map[string]string{"sub/f.txt": ""})
	home := t.TempDir()
	perCommand, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test"}, tw.ws.Roots, home, "")
	if err != nil {
		t.Fatal(err)
	}
	session := sessionSandbox(t, tw, home)
	pgid := regexp.MustCompile(`(?m)^Process Group PGID: \d+$`)
	for _, tt := range []struct {
		command    string
		inactivity time.Duration
	}{
		{command: "echo out; echo err >&2; exit 3"},
		{command: "ls; pwd"},
		{command: "env | sort; id; ulimit -a; grep ^Cap /proc/self/status"},
		{command: "kill -TERM $$"},
		{command: "head -c 100000 /dev/zero | tr '\\0' a"},
		{command: "echo owned > ~/owned.txt"},
		{command: "sleep 30 & echo started"},
		{command: "echo started; sleep 30", inactivity: 300 * time.Millisecond},
	} {
		args := map[string]any{"command": tt.command, "dir_path": "sub"}
		want := runShell(t, tw, ShellOptions{Door: doorOf(perCommand), Inactivity: tt.inactivity}, args)
		got := runShell(t, tw, ShellOptions{Door: doorOf(session), Inactivity: tt.inactivity}, args)
		wantOut, gotOut := pgid.ReplaceAllString(want.Output, ""), pgid.ReplaceAllString(got.Output, "")
		if gotOut != wantOut || got.Status != want.Status || got.Display != want.Display {
			t.Errorf("%s: in the session\n%q (%v, %q)\nin a bwrap of its own\n%q (%v, %q)", tt.command, gotOut, got.Status, got.Display, wantOut, want.Status, want.Display)
		}
	}
}

// Two commands of a session run in one sandbox: one pid namespace.
func TestShellInSessionSharesOneSandbox(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, nil)
	sb := sessionSandbox(t, tw, t.TempDir())
	ns := regexp.MustCompile(`pid:\[\d+\]`)
	var seen []string
	for range 2 {
		out, _ := shellOutput(t, runShell(t, tw, ShellOptions{Door: doorOf(sb)}, map[string]any{"command": "readlink /proc/self/ns/pid"}))
		seen = append(seen, ns.FindString(out))
	}
	if seen[0] == "" || seen[0] != seen[1] {
		t.Errorf("the two commands ran in pid namespaces %q, want one", seen)
	}
}

// What a bwrap of its own cannot show: a command that kills every
// process it may signal (kill -9 -1) kills the session's supervisor too.
// Its call fails saying the sandbox ended, and the next command runs in
// a new sandbox.
func TestShellInSessionOutlivesACommandKillingItsSandbox(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, nil)
	sb := sessionSandbox(t, tw, t.TempDir())
	call := build(t, tw.tool(ShellName, Options{Shell: ShellOptions{Door: doorOf(sb)}}), map[string]any{"command": "kill -9 -1; echo after"})
	if _, err := call.Execute(t.Context(), CallInfo{}); err == nil || !strings.Contains(err.Error(), "the sandbox ended") {
		t.Errorf("a command killing its sandbox: %v, want the sandbox's end", err)
	}
	out, _ := shellOutput(t, runShell(t, tw, ShellOptions{Door: doorOf(sb)}, map[string]any{"command": "echo next"}))
	if out != "Output: next\n" {
		t.Errorf("the next command:\n%s", out)
	}
}

// A command that failed in the session's sandbox is noted as one of the
// session's, which may differ from a bwrap of its own's (with the
// network on and a socket named, the session keeps the host's abstract
// sockets out where the kernel can).
func TestShellInSessionTellsTheSessionsNote(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Network: true, AllowedSockets: []string{"/nonexistent/agent.sock"}, Why: "test",
		Supervisor: []string{exe, sandbox.SupervisorArg}}, tw.ws.Roots, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	got := runShell(t, tw, ShellOptions{Door: doorOf(sb)}, map[string]any{"command": "exit 3"})
	if !strings.Contains(got.Output, "\nSandbox: "+sb.Session().Note()) {
		t.Errorf("the model was not given the session's note %q:\n%s", sb.Session().Note(), got.Output)
	}
}

// A command stopped for printing nothing too long failed for that, not
// for the sandbox: neither the model nor the user is told it may be the
// sandbox's refusal, which a command that ended on its own with an
// error is.
func TestAStoppedCommandIsNotBlamedOnTheSandbox(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, nil)
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test"}, tw.ws.Roots, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	opts := ShellOptions{Door: doorOf(sb), Inactivity: 300 * time.Millisecond}
	stopped := runShell(t, tw, opts, map[string]any{"command": "echo started; sleep 30"})
	if !strings.HasPrefix(stopped.Output, "Command was automatically cancelled") || strings.Contains(stopped.Output, "Sandbox:") || strings.Contains(stopped.Display, "Sandboxed:") {
		t.Errorf("a stopped command:\n%s\n%s", stopped.Output, stopped.Display)
	}
	failed := runShell(t, tw, opts, map[string]any{"command": "exit 3"})
	if !strings.Contains(failed.Output, "\nSandbox: "+sb.Note()) || !strings.Contains(failed.Display, "Sandboxed: "+sb.Describe()) {
		t.Errorf("a failed command:\n%s\n%s", failed.Output, failed.Display)
	}
}
