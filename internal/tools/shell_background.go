package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
)

// Background commands, as Gemini CLI 0.61 runs them (shell.ts,
// shellBackgroundTools.ts): run_shell_command with is_background starts
// the command, waits delay_ms (200 by default) and, unless it ended by
// then, leaves it running as the session's background process and tells
// the model its PID and the output so far. list_background_processes
// lists the session's; read_background_output reads the tail of one's
// output. The session kills them all when it ends.

const (
	// defaultBackgroundDelay is how long a background command runs before
	// the call returns, as in Gemini CLI (BACKGROUND_DELAY_MS).
	defaultBackgroundDelay = 200 * time.Millisecond
	// maxBackgroundOutput is how much of a background command's output is
	// kept: the tail, as much as Gemini CLI reads of its log
	// (MAX_BUFFER_LOAD_CAP_BYTES).
	maxBackgroundOutput = 64 << 10
	// defaultTailLines is how many lines read_background_output shows, as
	// in Gemini CLI (DEFAULT_TAIL_LINES_COUNT).
	defaultTailLines = 100
)

// executeInBackground runs the call's command as a background process of
// the session.
func (c *shellCall) executeInBackground(ctx context.Context, info CallInfo, cmd dialog.ShellCommand) (Result, error) {
	if info.Background == nil {
		return Result{}, errors.New("background commands need a session to own them, and this call has none")
	}
	starter, ok := c.opts.Runner.(dialog.BackgroundRunner)
	if !ok {
		starter = LocalRunner{}
	}
	// The place is held before the command starts: a refused one never
	// runs, and calls of one answer running at once cannot together
	// pass the session's bound.
	place, err := info.Background.Reserve()
	if err != nil {
		return Result{Error: "Refused, nothing was run: " + err.Error() + "."}, nil
	}
	defer place.Release()
	cmd.OutputLimit = maxBackgroundOutput
	p, err := starter.Start(ctx, cmd)
	if err != nil {
		return Result{}, err
	}
	wait := time.NewTimer(c.delay)
	defer wait.Stop()
	select {
	case <-p.Done():
		// It ended within the delay: reported as a command run in the
		// foreground, as Gemini CLI reports it.
		code, signal := p.Exit()
		out, dropped, err := p.Output(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("reading the output of a background command that ended: %w", err)
		}
		o := dialog.ShellOutcome{Output: out, Dropped: dropped, ExitCode: code, Signal: signal, PGID: p.PID()}
		_ = p.Kill() // what it left in its group
		return c.report(ctx, ctx, o), nil
	case <-ctx.Done():
		_ = p.Kill()
		// What it wrote before it was killed, if to be had at once.
		octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		out, dropped, _ := p.Output(octx)
		return c.report(ctx, ctx, dialog.ShellOutcome{Output: out, Dropped: dropped, PGID: p.PID()}), nil
	case <-wait.C:
	}
	if err := place.Keep(c.command, p); err != nil {
		return Result{}, fmt.Errorf("the command ran for %s, then was killed: %w", c.delay, err)
	}
	out, dropped, err := p.Output(ctx)
	if err != nil {
		// It runs, owned by the session: the model can read it later.
		out, dropped = "(not read: "+err.Error()+")", 0
	}
	pid := strconv.Itoa(p.PID())
	return Result{
		Output:  fmt.Sprintf("Command is running in background. PID: %s. Initial output:\n%s", pid, outputText(out, dropped)),
		Display: "Background process started with PID " + pid + ".",
	}, nil
}

// Start implements dialog.BackgroundRunner: the shell in a process group of its own,
// with stdin empty, its output's tail kept; killing it kills the group.
func (LocalRunner) Start(_ context.Context, c dialog.ShellCommand) (dialog.BackgroundProcess, error) {
	limit := c.OutputLimit
	if limit <= 0 {
		limit = maxBackgroundOutput
	}
	// Not the call's context: the command outlives the call. Kill ends it.
	sh := c.Shell.OrLocal()
	cmd := sh.Command(context.Background(), c.Door, c.Why, c.Command)
	cmd.Dir = c.Dir
	cmd.Env = append(envredact.Sanitize(os.Environ(), c.Redaction), c.Env...)
	p := &localProcess{cmd: cmd, out: &tailBuffer{max: limit}, done: make(chan struct{})}
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s in %s: %w", sh.Executable, c.Dir, err)
	}
	go p.wait()
	return p, nil
}

