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
	// plansDir is where plan mode lets the plan file be written; "" when
	// the session has none.
	plansDir func() string

	mu      sync.Mutex // guards allowed
	allowed map[string]bool
}

func newApprovals(mode func() tools.ApprovalMode, plansDir func() string, preapproved, trustedTools []string) *approvals {
	a := &approvals{mode: mode, plansDir: plansDir, preapproved: map[string]bool{}, trustedTools: map[string]bool{}, allowed: map[string]bool{}}
	for _, key := range preapproved {
		a.preapproved[key] = true
	}
	for _, name := range trustedTools {
		a.trustedTools[name] = true
	}
	return a
}

// Plan mode's refusals, in Gemini CLI's words (policies/plan.toml).
const (
	planModeRefusal   = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."
	planEditRefusal   = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."
	alreadyPlanning   = "You are already in Plan Mode."
	notPlanning       = "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan."
	noPlanningForYolo = `Tool execution for "Enter Plan Mode" denied by policy: plan mode is not available in YOLO mode.`
)

// planReadOnly reports whether plan mode runs tool name, as Gemini CLI's
// policy allows it there (read-only.toml, plan.toml); ask_user's question
// is its own confirmation, and web_fetch and activate_skill ask (allows).
func planReadOnly(name string) bool {
	switch name {
	case tools.GlobName, tools.GrepSearchName, tools.ListDirectoryName, tools.ReadFileName,
		tools.WebSearchName, tools.WebFetchName, "ask_user", tools.ExitPlanModeName, tools.ActivateSkillName:
		return true
	}
	return false
}

// refusal is why a call of tool name that needs c approved may not run
// at all in the approval mode, for the model to act on; "" when it may
// (asking or not: allows decides). Plan mode runs only the read-only
// tools and the writing of a plan file (tools.IsPlanFile); the planning
// tools refuse to switch to the mode the session is in.
func (a *approvals) refusal(name string, c *tools.Confirmation) string {
	mode := a.mode()
	switch {
	case name == tools.EnterPlanModeName && mode == tools.ApprovalPlan:
		return alreadyPlanning
	case name == tools.EnterPlanModeName && mode == tools.ApprovalYolo:
		return noPlanningForYolo
	case name == tools.ExitPlanModeName && mode != tools.ApprovalPlan:
		return notPlanning
	case mode != tools.ApprovalPlan, planReadOnly(name), a.isPlanEdit(name, c):
		return ""
	case name == tools.WriteFileName, name == tools.ReplaceName:
		return planEditRefusal
	}
	return planModeRefusal
}

// isPlanEdit reports whether the call is a write of a plan file.
func (a *approvals) isPlanEdit(name string, c *tools.Confirmation) bool {
	return (name == tools.WriteFileName || name == tools.ReplaceName) && c != nil && tools.IsPlanFile(a.plansDir(), c.Path)
}

// allows reports whether a call of tool name that needs c approved runs
// without asking, once refusal let it run at all. In order: plan mode
// runs what needs no approval and the plan file's writes, and asks about
// the rest it lets run (web_fetch), whatever was allowed before, as
// Gemini CLI's approvals of other modes do not count in plan mode; a call
// needing no approval runs; yolo allows everything; a call its settings
// trust (an MCP server's "trust": true) runs, as does every call of a
// tool settings' tools.allowed names; else every one of c's keys must be
// allowed: edits by auto_edit, any key by tools.allowed or the user's
// "always allow". A call without keys asks.
func (a *approvals) allows(name string, c *tools.Confirmation) bool {
	switch {
	case a.mode() == tools.ApprovalPlan:
		return c == nil || a.isPlanEdit(name, c)
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
	if why := s.approvals.refusal(tools.ShellName, tools.ShellConfirmation(command)); why != "" {
		return false, fmt.Errorf("%q: %s", command, why)
	}
	allowed, err := s.approve(ctx, "", tools.ShellName, tools.ShellConfirmation(command))
	switch {
	case errors.Is(err, errNoConfirmer):
		return false, fmt.Errorf("%w: no front end can ask whether to run %q", ErrCannotAsk, command)
	case err != nil && ctx.Err() == nil:
		return false, fmt.Errorf("%q: %w", command, err)
	}
	return allowed, err
}
