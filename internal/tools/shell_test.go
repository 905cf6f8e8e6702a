package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// shellOutput splits a shell result into everything before the PGID line
// and the PGID.
func shellOutput(t *testing.T, res Result) (string, int) {
	t.Helper()
	m := regexp.MustCompile(`(?s)^(.*\n)Process Group PGID: (\d+)$`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("output without a PGID line: %q", res.Output)
	}
	pgid, _ := strconv.Atoi(m[2])
	return m[1], pgid
}

func runShell(t *testing.T, tw *testWorkspace, opts ShellOptions, args map[string]any) Result {
	t.Helper()
	return run(t, tw.tool(ShellName, Options{Shell: opts}), args)
}

func TestShell(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, map[string]string{"sub/f.txt": ""})
	tool := tw.tool(ShellName, Options{})

	call := build(t, tool, map[string]any{"command": "echo hi", "description": "Print hi"})
	if call.Title() != "Shell echo hi (Print hi)" || kindOf(tool) != dialog.KindExecute {
		t.Errorf("Title %q Kind %q", call.Title(), kindOf(tool))
	}
	want := &Confirmation{Kind: "execute", Title: "Allow shell command?", Details: "echo hi", Subject: "echo hi", AllowKeys: []string{"echo"}, Dir: tw.root}
	if c := call.Confirmation(); !reflect.DeepEqual(c, want) {
		t.Errorf("Confirmation = %+v", c)
	}
	// A command that "always allow" cannot cover says why, and has no keys.
	redirected := build(t, tool, map[string]any{"command": "ls > main.go"})
	want = &Confirmation{Kind: "execute", Title: "Allow shell command? It is asked every time: it writes to a file (> main.go).", Details: "ls > main.go", Subject: "ls > main.go", Dir: tw.root}
	if c := redirected.Confirmation(); !reflect.DeepEqual(c, want) {
		t.Errorf("Confirmation = %+v", c)
	}
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	head, pgid := shellOutput(t, res)
	if head != "Output: hi\n" || pgid <= 0 {
		t.Errorf("output %q", res.Output)
	}
	if res.Status != dialog.StatusOK || res.Display != "```\nhi\n```" {
		t.Errorf("Status %q Display %q", res.Status, res.Display)
	}

	res = runShell(t, tw, ShellOptions{}, map[string]any{"command": "pwd; ls", "directory": "sub"})
	if head, _ := shellOutput(t, res); head != "Output: "+tw.abs("sub")+"\nf.txt\n" {
		t.Errorf("output %q", res.Output)
	}
}

func TestShellExitCodesAndOutput(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, nil)
	for _, tc := range []struct {
		command, want string
	}{
		{"exit 3", "Output: (empty)\nExit Code: 3\n"},
		{"echo out; echo err >&2; false", "Output: out\nerr\nExit Code: 1\n"},
		{"kill -TERM $$", "Output: (empty)\nSignal: SIGTERM\n"},
		{"cat; echo done", "Output: done\n"}, // stdin is empty, not the server's
		{"printf '  indented\\n\\n\\n'", "Output:   indented\n"},
	} {
		res := runShell(t, tw, ShellOptions{}, map[string]any{"command": tc.command})
		if head, _ := shellOutput(t, res); head != tc.want {
			t.Errorf("%s: output %q", tc.command, res.Output)
		}
		if res.Status != dialog.StatusOK {
			t.Errorf("%s: Status %q", tc.command, res.Status)
		}
	}
	res := runShell(t, tw, ShellOptions{}, map[string]any{"command": "exit 3"})
	if res.Display != "Exit code 3\n\n```\n(empty)\n```" {
		t.Errorf("Display %q", res.Display)
	}
}