// localProcess is a background command run by LocalRunner.
type localProcess struct {
	cmd  *spawn.Cmd
	out  *tailBuffer
	done chan struct{}
	// Set before done is closed.
	code   *int
	signal string
}

func (p *localProcess) wait() {
	// The output is read until the group's last holder of it ends.
	_ = p.cmd.Wait()
	p.code, p.signal = processEnd(p.cmd.ProcessState)
	close(p.done)
}

func (p *localProcess) PID() int { return p.cmd.Process.Pid }
func (p *localProcess) Output(context.Context) (string, int64, error) {
	kept, dropped := p.out.kept()
	return kept, dropped, nil
}
func (p *localProcess) Done() <-chan struct{}         { return p.done }
func (p *localProcess) Exit() (code *int, sig string) { return p.code, p.signal }

// Kill kills the process group: the command and what it started, also
// what outlived the shell.
func (p *localProcess) Kill() error { return p.cmd.Kill() }

// listBackgroundParams: the tool takes only wait_for_previous.
type listBackgroundParams struct{ waiting }

// listBackground is list_background_processes, described in Gemini CLI
// 0.61's words, its typo ("orchestrating") mended. Its annotations say
// only its kind: it only reads, but 0.61 does not count the background
// tools read-only, so plan mode refuses them.
func listBackground() *Defined[listBackgroundParams] {
	return Define(Spec{
		Name:        ListBackgroundName,
		Description: "Lists all active and recently completed background shell processes orchestrated by the agent.",
		Annotations: Annotations{Kind: dialog.KindRead},
		Aliases:     []string{"ListBackgroundProcessesTool"},
	}, func(listBackgroundParams) (Call, error) { return listBackgroundCall{}, nil })
}

type listBackgroundCall struct{}

func (listBackgroundCall) Title() string { return "List background processes" }

// Confirmation: Gemini CLI 0.61's policies allow neither background tool
// (read-only.toml lists neither), so they ask, as any tool no rule allows.
func (listBackgroundCall) Confirmation() *Confirmation {
	return backgroundConfirmation(ListBackgroundName, "List the session's background processes")
}

func (listBackgroundCall) Execute(_ context.Context, info CallInfo) (Result, error) {
	if info.Background == nil {
		return Result{}, errors.New("background processes belong to a session, and this call has none")
	}
	s := BackgroundListing(info.Background.List())
	return Result{Output: s, Display: s}, nil
}

// BackgroundListing is entries as list_background_processes lists them to
// the model, and /tasks to the user.
func BackgroundListing(entries []background.Entry) string {
	if len(entries) == 0 {
		return "No background processes found."
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = listLine(e)
	}
	return strings.Join(lines, "\n")
}

// listLine is one process as Gemini CLI lists it.
func listLine(e background.Entry) string {
	status := "RUNNING"
	var end string
	if !e.Running() {
		status = "EXITED"
		code, signal := e.Process.Exit()
		if code != nil {
			end += fmt.Sprintf(" (Exit Code: %d)", *code)
		}
		if signal != "" {
			end += " (Signal: " + signal + ")"
		}
	}
	return fmt.Sprintf("- [PID %d] %s: `%s`%s", e.Process.PID(), status, e.Command, end)
}

// backgroundConfirmation is the question a background tool asks: always
// allowing it allows the tool, as Gemini CLI's "always allow" of a tool
// without a policy rule does.
func backgroundConfirmation(name, what string) *Confirmation {
	return &Confirmation{Kind: dialog.ConfirmRead, Title: "Allow " + name + "?", Details: what, AllowKeys: []string{ToolKey(name)}}
}

type readBackgroundParams struct {
	waiting
	PID     int  `json:"pid" jsonschema:"The process ID (PID) of the background process to inspect."`
	Lines   *int `json:"lines,omitempty" jsonschema:"Optional. Number of lines to read from the end of the log. Defaults to 100."`
	DelayMS *int `json:"delay_ms,omitempty" jsonschema:"Optional. Delay in milliseconds to wait before reading the output. Useful to allow the process to start and generate initial output."`
}

