package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Background commands in the client's terminal: when the client declared
// `terminal`, run_shell_command's is_background commands run there too,
// so the user sees them, and the session's background registry owns them
// as it owns local ones: list_background_processes lists them,
// read_background_output reads terminal/output, and the session's end
// kills them (terminal/kill). A terminal is released once its command
// has ended and its last output been read, so the client frees it.
//
// A terminal has no PID the agent can know: the model is given a number
// of the session's own (1, 2, …) in its place, found as a PID is.

// Start implements dialog.BackgroundRunner: in the client's terminal when
// it has one, else locally. ctx bounds the terminal's creation; the
// command outlives it, watched for as long as the connection lives.
func (r terminalRunner) Start(ctx context.Context, c dialog.ShellCommand) (dialog.BackgroundProcess, error) {
	sess := r.sess
	// The client's terminal is outside the sandbox: a sandboxed session
	// runs its commands here.
	if !sess.srv.capabilities().Terminal || c.Sandbox().Enabled() {
		return conversation.StartLocally(ctx, c)
	}
	id, err := sess.startTerminal(ctx, c, "background command")
	if err != nil {
		return nil, err
	}
	sess.showTerminal(ctx, c.CallID, id)
	p := &terminalProcess{
		t:     clientTerminal{sess: sess, id: id, log: sess.log.With(zap.String("terminalId", id))},
		pid:   int(sess.backgroundIDs.Add(1)),
		limit: c.OutputLimit,
		done:  make(chan struct{}),
	}
	go p.watch(sess.srv.life)
	return p, nil
}

// terminalProcess is a background command in the client's terminal.
type terminalProcess struct {
	t     clientTerminal
	pid   int
	limit int
	done  chan struct{}
	// Set before done is closed: how it ended, and its last output.
	code    *int
	signal  string
	kept    string
	dropped int64
	outErr  error
}

// watch waits for the command's end, keeps its last output and releases
// the terminal. life is the connection's: a client gone ends the wait.
func (p *terminalProcess) watch(life context.Context) {
	srv, sid := p.t.sess.srv, sdk.SessionId(p.t.sess.id)
	var status *sdk.TerminalExitStatus
	exit, err := srv.waitForTerminalExit(life, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: p.t.id})
	if err == nil {
		status = &sdk.TerminalExitStatus{ExitCode: exit.ExitCode, Signal: exit.Signal}
	} else {
		// The client lost track of it, or went: it must not run on
		// unwatched.
		p.t.log.Debug("waiting for a background terminal", zap.Error(err))
		status = p.t.kill(life)
	}
	out, err := p.t.output(life)
	if err != nil {
		p.outErr = fmt.Errorf("terminal/output failed: %s", clientError(err))
	} else {
		p.kept, p.dropped = keptOutput(out, p.limit)
		if status == nil {
			status = out.ExitStatus
		}
	}
	if status != nil {
		p.code = status.ExitCode
		if status.Signal != nil {
			p.signal = *status.Signal
		}
	}
	close(p.done)
	p.t.release(life)
}

func (p *terminalProcess) PID() int                      { return p.pid }
func (p *terminalProcess) Done() <-chan struct{}         { return p.done }
func (p *terminalProcess) Exit() (code *int, sig string) { return p.code, p.signal }

// Output is the terminal's output now (terminal/output), or, once the
// command has ended, the last output read of it.
func (p *terminalProcess) Output(ctx context.Context) (string, int64, error) {
	select {
	case <-p.done:
		return p.kept, p.dropped, p.outErr
	default:
	}
	out, err := p.t.sess.srv.terminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: sdk.SessionId(p.t.sess.id), TerminalId: p.t.id})
	if err != nil {
		select {
		case <-p.done: // It ended, and was released, meanwhile.
			return p.kept, p.dropped, p.outErr
		default:
		}
		return "", 0, fmt.Errorf("the editor's terminal did not give the output: terminal/output failed: %s", clientError(err))
	}
	kept, dropped := keptOutput(out, p.limit)
	return kept, dropped, nil
}

// Kill asks the client to kill the command (terminal/kill); watch then
// sees it end and releases the terminal. One that ended is no error.
func (p *terminalProcess) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	ctx, cancel := afterwards(p.t.sess.srv.life)
	defer cancel()
	if err := p.t.sess.srv.killTerminal(ctx, sdk.KillTerminalRequest{SessionId: sdk.SessionId(p.t.sess.id), TerminalId: p.t.id}); err != nil {
		return fmt.Errorf("terminal/kill of %s failed: %s", p.t.id, clientError(err))
	}
	return nil
}
