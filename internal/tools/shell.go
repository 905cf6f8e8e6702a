package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// maxShellOutput is how much of a command's output the model sees: the tail.
	maxShellOutput = 64 << 10
	// shellWaitDelay bounds how long output is awaited after the shell exits,
	// when background processes keep its output open.
	shellWaitDelay = 500 * time.Millisecond
)

type shellTool struct {
	ws   *workspace.Workspace
	opts ShellOptions
}

// shell is run_shell_command over ws.
func shell(ws *workspace.Workspace, opts ShellOptions) *Defined[shellParams] {
	t := &shellTool{ws: ws, opts: opts}
	description, command := shellDescriptions(opts.Shell)
	return Define(Spec{
		Name:              ShellName,
		Description:       description,
		Annotations:       Annotations{Kind: dialog.KindExecute, RunsCommands: true},
		Aliases:           []string{"ShellTool"},
		ParamDescriptions: map[string]string{"command": command},
	}, t.build)
}

// shellDescriptions are what the model is told of run_shell_command and
// of its command parameter, run by sh. Off Windows, gemini-ls's own
// words; on Windows 0.61's (getShellToolDescription,
// getCommandDescription), which tell the model the shell whose syntax
// to use.
func shellDescriptions(sh osshell.Shell) (tool, command string) {
	const returns = "in the workspace and returns its combined stdout and stderr (the last 64 KiB); its exit code only when not 0, a signal only when one killed it. " +
		"The user must approve it. Commands are killed after a timeout; do not start interactive programs."
	switch sh.Kind {
	case osshell.PowerShell:
		return "Runs a command " + returns + " This tool executes a given shell command as " + sh.Describe() + ". " +
				"To run a command in the background, set the `is_background` parameter to true. Do NOT use PowerShell background constructs.",
			"Exact command to execute as " + sh.Describe()
	case osshell.Cmd:
		// 0.61 has no words for cmd.exe, which it never runs.
		return "Runs a command " + returns + " This tool executes a given shell command as " + sh.Describe() + ". " +
				"To run a command in the background, set the `is_background` parameter to true. Do NOT use `start` to background commands.",
			"Exact command to execute as " + sh.Describe()
	}
	return "Runs a command with `bash -c` " + returns, "The exact bash command to run."
}

// shellParams are run_shell_command's parameters, as Gemini CLI 0.61
// declares them. Older calls' directory is normalized to dir_path.
type shellParams struct {
	// Command's description is shellDescriptions'.
	Command     string `json:"command" jsonschema:"The exact bash command to run."`
	Description string `json:"description,omitempty" jsonschema:"Brief description of the command for the user. Be specific and concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No line breaks."`
	DirPath     string `json:"dir_path,omitempty" was:"directory" jsonschema:"(OPTIONAL) The path of the directory to run the command in. If not provided, the project root directory is used. Must be a directory within the workspace and must already exist."`
	// Gemini CLI 0.61's words (getShellDeclaration).
	IsBackground bool `json:"is_background,omitempty" jsonschema:"Set to true if this command should be run in the background (e.g. for long-running servers or watchers). The command will be started, allowed to run for a brief moment to check for immediate errors, and then moved to the background."`
	DelayMS      *int `json:"delay_ms,omitempty" jsonschema:"Optional. Delay in milliseconds to wait after starting the process in the background. Useful to allow the process to start and generate initial output before returning."`
}

// build is the call p asks for.
func (t *shellTool) build(p shellParams) (Call, error) {
	if strings.TrimSpace(p.Command) == "" {
		return nil, errors.New("The 'command' parameter must be non-empty.")
	}
	root, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	dir := root
	if p.DirPath != "" {
		if dir, err = resolvePath(t.ws, "dir_path", p.DirPath); err != nil {
			return nil, err
		}
		isDir, err := t.ws.Stat(dir)
		if err != nil || !isDir {
			return nil, fmt.Errorf("Directory must exist and be a directory: %s", dir)
		}
	}
	delay := defaultBackgroundDelay
	if p.DelayMS != nil {
		if *p.DelayMS < 0 {
			return nil, errors.New("The 'delay_ms' parameter must not be negative.")
		}
		delay = time.Duration(*p.DelayMS) * time.Millisecond
	}
	return &shellCall{ws: t.ws, opts: t.opts, command: p.Command, description: p.Description, dir: dir, hasDir: dir != root,
		background: p.IsBackground, delay: delay}, nil
}

