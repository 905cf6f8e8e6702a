package acp

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// terminalShell connects an in-process server to an acptest client with
// cfg, the server believing the client declared caps, and returns the
// run_shell_command tool of a session in a new directory, running
// commands through the session's runner with opts.
func terminalShell(t *testing.T, cfg acptest.Config, caps sdk.ClientCapabilities, opts tools.ShellOptions) (tools.Tool, *session, *acptest.Client) {
	t.Helper()
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	t.Cleanup(func() { toAgent.Close(); toClient.Close() })
	s := newServer(t.Context(), Options{})
	s.client = caps
	s.connect(toAgent, fromAgent)
	client := acptest.New(t, fromClient, toClient, cfg)
	sess := &session{srv: s, id: "s1", cwd: t.TempDir(), log: zap.NewNop(), attached: map[string][]sdk.ToolCallContent{}}
	ws, err := workspace.New([]string{sess.cwd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.Runner = sess.shellRunner()
	shell, ok := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Shell: opts})...).Get(tools.ShellName)
	if !ok {
		t.Fatal("no shell tool")
	}
	return shell, sess, client
}

func runIn(t *testing.T, shell tools.Tool, command string) (tools.Result, error) {
	t.Helper()
	call, err := shell.Build(map[string]any{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	return call.Execute(t.Context(), tools.CallInfo{SessionID: "s1", CallID: "call-1"})
}

// The shell tool's inactivity timeout holds in the client's terminal:
// the terminal is killed and released, and the model told why.
func TestTerminalTimeout(t *testing.T) {
	platformtest.UnixShell(t)
	shell, sess, client := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{Inactivity: 200 * time.Millisecond})
	start := time.Now()
	res, err := runIn(t, shell, "echo started; sleep 30")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a command silent for 200ms took %s to be killed", d)
	}
	if res.Output != "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output. Below is the output before it was cancelled:\nstarted" || res.Status != dialog.StatusError {
		t.Errorf("result %q, %q", res.Output, res.Status)
	}
	terms := client.Terminals()
	if len(terms) != 1 || !terms[0].Killed || !terms[0].Released {
		t.Fatalf("terminals %+v, want one killed and released", terms)
	}
	// The call's final update will show the terminal.
	if got := sess.takeAttached("call-1"); len(got) != 1 || got[0].Terminal == nil || got[0].Terminal.TerminalId != terms[0].ID {
		t.Errorf("attached %+v", got)
	}
}

// A command that keeps printing in the client's terminal runs on past the
// inactivity timeout: its output is read each outputPoll, and each
// change counts. (Lines 0.2 s apart for 4 s, under a 2.5 s limit: 1.5 s
// of margin over the 1 s between reads.)
func TestTerminalPrintingOutlivesTheInactivityTimeout(t *testing.T) {
	platformtest.UnixShell(t)
	shell, _, _ := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{Inactivity: 2500 * time.Millisecond})
	res, err := runIn(t, shell, "for i in $(seq 20); do echo $i; sleep 0.2; done")
	if err != nil {
		t.Fatal(err)
	}
	var printed []string
	for i := 1; i <= 20; i++ {
		printed = append(printed, strconv.Itoa(i))
	}
	// The client's terminal has no process group to tell.
	if want := "Output: " + strings.Join(printed, "\n"); res.Output != want || res.Status != dialog.StatusOK {
		t.Errorf("a command printing every 0.2 s under a 2.5 s inactivity limit ended %q, %q", res.Output, res.Status)
	}
}

// A terminal that fails to start fails the call with the client's reason.
func TestTerminalCreateFails(t *testing.T) {
	// The server believes in a terminal the client refuses to make.
	shell, _, client := terminalShell(t, acptest.Config{}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{})
	_, err := runIn(t, shell, "echo hi")
	if err == nil || err.Error() != "the editor's terminal could not run the command: terminal/create failed: Internal error: terminal was not declared" {
		t.Errorf("error %v", err)
	}
	if n := len(client.Terminals()); n != 0 {
		t.Errorf("%d terminals", n)
	}
}

// Output beyond the tool's cap is cut to its tail even when the client
// keeps more, with the note the local run writes.
func TestTerminalOutputCap(t *testing.T) {
	platformtest.UnixShell(t)
	shell, _, _ := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{})
	res, err := runIn(t, shell, "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "Output: [Output truncated: showing the last 65536 of 100005 bytes]\naaaa") || !strings.HasSuffix(res.Output, "a\nEND") {
		t.Errorf("output %.200q … %q", res.Output, res.Output[len(res.Output)-120:])
	}
}

