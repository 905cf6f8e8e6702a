package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// maxOutput bounds what is kept of a hook's stdout and of its stderr:
// far more than any decision needs, little enough that a hook printing
// without end costs nothing.
const maxOutput = 1 << 20

// Exit codes with a meaning, as Gemini CLI reads them.
const (
	exitSuccess = 0
	exitBlock   = 2
)

// result is how one hook ran.
type result struct {
	name string
	// output is what it decided; nil when it decided nothing (it failed,
	// or printed nothing).
	output *output
	// failure says how it failed, for the user; "" when it did not.
	failure string
}

// run runs hook e of ev with input on its stdin.
func (r *Runner) run(ctx context.Context, e entry, ev agent.HookEvent, input map[string]any) result {
	event := ev.Name
	res := result{name: e.name()}
	timeout := e.timeout()
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	stdin, err := json.Marshal(input)
	if err != nil {
		res.failure = fmt.Sprintf("its input could not be encoded: %v", err)
		r.record(ev, e, input, ran{failure: res.failure})
		return r.logged(event, res, 0, nil, "")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := r.command(ctx, e, ev)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &boundedBuffer{max: maxOutput}, &boundedBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	cancelled := ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded)
	res.output, res.failure = outcome(err, ctx.Err(), timeout, cmd.ProcessState, stdout, stderr)
	if res.failure != "" || cancelled {
		// A hook stopped or failed leaves nothing running: what it started
		// and left behind goes with it (its group), even once it exited.
		if kerr := cmd.Kill(); kerr != nil {
			r.cfg.Logger.Warn("a hook's processes could not be stopped", zap.String("event", event), zap.String("hook", res.name), zap.Error(kerr))
		}
	}
	facts := ran{elapsed: elapsed, exitCode: exitCode(err, ctx.Err(), cmd.ProcessState), stdout: stdout.String(), stderr: stderr.String(), failure: res.failure}
	if cancelled {
		// What it hooked was cancelled, by the user: no failure to report.
		r.cfg.Logger.Info("a hook was stopped, as what it hooked was cancelled", zap.String("event", event), zap.String("hook", res.name))
		facts.failure = "it was stopped, as what it hooked was cancelled"
		r.record(ev, e, input, facts)
		return result{name: res.name}
	}
	r.record(ev, e, input, facts)
	return r.logged(event, res, elapsed, cmd.ProcessState, stderr.String())
}

// command is hook e's command for ev, ready to run under ctx: in the
// project, with Gemini CLI's variables.
func (r *Runner) command(ctx context.Context, e entry, ev agent.HookEvent) *spawn.Cmd {
	sh := r.shell()
	cmd := sh.Command(ctx, r.cfg.Door, spawn.Configured{Setting: "hooks." + ev.Name, Kind: spawn.Hook}, r.expand(sh, e.hook.Command, ev))
	// A process the hook left behind may hold its output open; it does not
	// keep the hook's result waiting.
	cmd.WaitDelay = time.Second
	cmd.Dir = r.cfg.ProjectDir
	cmd.Env = append(r.environ(),
		"GEMINI_PROJECT_DIR="+r.cfg.ProjectDir,
		"GEMINI_CWD="+r.cfg.ProjectDir,
		"GEMINI_SESSION_ID="+ev.SessionID,
		"CLAUDE_PROJECT_DIR="+r.cfg.ProjectDir,
	)
	if ev.PlansDir != "" {
		cmd.Env = append(cmd.Env, "GEMINI_PLANS_DIR="+ev.PlansDir)
	}
	return cmd
}

// outcome is what a hook decided, or how it failed, from how its run
// ended: err is cmd.Run's, ctxErr its context's.
func outcome(err, ctxErr error, timeout time.Duration, state *os.ProcessState, stdout, stderr *boundedBuffer) (*output, string) {
	var exit *spawn.ExitError
	switch {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return nil, fmt.Sprintf("it timed out after %v and was stopped", timeout)
	case errors.Is(err, spawn.ErrWaitDelay):
		// It exited, but what it left running holds its output open: its
		// output may not be all there.
		return nil, "it exited leaving a process that held its output open, which was stopped"
	case err != nil && !errors.As(err, &exit):
		return nil, fmt.Sprintf("it could not be run: %v", err)
	}
	return interpret(state.ExitCode(), stdout, stderr)
}