// The model is told what happened only, as Gemini CLI 0.61 tells it: not
// the command and directory it wrote itself, nor "(none)" for each thing
// that did not happen, which every later request of the session would
// carry again; an exit code that is not 0, and a signal, are told.
func TestShellReportsOnlyWhatHappened(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, map[string]string{"sub/a.txt": "", "sub/b.txt": ""})
	ok := runShell(t, tw, ShellOptions{}, map[string]any{"command": "ls", "dir_path": "sub"})
	for _, unsaid := range []string{"(none)", "Exit Code", "Command:", "Directory:", "Error:", "Signal:", "Background PIDs:"} {
		if strings.Contains(ok.Output, unsaid) {
			t.Errorf("a command that succeeded is reported with %q: %q", unsaid, ok.Output)
		}
	}
	if !regexp.MustCompile(`^Output: a\.txt\nb\.txt\nProcess Group PGID: \d+$`).MatchString(ok.Output) {
		t.Errorf("a command that succeeded is reported as %q", ok.Output)
	}
	failed := runShell(t, tw, ShellOptions{}, map[string]any{"command": "echo no >&2; exit 2"})
	if !strings.HasPrefix(failed.Output, "Output: no\nExit Code: 2\nProcess Group PGID: ") || strings.Contains(failed.Output, "(none)") {
		t.Errorf("a command that failed is reported as %q", failed.Output)
	}
	killed := runShell(t, tw, ShellOptions{}, map[string]any{"command": "kill -KILL $$"})
	if !strings.HasPrefix(killed.Output, "Output: (empty)\nSignal: SIGKILL\nProcess Group PGID: ") || strings.Contains(killed.Output, "Exit Code") {
		t.Errorf("a command killed by a signal is reported as %q", killed.Output)
	}
}

func TestShellEnv(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, nil)
	t.Setenv("GEMINI_LS_INHERITED", "inherited")
	res := runShell(t, tw, ShellOptions{Env: []string{"GEMINI_LS_EXTRA=extra", "GEMINI_LS_INHERITED=overridden"}},
		map[string]any{"command": "echo $GEMINI_LS_EXTRA $GEMINI_LS_INHERITED $HOME"})
	if want := "Output: extra overridden " + os.Getenv("HOME") + "\n"; !strings.HasPrefix(res.Output, want) {
		t.Errorf("output %q, want it to start %q", res.Output, want)
	}
}

func TestShellOutputKeepsTail(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, nil)
	res := runShell(t, tw, ShellOptions{}, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END"})
	if want := "Output: [Output truncated: showing the last 65536 of 100005 bytes]\naaaa"; !strings.HasPrefix(res.Output, want) {
		t.Errorf("output %.100q, want it to start %q", res.Output, want)
	}
	wantContains(t, res.Output, "a\nEND\nProcess Group PGID: ")
}

func TestTailBufferDoesNotSplitCharacters(t *testing.T) {
	b := &tailBuffer{max: 5}
	b.Write([]byte("ab世界")) // 8 bytes; the kept 5 start inside 世
	if got := b.String(); got != "[Output truncated: showing the last 3 of 8 bytes]\n界" {
		t.Errorf("String() = %q", got)
	}
}

func TestShellCancel(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, nil)
	// "started" is written before child.pid, so a cancel once child.pid
	// exists never comes before it.
	call := build(t, tw.tool(ShellName, Options{}), map[string]any{"command": "echo started; sleep 30 & echo $! > child.pid; wait"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		defer close(done)
		res, err = call.Execute(ctx, CallInfo{})
	}()
	// Cancel once the background child exists.
	child := spawntest.PID(t, tw.abs("child.pid"))
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("cancelled sleep 30 did not return")
	}
	if err != nil {
		t.Fatal(err)
	}
	// 0.61's form for a command cancelled: a sentence, then the output.
	if res.Output != "Command was cancelled before it could complete. Below is the output before it was cancelled:\nstarted" {
		t.Errorf("output %q", res.Output)
	}
	if res.Status != dialog.StatusCancelled {
		t.Errorf("Status = %q", res.Status)
	}
	spawntest.WaitGone(t, child)
}

// TestShellCancelWhileOutputIsAwaited: cancelling a command whose shell
// has exited, while the runner awaits the output a background child holds
// open, kills that child too, as cancelling kills the whole group.
func TestShellCancelWhileOutputIsAwaited(t *testing.T) {
	platformtest.UnixShell(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan dialog.ShellOutcome, 1)
	go func() {
		o, err := LocalRunner{}.Run(ctx, dialog.ShellCommand{Command: "sleep 300 & echo $! > child.pid", Dir: dir})
		if err != nil {
			t.Error(err)
		}
		done <- o
	}()
	child := spawntest.PID(t, filepath.Join(dir, "child.pid"))
	cancel()
	spawntest.WaitGone(t, child)
	if o := <-done; o.Background != nil {
		t.Errorf("background processes %v reported after the group was killed", o.Background)
	}
}