// startInBackground runs command with is_background in the session of
// shell, owned by reg, and returns the result.
func startInBackground(t *testing.T, shell tools.Tool, reg *background.Registry, command string) tools.Result {
	t.Helper()
	call, err := shell.Build(map[string]any{"command": command, "is_background": true, "delay_ms": 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(t.Context(), tools.CallInfo{SessionID: "s1", CallID: "call-1", Background: reg})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A background command runs in the client's terminal, the session's
// registry owning it: listed by the number the model was given, its
// output read from the terminal while it runs, and killed and released
// when the session ends.
func TestTerminalBackgroundOwnedBySession(t *testing.T) {
	platformtest.UnixShell(t)
	shell, sess, client := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{})
	var reg background.Registry
	res := startInBackground(t, shell, &reg, "echo started; exec sleep 30")
	if !strings.HasPrefix(res.Output, "Command is running in background. PID: 1. Initial output:\n") {
		t.Fatalf("result %q", res.Output)
	}
	terms := client.Terminals()
	if len(terms) != 1 || terms[0].Request.Args[1] != "echo started; exec sleep 30" {
		t.Fatalf("terminals %+v, want the command's", terms)
	}
	id := terms[0].ID
	if got := sess.takeAttached("call-1"); len(got) != 1 || got[0].Terminal == nil || got[0].Terminal.TerminalId != id {
		t.Errorf("attached %+v, want the terminal shown in the call", got)
	}
	e, ok := reg.Get(1)
	if !ok || !e.Running() || e.Command != "echo started; exec sleep 30" {
		t.Fatalf("registry has %+v, %v", reg.List(), ok)
	}
	client.Wait(t.Context(), "the output read from the terminal", func(*acptest.Client) bool {
		out, _, err := e.Process.Output(t.Context())
		return err == nil && out == "started\n"
	})
	if killed, released := client.TerminalState(id); killed || released {
		t.Fatalf("a running background terminal was killed %v, released %v", killed, released)
	}

	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	client.Wait(t.Context(), "the terminal killed and released", func(c *acptest.Client) bool {
		killed, released := c.TerminalState(id)
		return killed && released
	})
	<-e.Process.Done()
	if code, signal := e.Process.Exit(); code != nil || signal != "SIGKILL" {
		t.Errorf("exit %v %q, want killed", code, signal)
	}
}

// A background command that ends by itself is released, its last output
// and exit code kept for the model to read afterwards.
func TestTerminalBackgroundEnded(t *testing.T) {
	platformtest.UnixShell(t)
	shell, _, client := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{Terminal: true}, tools.ShellOptions{})
	var reg background.Registry
	// It ends when the test says so, after it has been moved to the
	// background.
	dir := t.TempDir()
	res := startInBackground(t, shell, &reg, "while [ ! -e "+dir+"/go ]; do sleep 0.05; done; echo bye; exit 3")
	if !strings.Contains(res.Output, "PID: 1.") {
		t.Fatalf("result %q", res.Output)
	}
	e, _ := reg.Get(1)
	if err := os.WriteFile(dir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-e.Process.Done()
	id := client.Terminals()[0].ID
	client.Wait(t.Context(), "the ended terminal released", func(c *acptest.Client) bool {
		_, released := c.TerminalState(id)
		return released
	})
	out, dropped, err := e.Process.Output(t.Context())
	if out != "bye\n" || dropped != 0 || err != nil {
		t.Errorf("output %q %d %v after release", out, dropped, err)
	}
	if code, _ := e.Process.Exit(); code == nil || *code != 3 {
		t.Errorf("exit code %v, want 3", code)
	}
	if killed, _ := client.TerminalState(id); killed {
		t.Error("a command that ended was killed")
	}
}

// A client that declared no terminal has the commands run on this
// machine, in the foreground and the background, through the host's
// local runner: the model is told the same, and the client makes no
// terminal.
func TestNoTerminalRunsHere(t *testing.T) {
	platformtest.UnixShell(t)
	shell, _, client := terminalShell(t, acptest.Config{Terminal: true}, sdk.ClientCapabilities{}, tools.ShellOptions{})
	res, err := runIn(t, shell, "echo here")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "Output: here\nProcess Group PGID: ") || res.Display != "```\nhere\n```" {
		t.Errorf("result %q, display %q", res.Output, res.Display)
	}

	var reg background.Registry
	t.Cleanup(func() { _ = reg.Close() })
	res = startInBackground(t, shell, &reg, "echo started; exec sleep 30")
	list := reg.List()
	if len(list) != 1 || !list[0].Running() || !strings.Contains(res.Output, fmt.Sprintf("PID: %d.", list[0].Process.PID())) {
		t.Fatalf("result %q, registry %+v", res.Output, list)
	}
	if _, inTerminal := list[0].Process.(*terminalProcess); inTerminal {
		t.Error("a background command of a client with no terminal runs in a terminal")
	}
	if n := len(client.Terminals()); n != 0 {
		t.Errorf("%d terminals made for a client that declared none", n)
	}
}