type shellCall struct {
	ws          *workspace.Workspace
	opts        ShellOptions
	command     string
	description string
	dir         string
	hasDir      bool
	// background runs the command as the session's background process
	// (shell_background.go), after delay.
	background bool
	delay      time.Duration
}

func (c *shellCall) Title() string {
	title := "Shell " + firstLine(c.command)
	if c.hasDir {
		title += " [in " + c.ws.Display(c.dir) + "]"
	}
	if c.description != "" {
		title += " (" + firstLine(c.description) + ")"
	}
	if c.background {
		title += " [background]"
	}
	return title
}

func (c *shellCall) Confirmation() *Confirmation {
	conf := ShellConfirmation(c.opts.Shell.Kind, c.command)
	conf.Dir = c.dir
	return conf
}

// ShellConfirmation is what running command in a shell of kind asks the
// user: the same for a run_shell_command call and for a command run for
// the user (a custom command's !{…}), so an "always allow" given to one
// covers the other.
func ShellConfirmation(kind osshell.Kind, command string) *Confirmation {
	check := checkCommand(kind, command)
	title := "Allow shell command?"
	if check.why != "" {
		// Why no "always allow" is offered, without naming an option
		// the front end may not show.
		title += " It is asked every time: " + check.why + "."
	}
	c := &Confirmation{
		Kind:      dialog.ConfirmExecute,
		Title:     title,
		Details:   command,
		Subject:   command,
		AllowKeys: check.names,
	}
	// A prefix is offered where one is narrower than the names: a
	// command with a subcommand (go test, not ls).
	if slices.ContainsFunc(check.prefixes, func(p string) bool { return strings.Contains(p, " ") }) {
		for _, p := range check.prefixes {
			c.AllowPrefixes = append(c.AllowPrefixes, ShellPrefixKey(p))
		}
	}
	return c
}