// interpret reads a hook that exited with code, as Gemini CLI does: its
// stdout (else its stderr) is its JSON output; text that is not JSON is a
// message to the user on success, and the reason of the block with exit
// code 2, read from stderr first, as the documentation says. Any other
// exit code is a failure, which blocks nothing.
func interpret(code int, stdout, stderr *boundedBuffer) (*output, string) {
	if stdout.cut {
		return nil, fmt.Sprintf("it printed more than %d bytes, which is not its JSON output", maxOutput)
	}
	text := strings.TrimSpace(stdout.String())
	if text == "" {
		text = strings.TrimSpace(stderr.String())
	}
	parsed, isJSON := parseOutput(text)
	switch {
	case code == exitBlock && isJSON:
		return parsed, ""
	case code == exitBlock:
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = text
		}
		if reason == "" {
			reason = "a hook exited with code 2 and said nothing"
		}
		return &output{Decision: "deny", Reason: reason}, ""
	case code != exitSuccess:
		why := fmt.Sprintf("it exited with code %d", code)
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			why += ": " + firstLines(msg, 5)
		}
		return nil, why
	case text == "":
		return nil, ""
	case isJSON:
		return parsed, ""
	}
	// Not JSON: Gemini CLI shows it to the user and allows.
	return &output{SystemMessage: text}, ""
}

// logged logs how a hook ran and returns res.
func (r *Runner) logged(event string, res result, elapsed time.Duration, state *os.ProcessState, stderr string) result {
	fields := []zap.Field{zap.String("event", event), zap.String("hook", res.name), zap.Duration("duration", elapsed)}
	if state != nil {
		fields = append(fields, zap.Int("exitCode", state.ExitCode()))
	}
	if stderr != "" {
		fields = append(fields, zap.String("stderr", firstLines(stderr, 20)))
	}
	if res.failure != "" {
		r.cfg.Logger.Warn("a hook failed: "+res.failure, fields...)
	} else {
		r.cfg.Logger.Info("ran a hook", fields...)
	}
	return res
}

// shell is the shell hooks' commands run in: Config.Shell, as in Gemini
// CLI; where that is bash and there is none, sh.
func (r *Runner) shell() osshell.Shell {
	sh := r.cfg.Shell.OrLocal()
	if sh.Kind != osshell.Bash {
		return sh
	}
	if path, err := spawn.LookPath(sh.Executable); err == nil {
		sh.Executable = path
	} else {
		sh.Executable = "/bin/sh"
	}
	return sh
}

func (r *Runner) environ() []string {
	env := r.cfg.Environ
	if env == nil {
		env = os.Environ()
	}
	return envredact.Sanitize(env, r.cfg.Redaction)
}

// expand replaces the GEMINI_ variables in command with their values,
// quoted for sh, as Gemini CLI does before it runs the command;
// $GEMINI_PLANS_DIR only once the session has a plans directory.
func (r *Runner) expand(sh osshell.Shell, command string, ev agent.HookEvent) string {
	dir := sh.Quote(r.cfg.ProjectDir)
	pairs := []string{
		"$GEMINI_PROJECT_DIR", dir,
		"$GEMINI_CWD", dir,
		"$GEMINI_SESSION_ID", sh.Quote(ev.SessionID),
		"$CLAUDE_PROJECT_DIR", dir,
	}
	if ev.PlansDir != "" {
		pairs = append(pairs, "$GEMINI_PLANS_DIR", sh.Quote(ev.PlansDir))
	}
	return strings.NewReplacer(pairs...).Replace(command)
}

// firstLines is at most n lines of s, marked when cut.
func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		return strings.Join(lines[:n], "\n") + "\n…"
	}
	return strings.Join(lines, "\n")
}

// boundedBuffer keeps the first max bytes written to it and drops the
// rest, never failing the writer.
type boundedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.cut = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string { return b.buf.String() }