// A command that prints nothing for the inactivity timeout is killed,
// and the model told so in Gemini CLI 0.61's words; one that keeps
// printing runs on past it.
func TestShellInactivityTimeout(t *testing.T) {
	platformtest.UnixShell(t)
	tw := newTestWorkspace(t, nil)
	res := runShell(t, tw, ShellOptions{Inactivity: 200 * time.Millisecond}, map[string]any{"command": "echo started; sleep 30"})
	if res.Output != "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output. Below is the output before it was cancelled:\nstarted" {
		t.Errorf("output %q", res.Output)
	}
	if res.Status != dialog.StatusError {
		t.Errorf("Status = %q", res.Status)
	}
	// Eight lines 0.2 s apart: 1.6 s in all, five times a 1 s limit's
	// margin between two lines.
	res = runShell(t, tw, ShellOptions{Inactivity: time.Second}, map[string]any{"command": "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.2; done"})
	if head, _ := shellOutput(t, res); head != "Output: 1\n2\n3\n4\n5\n6\n7\n8\n" || res.Status != dialog.StatusOK {
		t.Errorf("a command printing every 0.2 s under a 1 s inactivity limit ended %q, %q", res.Output, res.Status)
	}
}

func TestShellValidation(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"file.txt": ""})
	tool := tw.tool(ShellName, Options{})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'command'"},
		{map[string]any{"command": " \n"}, "The 'command' parameter must be non-empty."},
		{map[string]any{"command": []any{"ls"}}, "params/command must be string"},
		{map[string]any{"command": "ls", "description": 1.0}, "params/description must be string"},
		{map[string]any{"command": "ls", "directory": "missing"}, "Directory must exist and be a directory: " + tw.abs("missing")},
		{map[string]any{"command": "ls", "directory": "file.txt"}, "Directory must exist and be a directory: " + tw.abs("file.txt")},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
	call := build(t, tool, map[string]any{"command": "make\n  test", "directory": "."})
	if call.Title() != "Shell make …" {
		t.Errorf("Title = %q", call.Title())
	}
}

// fakeRunner records the command it is given and answers with outcome,
// after ctx ends when wait is set.
type fakeRunner struct {
	got     dialog.ShellCommand
	wait    bool
	outcome dialog.ShellOutcome
	err     error
}

func (f *fakeRunner) Run(ctx context.Context, c dialog.ShellCommand) (dialog.ShellOutcome, error) {
	f.got = c
	if f.wait {
		<-ctx.Done()
	}
	return f.outcome, f.err
}

