package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Shell commands in the client's terminal: when the client declared
// `terminal` in initialize, run_shell_command's commands run there
// (terminal/create, wait_for_exit, output, kill, release) and the tool
// call shows the terminal, so the user watches them; else on this
// machine, as headless runs them. The model is told the same either way
// (dialog.CommandRunner).

// terminalStepTimeout bounds each terminal request made after the
// command's context ended (kill, output, release): they must happen even
// when the prompt was cancelled, but a client that does not answer must
// not hold the cancelled prompt up.
const terminalStepTimeout = time.Second

// outputPoll is how often a running command's terminal output is read
// to tell whether it still prints (dialog.ShellCommand.Progress): a
// client tells a terminal's output only when asked.
const outputPoll = time.Second

// terminalRunner runs a session's shell commands.
type terminalRunner struct{ sess *session }

// shellRunner is the runner of the session's shell commands, those run
// in the foreground and the background ones (dialog.BackgroundRunner).
func (sess *session) shellRunner() dialog.CommandRunner { return terminalRunner{sess} }

// showTerminal shows terminal id in call callID (none when ""), live from
// now on; the call's final update keeps it.
func (sess *session) showTerminal(ctx context.Context, callID, id string) {
	if callID == "" {
		return
	}
	ref := sdk.ToolTerminalRef(id)
	sess.attach(callID, ref)
	sess.update(ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(callID),
		Status:     sdk.Ptr(sdk.ToolCallStatusInProgress),
		Content:    []sdk.ToolCallContent{ref},
	}})
}

// Run implements dialog.CommandRunner: in the client's terminal when it
// has one, else locally. The terminal is killed when ctx ends (the prompt
// was cancelled or the tool's timeout fired), and always released.
func (r terminalRunner) Run(ctx context.Context, c dialog.ShellCommand) (dialog.ShellOutcome, error) {
	sess := r.sess
	// The client's terminal is outside the sandbox: a sandboxed session
	// runs its commands here.
	if !sess.srv.capabilities().Terminal || c.Sandbox().Enabled() {
		return conversation.RunLocally(ctx, c)
	}
	id, err := sess.startTerminal(ctx, c, "command")
	if err != nil {
		return dialog.ShellOutcome{}, err
	}
	log := sess.log.With(zap.String("terminalId", id))
	sess.showTerminal(ctx, c.CallID, id)
	t := clientTerminal{sess: sess, id: id, log: log}
	defer t.release(ctx)
	if c.Progress != nil {
		watching, stop := context.WithCancel(ctx)
		var watched sync.WaitGroup
		watched.Go(func() { t.watch(watching, c.Progress) })
		// Stopped before the terminal is released.
		defer watched.Wait()
		defer stop()
	}

	var status *sdk.TerminalExitStatus
	exit, waitErr := sess.srv.waitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sdk.SessionId(sess.id), TerminalId: id})
	if waitErr == nil {
		status = &sdk.TerminalExitStatus{ExitCode: exit.ExitCode, Signal: exit.Signal}
	} else {
		// Cancelled, timed out, or the client lost track of it: the
		// command must not run on unwatched.
		status = t.kill(ctx)
	}
	out, outErr := t.output(ctx)
	switch {
	case waitErr != nil && ctx.Err() == nil:
		return dialog.ShellOutcome{}, fmt.Errorf("the editor's terminal did not report the command's end: terminal/wait_for_exit failed: %s", clientError(waitErr))
	case outErr != nil && ctx.Err() == nil:
		return dialog.ShellOutcome{}, fmt.Errorf("the editor's terminal did not give the command's output: terminal/output failed: %s", clientError(outErr))
	case outErr != nil:
		log.Debug("reading a killed terminal's output", zap.Error(outErr))
	}
	if status == nil {
		status = out.ExitStatus
	}
	o := dialog.ShellOutcome{Live: true}
	o.Output, o.Dropped = keptOutput(out, c.OutputLimit)
	if status != nil {
		o.ExitCode = status.ExitCode
		if status.Signal != nil {
			o.Signal = *status.Signal
		}
	}
	return o, nil
}

// keptOutput is the tail of a terminal's output the tool keeps, limit
// bytes at most (the client may keep more than asked), and how many bytes
// before it are not kept (-1: some, the client did not say how many).
func keptOutput(out sdk.TerminalOutputResponse, limit int) (string, int64) {
	kept, dropped := out.Output, int64(0)
	if out.Truncated {
		dropped = -1
	}
	if over := len(kept) - limit; limit > 0 && over > 0 {
		kept = kept[over:]
		if dropped == 0 {
			dropped = int64(over)
		}
	}
	return kept, dropped
}

