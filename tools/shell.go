package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
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

func (t *shellTool) Name() string { return ShellName }

// shellParams are run_shell_command's parameters.
type shellParams struct {
	Command     string `json:"command" desc:"The exact bash command to run."`
	Description string `json:"description,omitempty" desc:"A brief description of what the command does, shown to the user."`
	Directory   string `json:"directory,omitempty" desc:"The directory to run in, relative to the workspace root. Defaults to the root."`
}

func (t *shellTool) Declaration() *genai.FunctionDeclaration {
	return declare[shellParams](ShellName, "Runs a command with `bash -c` in the workspace and returns its combined stdout and stderr (the last 64 KiB), exit code and signal. "+
		"The user must approve it. Commands are killed after a timeout; do not start interactive programs.")
}

func (t *shellTool) Build(raw map[string]any) (Call, error) {
	var p shellParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return nil, errors.New("The 'command' parameter must be non-empty.")
	}
	root, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	dir := root
	if p.Directory != "" {
		if dir, err = resolvePath(t.ws, "directory", p.Directory); err != nil {
			return nil, err
		}
		isDir, err := t.ws.Stat(dir)
		if err != nil || !isDir {
			return nil, fmt.Errorf("Directory must exist and be a directory: %s", dir)
		}
	}
	return &shellCall{ws: t.ws, opts: t.opts, command: p.Command, description: p.Description, dir: dir, hasDir: dir != root}, nil
}

type shellCall struct {
	ws          *workspace.Workspace
	opts        ShellOptions
	command     string
	description string
	dir         string
	hasDir      bool
}

func (c *shellCall) Title() string {
	title := "Shell " + firstLine(c.command)
	if c.hasDir {
		title += " [in " + displayPath(c.ws, c.dir) + "]"
	}
	if c.description != "" {
		title += " (" + firstLine(c.description) + ")"
	}
	return title
}

func (c *shellCall) Kind() Kind { return KindExecute }

func (c *shellCall) Confirmation() *Confirmation {
	check := checkCommand(c.command)
	title := "Allow shell command?"
	if check.why != "" {
		title += " Always Allow cannot cover it: " + check.why + "."
	}
	return &Confirmation{
		Kind:      "execute",
		Title:     title,
		Details:   c.command,
		AllowKeys: check.names,
	}
}

func (c *shellCall) Execute(ctx context.Context) (Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()

	out := &tailBuffer{max: maxShellOutput}
	cmd := exec.CommandContext(runCtx, "bash", "-c", c.command)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.opts.Env...)
	// Stdin stays nil (/dev/null): a command reading input ends instead of hanging.
	cmd.Stdout = out
	cmd.Stderr = out
	startInGroup(cmd)
	// Cancelling kills the whole group, so pipelines and children die too.
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = shellWaitDelay
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("starting bash in %s: %w", c.dir, err)
	}
	pgid := cmd.Process.Pid
	waitErr := cmd.Wait()

	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return Result{}, fmt.Errorf("running %q: %w", c.command, waitErr)
	}
	background := "(none)"
	if runCtx.Err() == nil {
		if pids := groupMembers(pgid); len(pids) > 0 {
			background = strings.Join(pids, ", ")
		}
	}
	exitCode, signal := exitStatus(cmd.ProcessState)

	status := StatusOK
	errText := "(none)"
	switch {
	case ctx.Err() != nil:
		status, errText = StatusCancelled, "Command was cancelled before it could complete."
	case runCtx.Err() != nil:
		status, errText = StatusError, fmt.Sprintf("Command timed out after %s and was killed.", c.opts.Timeout)
	}

	output := out.String()
	if strings.TrimSpace(output) == "" {
		output = "(empty)"
	}
	dir := "(root)"
	if c.hasDir {
		dir = displayPath(c.ws, c.dir)
	}
	llm := fmt.Sprintf("Command: %s\nDirectory: %s\nOutput: %s\nError: %s\nExit Code: %s\nSignal: %s\nBackground PIDs: %s\nProcess Group PGID: %d",
		c.command, dir, output, errText, exitCode, signal, background, pgid)

	display := fence("", output)
	if errText != "(none)" {
		display = errText + "\n\n" + display
	} else if exitCode != "0" {
		display = "Exit code " + exitCode + "\n\n" + display
	}
	return Result{Output: llm, Status: status, Display: display}, nil
}

// firstLine is s up to its first line break, marked when cut.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept output, valid UTF-8, without trailing line breaks,
// preceded by a note when the start was cut.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.dropped > 0 {
		// Do not start in the middle of a character.
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	s := strings.ToValidUTF8(string(bytes.TrimRight(b, "\r\n")), "\uFFFD")
	if t.dropped > 0 {
		s = fmt.Sprintf("[Output truncated: showing the last %d of %d bytes]\n", len(b), int64(len(t.buf))+t.dropped) + s
	}
	return s
}