func TestShellRunsThroughTheRunner(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"sub/f.txt": ""})
	code := 2
	runner := &fakeRunner{outcome: dialog.ShellOutcome{Output: "made\n", ExitCode: &code}}
	res := runShell(t, tw, ShellOptions{Runner: runner, Env: []string{"A=b"}}, map[string]any{"command": "make", "directory": "sub"})
	want := dialog.ShellCommand{Command: "make", Shell: osshell.Local(), Dir: tw.abs("sub"), Env: []string{"A=b"}, OutputLimit: maxShellOutput, Why: spawn.UserCommand{What: ShellName}}
	progress := runner.got.Progress
	runner.got.Progress = nil
	if !reflect.DeepEqual(runner.got, want) || progress == nil {
		t.Errorf("the runner got %+v (progress %v), want %+v with a progress for the inactivity timeout", runner.got, progress != nil, want)
	}
	// What the runner cannot know (its process group) is not said, as
	// in Gemini CLI 0.61.
	if res.Output != "Output: made\nExit Code: 2" {
		t.Errorf("output %q", res.Output)
	}
	if res.Status != dialog.StatusOK || res.Display != "Exit code 2\n\n```\nmade\n```" {
		t.Errorf("Status %q Display %q", res.Status, res.Display)
	}

	// Output the user watched live is not repeated in the display; output
	// cut by an unknown amount says so.
	runner = &fakeRunner{outcome: dialog.ShellOutcome{Output: "tail\n", Dropped: -1, Signal: "SIGTERM", Live: true, Background: []string{"7", "8"}, PGID: 7}}
	res = runShell(t, tw, ShellOptions{Runner: runner}, map[string]any{"command": "run"})
	if res.Output != "Output: [Output truncated: showing the last 5 bytes]\ntail\nSignal: SIGTERM\nBackground PIDs: 7, 8\nProcess Group PGID: 7" {
		t.Errorf("output %q", res.Output)
	}
	if res.Display != "Exit code (none)" {
		t.Errorf("Display %q", res.Display)
	}
	zero := 0
	runner = &fakeRunner{outcome: dialog.ShellOutcome{Output: "ok", ExitCode: &zero, Live: true}}
	if res = runShell(t, tw, ShellOptions{Runner: runner}, map[string]any{"command": "true"}); res.Display != "" {
		t.Errorf("Display %q, want none for a watched command that succeeded", res.Display)
	}

	// The inactivity timeout holds over any runner: the kill is reported
	// as the local run's is.
	runner = &fakeRunner{wait: true, outcome: dialog.ShellOutcome{Signal: "SIGKILL", Live: true}}
	res = runShell(t, tw, ShellOptions{Runner: runner, Inactivity: 50 * time.Millisecond}, map[string]any{"command": "sleep 30"})
	const inactive = "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output."
	if res.Output != inactive+" There was no output before it was cancelled." || res.Status != dialog.StatusError {
		t.Errorf("timed out: %q, %q", res.Output, res.Status)
	}
	if res.Display != inactive {
		t.Errorf("Display %q", res.Display)
	}

	// A runner that fails fails the call.
	runner = &fakeRunner{err: errors.New("the terminal is gone")}
	call := build(t, tw.tool(ShellName, Options{Shell: ShellOptions{Runner: runner}}), map[string]any{"command": "ls"})
	if _, err := call.Execute(t.Context(), CallInfo{}); err == nil || err.Error() != "the terminal is gone" {
		t.Errorf("Execute error %v", err)
	}
}

// TestShellDeclarationNamesItsShell: the model is told which shell runs
// its commands, in 0.61's words on Windows (getShellToolDescription,
// getCommandDescription), and the declarations of other shells are not
// changed by it.
func TestShellDeclarationNamesItsShell(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	for _, tc := range []struct {
		sh      osshell.Shell
		tool    string
		command string
	}{
		{osshell.Shell{Kind: osshell.Bash, Executable: "bash", Args: []string{"-c"}},
			"Runs a command with `bash -c` in the workspace", "The exact bash command to run."},
		{osshell.Shell{Kind: osshell.PowerShell, Executable: "pwsh.exe", Args: []string{"-NoProfile", "-Command"}},
			"This tool executes a given shell command as `powershell.exe -NoProfile -Command <command>`. To run a command in the background, set the `is_background` parameter to true. Do NOT use PowerShell background constructs.",
			"Exact command to execute as `powershell.exe -NoProfile -Command <command>`"},
		{osshell.Shell{Kind: osshell.Cmd, Executable: "cmd.exe", Args: []string{"/d", "/s", "/c"}},
			"This tool executes a given shell command as `cmd.exe /d /s /c <command>`.",
			"Exact command to execute as `cmd.exe /d /s /c <command>`"},
	} {
		decl := shell(tw.ws, ShellOptions{Shell: tc.sh}).Declaration()
		if !strings.Contains(decl.Description, tc.tool) {
			t.Errorf("%v: description %q, want it to hold %q", tc.sh.Kind, decl.Description, tc.tool)
		}
		props := decl.ParametersJsonSchema.(map[string]any)["properties"].(map[string]any)
		if got := props["command"].(map[string]any)["description"]; got != tc.command {
			t.Errorf("%v: command described as %q, want %q", tc.sh.Kind, got, tc.command)
		}
	}
	// The schema P's tags give is shared: describing one shell's command
	// leaves it alone.
	if got := declaredSchema(reflect.TypeFor[shellParams](), nil)["properties"].(map[string]any)["command"].(map[string]any)["description"]; got != "The exact bash command to run." {
		t.Errorf("the shared schema's command description became %q", got)
	}
}