func (c *shellCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	cmd := dialog.ShellCommand{Command: c.command, Shell: c.opts.Shell, Dir: c.dir, Env: c.opts.Env, OutputLimit: maxShellOutput, CallID: info.CallID,
		Redaction: c.opts.Redaction, Door: c.opts.Door, Why: spawn.UserCommand{What: ShellName}}
	if c.background {
		return c.executeInBackground(ctx, info, cmd)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d := c.opts.Inactivity; d > 0 {
		idle := time.AfterFunc(d, func() { cancel(errInactive) })
		defer idle.Stop()
		cmd.Progress = func() { idle.Reset(d) }
	}
	runner := c.opts.Runner
	if runner == nil {
		runner = LocalRunner{}
	}
	o, err := runner.Run(runCtx, cmd)
	if err != nil {
		return Result{}, err
	}
	return c.report(ctx, runCtx, o), nil
}

// errInactive ends a command that printed nothing for too long.
var errInactive = errors.New("no output for too long")

// report is the result of a command that ended as o: ctx is the call's
// context, runCtx the command's (the call's, ended early when the
// command printed nothing for too long).
func (c *shellCall) report(ctx, runCtx context.Context, o dialog.ShellOutcome) Result {
	status, stopped := dialog.StatusOK, ""
	switch {
	case ctx.Err() != nil:
		// Not 0.61's "cancelled by user": the call also ends when its
		// session does (the client gone, the server shut down).
		status, stopped = dialog.StatusCancelled, "Command was cancelled before it could complete."
	case context.Cause(runCtx) == errInactive:
		// 0.61's words, its minutes to one decimal.
		status, stopped = dialog.StatusError, fmt.Sprintf("Command was automatically cancelled because it exceeded the timeout of %.1f minutes without output.", c.opts.Inactivity.Minutes())
	}
	exitCode, _ := exitText(o.ExitCode, o.Signal)
	output := outputText(o.Output, o.Dropped)
	llm := shellReport(stopped, output, o)
	if strings.TrimSpace(output) == "" {
		output = "(empty)"
	}
	// A .env the command made, which the next start would read outside
	// the sandbox, is moved aside now: the model is told where it went.
	sb := sandbox.Of(c.opts.Door)
	moved := sb.TakeBack()
	if moved != "" {
		llm += "\nSandbox: " + moved
	}
	note := ""
	if exitCode != "0" && stopped == "" && sb.Enabled() {
		// What the sandbox refused reads as any failure: say it may be
		// the sandbox, so the model asks rather than retries; not of a
		// command stopped, which says why it failed. A command runs in
		// the session's sandbox when there is one (LocalRunner).
		note = sb.Note()
		if session := sb.Session(); session != nil {
			note = session.Note()
		}
		llm += "\nSandbox: " + note
	}

	var display string
	if stopped != "" {
		display = stopped
	} else if exitCode != "0" {
		display = "Exit code " + exitCode
	}
	// The user who watched the output come need not read it again.
	if !o.Live {
		if display != "" {
			display += "\n\n"
		}
		display += dialog.Fence("", output)
	}
	if note != "" {
		display += "\n\nSandboxed: " + sb.Describe() + "."
	}
	if moved != "" {
		display += "\n\n" + moved
	}
	return Result{Output: llm, Status: status, Display: display}
}

// shellReport is what the model is told of a command that ended as o,
// output its output's text (outputText): as Gemini CLI 0.61 tells it,
// only what happened. After the output, a line for an exit code that is
// not 0, a signal, background processes, a process group; not the
// command or directory the model wrote itself, nor "(none)" for each
// thing that did not happen, which every later request of the session
// would carry again. A command stopped (stopped says why) is told in
// 0.61's sentences, what it printed after them.
func shellReport(stopped, output string, o dialog.ShellOutcome) string {
	empty := strings.TrimSpace(output) == ""
	if stopped != "" {
		if empty {
			return stopped + " There was no output before it was cancelled."
		}
		return stopped + " Below is the output before it was cancelled:\n" + output
	}
	if empty {
		output = "(empty)"
	}
	lines := []string{"Output: " + output}
	if o.ExitCode != nil && *o.ExitCode != 0 {
		lines = append(lines, "Exit Code: "+strconv.Itoa(*o.ExitCode))
	}
	if o.Signal != "" {
		lines = append(lines, "Signal: "+o.Signal)
	}
	if len(o.Background) > 0 {
		lines = append(lines, "Background PIDs: "+strings.Join(o.Background, ", "))
	}
	if o.PGID > 0 {
		lines = append(lines, "Process Group PGID: "+strconv.Itoa(o.PGID))
	}
	return strings.Join(lines, "\n")
}

// LocalRunner runs commands on this machine: their shell in a process
// group of its own with stdin empty, the whole group killed when ctx ends, output
// awaited briefly when background processes keep it open.
type LocalRunner struct{}

// Run implements dialog.CommandRunner.
func (LocalRunner) Run(ctx context.Context, c dialog.ShellCommand) (dialog.ShellOutcome, error) {
	limit := c.OutputLimit
	if limit <= 0 {
		limit = maxShellOutput
	}
	out := &tailBuffer{max: limit, progress: c.Progress}
	sh := c.Shell.OrLocal()
	// Cancelling kills the whole group, so pipelines and children die too.
	cmd := sh.Command(ctx, c.Door, c.Why, c.Command)
	cmd.Dir = c.Dir
	cmd.Env = append(envredact.Sanitize(os.Environ(), c.Redaction), c.Env...)
	if session := c.Sandbox().Session(); session != nil {
		return runInSession(ctx, session, cmd, out)
	}
	// Stdin stays nil (/dev/null): a command reading input ends instead of hanging.
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.WaitDelay = shellWaitDelay
	if err := cmd.Start(); err != nil {
		return dialog.ShellOutcome{}, fmt.Errorf("starting %s in %s: %w", sh.Executable, c.Dir, err)
	}
	pgid := cmd.Process.Pid
	waitErr := cmd.Wait()

	// Wait answers ctx's error, not the shell's end, when the group was
	// killed after the shell exited (a background child still held the
	// output): that is a cancel like any other, reported below.
	var exitErr *spawn.ExitError
	cancelled := ctx.Err() != nil && errors.Is(waitErr, ctx.Err())
	if waitErr != nil && !cancelled && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, spawn.ErrWaitDelay) {
		return dialog.ShellOutcome{}, fmt.Errorf("running %q: %w", c.Command, waitErr)
	}
	o := dialog.ShellOutcome{PGID: pgid}
	if ctx.Err() != nil {
		// Cancelled or timed out: Cancel killed the group only if the
		// shell still ran, not once only its output was awaited. A killed
		// group leaves nothing to report. (The group is gone or ours: an
		// error here has no remedy.)
		_ = cmd.Kill()
	} else {
		o.Background = cmd.Members()
	}
	o.ExitCode, o.Signal = processEnd(cmd.ProcessState)
	o.Output, o.Dropped = out.kept()
	return o, nil
}

