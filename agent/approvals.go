package agent

import (
	"slices"
	"sync"

	"github.com/gemini-ls/gemini-ls/tools"
)

// approvals is one session's permission service (tools.Permissions): the
// agent asks it before a call that needs confirmation, a front end's
// proposer asks it before showing an edit, and whichever of them asked the
// user records an "always allow" here. It is the only record of what the
// user allowed, so it is what a persisted session saves and restores.
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

// allowedCall reports whether a call of tool name whose confirmation
// carries keys runs without asking.
func (a *approvals) allowedCall(name string, keys []string) bool {
	return a.trustedTools[name] || a.Allowed(keys...)
}

// Allowed reports whether every one of keys runs without asking: yolo
// allows everything, auto_edit allows edits, and otherwise each key must
// be preapproved by settings or allowed for good by the user. A call
// without keys always asks.
func (a *approvals) Allowed(keys ...string) bool {
	mode := a.mode()
	if mode == tools.ApprovalYolo {
		return true
	}
	if len(keys) == 0 {
		return false
	}
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

// AllowAlways records keys as allowed for the rest of the session.
func (a *approvals) AllowAlways(keys ...string) {
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
