package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gemini-ls/gemini-ls/tools"
)

// approvals is one session's approval service, the one door every call
// passes: before a call runs, the turn asks it whether the call may run
// without asking the user (allows), and where the user is asked, the
// turn records their "always allow" here (allowAlways). Front ends never
// consult it: they present the question they are handed and land what
// was allowed. It is the only record of what the user allowed, so it is
// what a persisted session saves and restores.
type approvals struct {
	// mode reads the agent's approval mode, which may change while the
	// session lives (workspace/didChangeConfiguration).
	mode func() tools.ApprovalMode
	// preapproved are the keys settings allow (tools.allowed), and
	// trustedTools the tools every call of which they allow.
	preapproved  map[string]bool
	trustedTools map[string]bool

	mu      sync.Mutex // guards allowed
	allowed map[string]bool
}

func newApprovals(mode func() tools.ApprovalMode, preapproved, trustedTools []string) *approvals {
	a := &approvals{mode: mode, preapproved: map[string]bool{}, trustedTools: map[string]bool{}, allowed: map[string]bool{}}
	for _, key := range preapproved {
		a.preapproved[key] = true
	}
	for _, name := range trustedTools {
		a.trustedTools[name] = true
	}
	return a
}

// allows reports whether a call of tool name that needs c approved runs
// without asking. In order: a call needing no approval runs; yolo allows
// everything; a call its settings trust (an MCP server's "trust": true)
// runs, as does every call of a tool settings' tools.allowed names; else
// every one of c's keys must be allowed: edits by auto_edit, any key by
// tools.allowed or the user's "always allow". A call without keys asks.
func (a *approvals) allows(name string, c *tools.Confirmation) bool {
	switch {
	case c == nil:
		return true
	case a.mode() == tools.ApprovalYolo, c.Trusted, a.trustedTools[name]:
		return true
	}
	return a.allowedKeys(c.AllowKeys)
}

func (a *approvals) allowedKeys(keys []string) bool {
	if len(keys) == 0 {
		return false
	}
	mode := a.mode()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, key := range keys {
		switch {
		case key == tools.EditKey && mode == tools.ApprovalAutoEdit:
		case a.allowed[key], a.preapproved[key]:
		default:
			return false
		}
	}
	return true
}

// allowAlways records keys as allowed for the rest of the session.
func (a *approvals) allowAlways(keys ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, key := range keys {
		a.allowed[key] = true
	}
}

// keys returns what the user allowed for good, sorted, for saving.
func (a *approvals) keys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := make([]string, 0, len(a.allowed))
	for key := range a.allowed {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// errNoConfirmer: a call needs the user's approval and no front end asks.
var errNoConfirmer = errors.New("no one can be asked for approval")

// approve is the door: it reports whether a call of tool name that needs
// c approved may run, asking the user through the Confirmer when the
// session's approvals do not allow it, and recording their "always
// allow". callID is the call the question is about ("" for none). err is
// why nobody answered: errNoConfirmer, the Confirmer's error, or ctx's.
func (s *Session) approve(ctx context.Context, callID, name string, c *tools.Confirmation) (allowed bool, err error) {
	if s.approvals.allows(name, c) {
		return true, nil
	}
	confirmer := s.agent.cfg.Confirmer
	if confirmer == nil {
		return false, errNoConfirmer
	}
	outcome, err := confirmer.Confirm(ctx, ConfirmRequest{
		SessionID: s.id,
		CallID:    callID,
		Kind:      c.Kind,
		Title:     c.Title,
		Details:   c.Details,
	})
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil:
		return false, err
	case outcome == ProceedAlways:
		s.approvals.allowAlways(c.AllowKeys...)
		return true, nil
	}
	return outcome == ProceedOnce, nil
}

// AllowShell decides whether command, run for the user outside the
// model's turn (a custom command's !{…}), may run, exactly as a
// run_shell_command call of it would be: the same confirmation and keys
// through the same door, so tools.allowed, yolo and the user's "always
// allow" (given to either) count alike. false with a nil error is the
// user's no; an error is why nobody could say yes.
func (s *Session) AllowShell(ctx context.Context, command string) (bool, error) {
	allowed, err := s.approve(ctx, "", tools.ShellName, tools.ShellConfirmation(command))
	switch {
	case errors.Is(err, errNoConfirmer):
		return false, fmt.Errorf("%w: no front end can ask whether to run %q", ErrCannotAsk, command)
	case err != nil && ctx.Err() == nil:
		return false, fmt.Errorf("%q: %w", command, err)
	}
	return allowed, err
}