// runInSession runs cmd, built and not started, in the session's
// persistent sandbox, reporting it as a bwrap of its own would have. Its
// program is the one found here under bubblewrap, and goes by its name
// in a container, found by the supervisor inside (a container's bash is
// not where the host's is). The
// session's supervisor kills the command's group at its end or ctx's, as
// the end of its pid namespace did, so nothing is left in the background.
func runInSession(ctx context.Context, session *sandbox.Session, cmd *spawn.Cmd, out *tailBuffer) (dialog.ShellOutcome, error) {
	exit, err := session.Run(ctx, sandbox.Command{
		Args: cmd.Args, Path: cmd.Path, Dir: cmd.Dir, Env: cmd.Env, Stdout: out, Stderr: out,
	})
	if err != nil {
		return dialog.ShellOutcome{}, fmt.Errorf("running %q in the sandbox: %w", strings.Join(cmd.Args, " "), err)
	}
	o := dialog.ShellOutcome{PGID: exit.Pid}
	o.ExitCode, o.Signal = bwrapEnd(exit, ctx.Err() != nil)
	o.Output, o.Dropped = out.kept()
	return o, nil
}

// exitText renders how a command ended as Gemini CLI reports it: an exit
// code, or "(none)" and the signal that killed it.
func exitText(code *int, signal string) (exitCode, sig string) {
	exitCode, sig = "(none)", "(none)"
	if code != nil {
		exitCode = strconv.Itoa(*code)
	}
	if signal != "" {
		sig = signal
	}
	return exitCode, sig
}

// firstLine is s up to its first line break, marked when cut.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// tailBuffer keeps the last max bytes written to it, calling progress
// (when not nil) at each write.
type tailBuffer struct {
	mu       sync.Mutex
	max      int
	buf      []byte
	dropped  int64
	progress func()
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	if t.progress != nil && len(p) > 0 {
		t.progress()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// kept is the output kept and how many bytes before it were dropped.
func (t *tailBuffer) kept() (string, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf), t.dropped
}

// String is the kept output as the model sees it (outputText).
func (t *tailBuffer) String() string {
	return outputText(t.kept())
}

// outputText is the tail of a command's output as the model sees it:
// valid UTF-8, without trailing line breaks, preceded by a note when
// dropped bytes came before it (-1: some, how many unknown).
func outputText(kept string, dropped int64) string {
	b := kept
	if dropped != 0 {
		// Do not start in the middle of a character.
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	s := strings.ToValidUTF8(strings.TrimRight(b, "\r\n"), "\uFFFD")
	switch {
	case dropped > 0:
		s = fmt.Sprintf("[Output truncated: showing the last %d of %d bytes]\n", len(b), int64(len(kept))+dropped) + s
	case dropped < 0:
		s = fmt.Sprintf("[Output truncated: showing the last %d bytes]\n", len(b)) + s
	}
	return s
}