// startTerminal is createTerminal with its failure said for the user and
// the model: what (the "command", the "background command") did not
// start, because ctx ended or the client refused.
func (sess *session) startTerminal(ctx context.Context, c dialog.ShellCommand, what string) (string, error) {
	id, err := sess.createTerminal(ctx, c)
	switch {
	case err == nil:
		return id, nil
	case ctx.Err() != nil:
		return "", fmt.Errorf("the %s did not start in the editor's terminal: %w", what, ctx.Err())
	}
	return "", fmt.Errorf("the editor's terminal could not run the %s: terminal/create failed: %s", what, clientError(err))
}

// createTerminal asks the client for a terminal running c and returns its
// id. The request outlives ctx: should ctx end first, createTerminal
// returns at once, and the terminal, once the client makes it, is killed
// and released.
func (sess *session) createTerminal(ctx context.Context, c dialog.ShellCommand) (string, error) {
	sh := c.Shell.OrLocal()
	req := sdk.CreateTerminalRequest{
		SessionId: sdk.SessionId(sess.id),
		Command:   sh.Executable,
		Args:      append(slices.Clone(sh.Args), c.Command),
		Cwd:       sdk.Ptr(c.Dir),
	}
	if c.OutputLimit > 0 {
		req.OutputByteLimit = sdk.Ptr(c.OutputLimit)
	}
	for _, kv := range c.Env {
		name, value, _ := strings.Cut(kv, "=")
		req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
	}
	type created struct {
		id  string
		err error
	}
	done := make(chan created, 1)
	go func() {
		// The connection's life bounds it: wire answers when the
		// client goes away.
		id, err := sess.srv.createTerminal(sess.srv.life, req)
		done <- created{id, err}
	}()
	select {
	case r := <-done:
		return r.id, r.err
	case <-ctx.Done():
	}
	// ACP's prompt answers "cancelled" only once what ran is stopped: a
	// terminal the client makes in the next moment is killed and released
	// before this returns; one made later, whenever it comes.
	end := func(r created) {
		if r.err == nil {
			t := clientTerminal{sess: sess, id: r.id, log: sess.log.With(zap.String("terminalId", r.id))}
			t.kill(ctx)
			t.release(ctx)
		}
	}
	wait, cancel := afterwards(ctx)
	defer cancel()
	select {
	case r := <-done:
		end(r)
	case <-wait.Done():
		go func() { end(<-done) }()
	}
	return "", ctx.Err()
}

// clientTerminal is a terminal the client made for a command. Its
// methods run after the command's context ctx may have ended.
type clientTerminal struct {
	sess *session
	id   string
	log  *zap.Logger
}

// afterwards is a context for a request made once ctx may have ended: it
// survives the cancellation, briefly.
func afterwards(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), terminalStepTimeout)
}

// kill ends the command and returns how it ended, when the client says
// so in time.
func (t clientTerminal) kill(ctx context.Context) *sdk.TerminalExitStatus {
	kctx, cancel := afterwards(ctx)
	defer cancel()
	srv, sid := t.sess.srv, sdk.SessionId(t.sess.id)
	if err := srv.killTerminal(kctx, sdk.KillTerminalRequest{SessionId: sid, TerminalId: t.id}); err != nil {
		t.log.Debug("killing a terminal", zap.Error(err))
		return nil
	}
	exit, err := srv.waitForTerminalExit(kctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: t.id})
	if err != nil {
		t.log.Debug("waiting for a killed terminal", zap.Error(err))
		return nil
	}
	return &sdk.TerminalExitStatus{ExitCode: exit.ExitCode, Signal: exit.Signal}
}

// watch calls progress whenever the terminal's output changed since it
// was last read, reading it every outputPoll until ctx ends.
func (t clientTerminal) watch(ctx context.Context, progress func()) {
	tick := time.NewTicker(outputPoll)
	defer tick.Stop()
	req := sdk.TerminalOutputRequest{SessionId: sdk.SessionId(t.sess.id), TerminalId: t.id}
	var last sdk.TerminalOutputResponse
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		out, err := t.sess.srv.terminalOutput(ctx, req)
		if err != nil {
			// Asked again at the next tick; the wait for its exit tells
			// a terminal that is gone.
			continue
		}
		if out.Output != last.Output || out.Truncated != last.Truncated {
			progress()
		}
		last = out
	}
}

// output is the terminal's output and, if it has ended, its exit status.
func (t clientTerminal) output(ctx context.Context) (sdk.TerminalOutputResponse, error) {
	octx, cancel := afterwards(ctx)
	defer cancel()
	return t.sess.srv.terminalOutput(octx, sdk.TerminalOutputRequest{SessionId: sdk.SessionId(t.sess.id), TerminalId: t.id})
}

// release lets the client free the terminal; the tool call keeps showing
// its output.
func (t clientTerminal) release(ctx context.Context) {
	rctx, cancel := afterwards(ctx)
	defer cancel()
	if err := t.sess.srv.releaseTerminal(rctx, sdk.ReleaseTerminalRequest{SessionId: sdk.SessionId(t.sess.id), TerminalId: t.id}); err != nil {
		t.log.Warn("releasing a terminal", zap.Error(err))
	}
}