// extendSchema: at least one line, as Gemini CLI 0.61 declares it.
func (readBackgroundParams) extendSchema(s *jsonschema.Schema) {
	s.Properties["lines"].Minimum = jsonschema.Ptr(1.0)
}

// readBackground is read_background_output. Its annotations say only
// its kind, as list_background_processes's. opts.Sandbox is where the
// session's background commands ran.
func readBackground(opts ShellOptions) *Defined[readBackgroundParams] {
	return Define(Spec{
		Name:        ReadBackgroundName,
		Description: "Reads the output log of a background shell process. Support reading tail snapshot.",
		Annotations: Annotations{Kind: dialog.KindRead},
		Aliases:     []string{"ReadBackgroundOutputTool"},
	}, func(p readBackgroundParams) (Call, error) {
		c := &readBackgroundCall{pid: p.PID, lines: defaultTailLines, sandbox: sandbox.Of(opts.Door)}
		if p.Lines != nil {
			c.lines = *p.Lines
		}
		if p.DelayMS != nil && *p.DelayMS > 0 {
			c.delay = time.Duration(*p.DelayMS) * time.Millisecond
		}
		return c, nil
	})
}

type readBackgroundCall struct {
	pid     int
	lines   int
	delay   time.Duration
	sandbox *sandbox.Sandbox
}

func (c *readBackgroundCall) Title() string {
	return fmt.Sprintf("Reading output for background process %d", c.pid)
}

func (c *readBackgroundCall) Confirmation() *Confirmation {
	return backgroundConfirmation(ReadBackgroundName, c.Title())
}

func (c *readBackgroundCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	if info.Background == nil {
		return Result{}, errors.New("background processes belong to a session, and this call has none")
	}
	if c.delay > 0 {
		t := time.NewTimer(c.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return Result{Error: "Cancelled before the output was read.", Status: dialog.StatusCancelled}, nil
		}
	}
	e, ok := info.Background.Get(c.pid)
	if !ok {
		return Result{Error: fmt.Sprintf("Access denied. Background process ID %d not found in this session's history.", c.pid), Display: "Access denied."}, nil
	}
	kept, dropped, err := e.Process.Output(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("reading the output of background process %d: %w", c.pid, err)
	}
	res := Result{Output: "Log is empty.", Display: "Log is empty."}
	if kept != "" || dropped != 0 {
		s := tailLines(kept, dropped, c.lines)
		res = Result{Output: s, Display: dialog.Fence("", s)}
	}
	if c.sandbox.Enabled() && failed(e) {
		// As run_shell_command says it of a command that failed: what
		// the sandbox refused reads as any failure.
		res.Output += "\nSandbox: " + c.sandbox.Note()
		res.Display += "\n\nSandboxed: " + c.sandbox.Describe() + "."
	}
	return res, nil
}

// failed says that e's process has ended other than with exit code 0.
func failed(e background.Entry) bool {
	if e.Running() {
		return false
	}
	code, _ := e.Process.Exit()
	return code == nil || *code != 0
}

// tailLines is the last n lines of the output kept, headed as Gemini CLI
// heads them, and saying how much output was no longer kept.
func tailLines(kept string, dropped int64, n int) string {
	lines := strings.Split(strings.ToValidUTF8(kept, "\uFFFD"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if dropped != 0 && len(lines) > 0 {
		// Its start was cut: Gemini CLI drops the partial first line.
		lines = lines[1:]
	}
	var head string
	switch {
	case n < len(lines):
		head = fmt.Sprintf("Showing last %d of %d lines:\n", n, len(lines))
		lines = lines[len(lines)-n:]
	case dropped != 0:
		head = "All Kept Output:\n"
	default:
		head = "Full Log Output:\n"
	}
	switch {
	case dropped > 0:
		head = fmt.Sprintf("[Output truncated: %d bytes of output are kept, the last; the %d bytes before them are gone]\n", len(kept), dropped) + head
	case dropped < 0:
		head = fmt.Sprintf("[Output truncated: %d bytes of output are kept, the last; some before them are gone]\n", len(kept)) + head
	}
	return head + strings.Join(lines, "\n")
}
