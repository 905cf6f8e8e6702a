package hooks

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// ran is how a hook's run went, as telemetry tells it.
type ran struct {
	elapsed time.Duration
	// exitCode is nil when the hook did not exit by itself: it timed out,
	// could not be started, or was stopped.
	exitCode       *int
	stdout, stderr string
	// failure says how the hook failed; "" when it did not.
	failure string
}

// record tells telemetry of hook e's run for ev (gemini_cli.hook_call),
// with what Gemini CLI 0.61's HookCallEvent carries: its output as 0.61
// reads it, whatever gemini-ls made of it.
func (r *Runner) record(ev agent.HookEvent, e entry, input map[string]any, how ran) {
	if _, off := r.cfg.Telemetry.(telemetry.Nop); off {
		return // its output is not read again for nothing
	}
	call := telemetry.HookCall{
		SessionID: ev.SessionID,
		Event:     ev.Name,
		Name:      e.name(),
		Type:      e.hook.Type,
		Duration:  how.elapsed,
		ExitCode:  how.exitCode,
		Input:     input,
		Stdout:    how.stdout,
		Stderr:    how.stderr,
		Success:   how.failure == "" && how.exitCode != nil && *how.exitCode == exitSuccess,
	}
	if how.exitCode != nil {
		call.Output = reportedOutput(*how.exitCode, how.stdout, how.stderr)
	}
	// An exit code and stderr say why a hook that exited failed; the
	// other failures (a timeout, output cut or held open) are told.
	if how.failure != "" && (how.exitCode == nil || *how.exitCode == exitSuccess) {
		call.Error = how.failure
	}
	r.cfg.Telemetry.HookCall(call)
}

// exitCode is the code a hook exited with, from how its run ended (err is
// cmd.Run's, ctxErr its context's); nil when it did not exit by itself.
func exitCode(err, ctxErr error, state *os.ProcessState) *int {
	var exit *spawn.ExitError
	switch {
	case state == nil, ctxErr != nil, state.ExitCode() < 0:
		return nil
	case err != nil && !errors.As(err, &exit) && !errors.Is(err, spawn.ErrWaitDelay):
		return nil
	}
	code := state.ExitCode()
	return &code
}

// nonBlockingError is the exit code Gemini CLI reads as a warning.
const nonBlockingError = 1

// reportedOutput is a hook's output as Gemini CLI 0.61's runner reads it
// for its HookCallEvent (executeCommandHook): the JSON value its stdout,
// else its stderr, holds (a JSON string holding one is read again), when
// an object or an array; text that is not JSON made a decision
// (convertPlainTextToHookOutput); nil when it printed nothing.
func reportedOutput(code int, stdout, stderr string) any {
	text := strings.TrimSpace(stdout)
	if text == "" {
		text = strings.TrimSpace(stderr)
	}
	if text == "" {
		return nil
	}
	var parsed any
	err := json.Unmarshal([]byte(text), &parsed)
	if s, ok := parsed.(string); ok && err == nil {
		parsed = nil
		err = json.Unmarshal([]byte(s), &parsed)
	}
	if err != nil {
		return plainTextOutput(code, text)
	}
	switch parsed.(type) {
	case map[string]any, []any:
		return parsed
	}
	return nil
}

// plainTextOutput is 0.61's convertPlainTextToHookOutput.
func plainTextOutput(code int, text string) map[string]any {
	switch code {
	case exitSuccess:
		return map[string]any{"decision": "allow", "systemMessage": text}
	case nonBlockingError:
		return map[string]any{"decision": "allow", "systemMessage": "Warning: " + text}
	}
	return map[string]any{"decision": "deny", "reason": text}
}
