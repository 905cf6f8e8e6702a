package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/tools"
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
	mode func() dialog.ApprovalMode
	// preapproved are the keys settings allow (tools.allowed), and
	// trustedTools the tools every call of which they allow.
	preapproved  map[string]bool
	trustedTools map[string]bool
	// plansDir is where plan mode lets the plan file be written; "" when
	// the session has none.
	plansDir func() string
	// annotations are what tool name says it is (tools.Annotations), by
	// which plan mode and auto_edit decide; none for a tool not there.
	annotations func(name string) tools.Annotations
	// policy holds the rules of the policy files, which outrank all the
	// above as their priorities say (decide); none when nil.
	policy *policy.Engine
	// shell is the language of run_shell_command's lines, as the rules
	// and "always allow" read them.
	shell osshell.Kind
	// protected are the files whose edits always ask (guard).
	protected protected.Set
	// included reports whether a path lies in a directory included from
	// outside the project (Agent.throughIncluded), where yolo asks about
	// protected files too (guard); none when nil.
	included func(path string) bool
	// always is whether and how the user's "always allow" is offered.
	always AlwaysAllow

	// mu guards allowed; both are shared with the approvals of the
	// session's subagents (withAnnotations).
	mu      *sync.Mutex
	allowed map[string]bool
}

// withAnnotations is the door of a subagent of the session: the same
// mode, rules and "always allow", for its own tools.
func (a *approvals) withAnnotations(annotations func(string) tools.Annotations) *approvals {
	sub := *a
	sub.annotations = annotations
	return &sub
}

func newApprovals(mode func() dialog.ApprovalMode, plansDir func() string, annotations func(string) tools.Annotations, preapproved, trustedTools []string) *approvals {
	a := &approvals{mode: mode, plansDir: plansDir, annotations: annotations, preapproved: map[string]bool{}, trustedTools: map[string]bool{}, allowed: map[string]bool{}, mu: new(sync.Mutex)}
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
	planModeRefusal = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."
	planEditRefusal = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."
	alreadyPlanning = "You are already in Plan Mode."
	notPlanning     = "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan."
)

// refusal is why a call of tool name that needs c approved may not run
// at all in the approval mode, for the model to act on; "" when it may
// (asking or not: allows decides). Plan mode runs only the tools that
// say they are read-only (tools.Annotations, as Gemini CLI's read-only.toml
// and plan.toml count them; those needing approval ask: allows) and the
// writing of a plan file (tools.IsPlanFile); the planning tools refuse
// to switch to the mode the session is in.
func (a *approvals) refusal(name string, c *tools.Confirmation) string {
	mode := a.mode()
	switch {
	case name == tools.EnterPlanModeName && mode == dialog.ApprovalPlan:
		return alreadyPlanning
	case name == tools.ExitPlanModeName && mode != dialog.ApprovalPlan:
		return notPlanning
	case mode != dialog.ApprovalPlan, a.annotations(name).ReadOnly, a.isPlanEdit(name, c):
		return ""
	case a.annotations(name).EditsFiles:
		return planEditRefusal
	}
	return planModeRefusal
}

// isPlanEdit reports whether the call is a write of a plan file.
func (a *approvals) isPlanEdit(name string, c *tools.Confirmation) bool {
	return a.annotations(name).EditsFiles && c != nil && tools.IsPlanFile(a.plansDir(), c.Path)
}

// allows reports whether a call of tool name that needs c approved runs
// without asking, once refusal let it run at all. In order: plan mode
// runs what needs no approval and the plan file's writes, and asks about
// the rest it lets run (web_fetch), whatever was allowed before, as
// Gemini CLI's approvals of other modes do not count in plan mode; a call
// needing no approval runs; yolo allows everything; a call its settings
// trust (an MCP server's "trust": true) runs, as does every call of a
// tool settings' tools.allowed names; auto_edit runs what only reads
// from the network (web_fetch), as Gemini CLI's write.toml allows it
// there; else every one of c's keys
// must be allowed: edits by auto_edit, any key by tools.allowed or the
// user's "always allow". A call without keys asks.
func (a *approvals) allows(name string, c *tools.Confirmation) bool {
	switch {
	case a.mode() == dialog.ApprovalPlan:
		return c == nil || a.isPlanEdit(name, c)
	case c == nil:
		return true
	case a.mode() == dialog.ApprovalYolo, c.Trusted, a.trustedTools[name]:
		return true
	case a.mode() == dialog.ApprovalAutoEdit && a.annotations(name).ReadOnly && a.annotations(name).OpenWorld:
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
		case key == tools.EditKey && mode == dialog.ApprovalAutoEdit:
		case a.allowed[key] && !a.always.Disabled, a.preapproved[key]:
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

// AlwaysAllow is what settings' security make of the user's "always
// allow", as Gemini CLI 0.61 has it.
type AlwaysAllow struct {
	// Disabled offers no "always allow" (security.disableAlwaysAllow):
	// every call asks, also those allowed so in a saved session.
	Disabled bool
	// SavedPolicy is the auto-saved policy file (policy.AutoSavedFile)
	// an "always allow" for all future sessions is saved in, offered
	// beside the session's (security.enablePermanentToolApproval); ""
	// offers none.
	SavedPolicy string
	// SaveByDefault makes that the suggested answer but for shell
	// commands (security.autoAddToPolicyByDefault).
	SaveByDefault bool
}

// verdict is the door's decision on one call.
type verdict struct {
	// refusal is why the call may not run, for the model; "" when it may.
	refusal string
	// ask says the user must be asked first.
	ask bool
	// always says an "always allow" answer would hold: later calls like
	// this one would then run unasked. Not in plan mode, where no
	// earlier approval counts, nor where a policy ask_user rule outranks
	// the user's approvals.
	always bool
	// protected is why the call, an edit of a protected file, asks
	// whatever else would allow it (guard); "" for any other.
	protected string
}

// Priorities of what settings and the user allowed, as Gemini CLI ranks
// them among the policy files' rules (policy/config.ts): tools.allowed
// and a trusted MCP server in the user tier, above its files' rules of
// priority up to 300 and 200; "always allow" in the workspace tier.
const (
	toolsAllowedPriority = 4.3
	trustedMCPPriority   = 4.2
	alwaysAllowPriority  = 3.95
)

// decide is the door's decision on call, a call of tool name that needs
// c approved. The policy rule that decides the call wins when its
// priority outranks what settings and the user allowed, as Gemini CLI
// ranks them: a deny refuses in Gemini CLI's words, an ask_user asks in
// any mode (and refuses where nobody can be asked: Gemini CLI's
// non-interactive mode), an allow runs, once the commands of a shell
// line no rule decided would. Where no rule decides, the built-in logic
// does (Gemini CLI's default policies: refusal, allows). Whatever allowed
// an edit of a protected file, it asks (guard, protect.go).
func (a *approvals) decide(call policy.Call, name string, c *tools.Confirmation) verdict {
	return a.guard(c, a.ruled(call, name, c))
}

// ruled is decide's decision before guard.
func (a *approvals) ruled(call policy.Call, name string, c *tools.Confirmation) verdict {
	call.Mode = policyMode(a.mode())
	call.Shell = a.shell
	rules := a.rules()
	v := rules.Check(call)
	if v.Decision == "" || v.Priority <= a.allowedPriority(name, c) {
		if a.mode() == dialog.ApprovalPlan && name == tools.InvokeAgentName && planAgent(call.Args) {
			return verdict{}
		}
		return a.builtin(name, c)
	}
	switch v.Decision {
	case policy.Deny:
		refusal := denial(v.Rule)
		if v.Why != "" {
			// Refused for want of being judged, where nobody is asked
			// (yolo): a deny rule could match what the line runs.
			refusal += " The policy rules cannot judge it before it runs: " + v.Why + "."
		}
		return verdict{refusal: refusal}
	case policy.AskUser:
		if !rules.Interactive() {
			refusal := fmt.Sprintf("Tool execution for %q requires user confirmation, which is not supported in non-interactive mode.", name)
			switch {
			case v.Why != "" && v.Rule != nil:
				// A restricting rule may match what the line runs, which
				// is not known before it runs (policy.restrict).
				refusal += " The policy rules cannot judge it before it runs: " + v.Why + "."
			case v.Why != "":
				refusal += " A policy rule allows the command, but not all it does: " + v.Why + "."
			}
			return verdict{refusal: refusal}
		}
		return verdict{ask: true, always: v.Priority <= alwaysAllowPriority && a.alwaysCounts(c)}
	}
	for _, part := range v.Undecided {
		if b := a.builtin(tools.ShellName, tools.ShellConfirmation(a.shell, part)); b.refusal != "" || b.ask {
			return verdict{refusal: b.refusal, ask: b.refusal == "", always: b.always && a.alwaysCounts(c)}
		}
	}
	return verdict{}
}

// rules are the policy files' rules and, but in plan mode or where
// "always allow" is disabled, the command prefixes the user allowed for
// the session (ProceedAlwaysPrefix), at an "always allow"'s priority:
// the engine judges a line such a prefix starts, command by command, as
// it judges a policy file's commandPrefix. A session without policy
// rules is one that can ask (as guard counts it).
func (a *approvals) rules() *policy.Engine {
	if a.mode() == dialog.ApprovalPlan || a.always.Disabled {
		return a.policy
	}
	var prefixes []string
	a.mu.Lock()
	for key := range a.allowed {
		if prefix, ok := tools.PrefixOfKey(key); ok {
			prefixes = append(prefixes, prefix)
		}
	}
	a.mu.Unlock()
	if len(prefixes) == 0 {
		return a.policy
	}
	slices.Sort(prefixes) // the same engine whatever the map's order
	interactive := a.policy == nil || a.policy.Interactive()
	rules := append(slices.Clone(a.policy.Rules()), policy.AllowPrefixes(prefixes, alwaysAllowPriority, "Always allowed in this session")...)
	return policy.New(rules, interactive)
}

// planAgent reports whether an invoke_agent call hires an agent plan
// mode lets run, one that only reads, as 0.61's plan.toml allows them
// ("Allow specific subagents in Plan mode").
func planAgent(args map[string]any) bool {
	switch args["agent_name"] {
	case "codebase_investigator", "cli_help":
		return true
	}
	return false
}

// builtin is the decision without policy rules.
func (a *approvals) builtin(name string, c *tools.Confirmation) verdict {
	if why := a.refusal(name, c); why != "" {
		return verdict{refusal: why}
	}
	ask := !a.allows(name, c)
	return verdict{ask: ask, always: ask && a.alwaysCounts(c)}
}

// alwaysCounts reports whether the user's "always allow" of a call that
// needs c approved would count for later calls: c has keys to allow, and
// the mode is not plan, where no approval given before counts (allows).
func (a *approvals) alwaysCounts(c *tools.Confirmation) bool {
	return c != nil && c.CanAllowAlways() && a.mode() != dialog.ApprovalPlan && !a.always.Disabled
}

// denial is what the model is told of a call rule denied, in Gemini CLI's
// words (getPolicyDenialError).
func denial(rule *policy.Rule) string {
	if rule == nil || rule.DenyMessage == "" {
		return "Tool execution denied by policy."
	}
	return "Tool execution denied by policy. " + rule.DenyMessage
}

// allowedPriority is the priority of what allows a call of tool name
// that needs c approved, besides the mode: settings' tools.allowed, an
// MCP server's trust, the user's "always allow"; 0 when none does, as in
// plan mode, where none of them counts (allows).
func (a *approvals) allowedPriority(name string, c *tools.Confirmation) float64 {
	switch {
	case a.mode() == dialog.ApprovalPlan:
		return 0
	case a.trustedTools[name]:
		return toolsAllowedPriority
	case c == nil:
		return 0
	case a.everyKey(c.AllowKeys, false):
		return toolsAllowedPriority
	case c.Trusted:
		return trustedMCPPriority
	case a.everyKey(c.AllowKeys, true):
		return alwaysAllowPriority
	}
	return 0
}

// everyKey reports whether keys are some and each is in tools.allowed,
// or, withUser, allowed by the user for the session.
func (a *approvals) everyKey(keys []string, withUser bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, key := range keys {
		if !a.preapproved[key] && !(withUser && a.allowed[key] && !a.always.Disabled) {
			return false
		}
	}
	return len(keys) > 0
}

// policyMode is mode as policy files spell it.
func policyMode(mode dialog.ApprovalMode) policy.Mode {
	switch mode {
	case dialog.ApprovalAutoEdit:
		return policy.ModeAutoEdit
	case dialog.ApprovalYolo:
		return policy.ModeYolo
	case dialog.ApprovalPlan:
		return policy.ModePlan
	}
	return policy.ModeDefault
}

// errNoConfirmer: a call needs the user's approval and no front end asks.
var errNoConfirmer = errors.New("no one can be asked for approval")

// approve asks the user, through port, whether call, which
// needs c approved, may run, once decide said to ask, and records their
// "always allow", offered only where it would hold (always, the
// verdict's), and saves it as a policy rule when they chose it for all
// future sessions; notice tells the user a rule that could not be
// saved. callID is the call the question is about ("" for none). err
// is why nobody answered (the outcome is then Cancel): errNoConfirmer,
// the port's error, or ctx's.
func (s *Session) approve(ctx context.Context, port dialog.Port, callID string, call policy.Call, tool string, c *tools.Confirmation, always bool, notice func(string)) (dialog.ConfirmOutcome, error) {
	req := dialog.ConfirmRequest{
		CallID:         callID,
		Tool:           tool,
		Kind:           c.Kind,
		Title:          c.Title,
		Details:        c.Details,
		Subject:        c.Subject,
		CanAllowAlways: always,
		Dir:            c.Dir,
	}
	if always && c.Kind == dialog.ConfirmExecute {
		req.AlwaysCommands = c.AllowKeys
		for _, key := range c.AllowPrefixes {
			prefix, _ := tools.PrefixOfKey(key)
			req.AlwaysPrefixes = append(req.AlwaysPrefixes, prefix)
		}
	}
	permanent := always && s.approvals.always.SavedPolicy != ""
	if permanent {
		req.Permanent = permanentLabel(call)
		req.SaveByDefault = s.approvals.always.SaveByDefault && call.Name != tools.ShellName
	}
	outcome, err := s.ask(ctx, port, req)
	switch {
	case err != nil: // nobody answered: nothing to record
	case outcome == dialog.ProceedAlwaysAndSave && permanent:
		if err := policy.Save(ctx, s.approvals.always.SavedPolicy, s.approvals.savedRule(call, c)); err != nil {
			notice(fmt.Sprintf("Failed to persist policy for %s: %v", call.Name, err))
		}
		fallthrough
	case outcome == dialog.ProceedAlways && always:
		s.approvals.allowAlways(c.AllowKeys...)
	case outcome == dialog.ProceedAlwaysPrefix && len(req.AlwaysPrefixes) > 0:
		s.approvals.allowAlways(c.AllowPrefixes...)
	}
	return outcome, err
}

// permanentLabel is the "for all future sessions" answer to a question
// about call, in Gemini CLI 0.61's words (toPermissionOptions).
func permanentLabel(call policy.Call) string {
	switch {
	case call.Name == tools.ShellName:
		return "Allow this command for all future sessions"
	case call.Server != "":
		return "Allow tool for all future sessions"
	}
	return "Allow for all future sessions"
}

// modesByPermissiveness are the approval modes from the strictest, as
// Gemini CLI's MODES_BY_PERMISSIVENESS: a saved rule holds in the mode it
// was given in and the more permissive ones.
var modesByPermissiveness = [...]policy.Mode{policy.ModePlan, policy.ModeDefault, policy.ModeAutoEdit, policy.ModeYolo}

// savedRule is the policy rule that allows calls like call, which needs
// c approved, as Gemini CLI 0.61 saves an "always allow" (createTomlRule
// of updatePolicy's message): a shell line's command names as
// commandPrefix, an MCP tool by its server's name and its own.
func (a *approvals) savedRule(call policy.Call, c *tools.Confirmation) policy.SavedRule {
	r := policy.SavedRule{ToolName: call.Name}
	mode := policyMode(a.mode())
	for i, m := range modesByPermissiveness {
		if m == mode {
			r.Modes = modesByPermissiveness[i:]
		}
	}
	switch {
	case call.Name == tools.ShellName:
		r.CommandPrefix = c.AllowKeys
	case call.Server != "":
		r.MCPName = call.Server
		r.ToolName = strings.TrimPrefix(call.Name, policy.MCPPrefix+call.Server+"_")
	}
	return r
}

// AllowShell decides whether command, run for the user outside the
// model's turn (a custom command's !{…}), may run, exactly as a
// run_shell_command call of it would be: the same confirmation and keys
// through the same door, so tools.allowed, yolo and the user's "always
// allow" (given to either) count alike. false with a nil error is the
// user's no; an error is why nobody could say yes.
func (s *Session) AllowShell(ctx context.Context, command string, port dialog.Port) (bool, error) {
	c := tools.ShellConfirmation(s.approvals.shell, command)
	v := s.approvals.decide(policy.Call{Name: tools.ShellName, Args: map[string]any{"command": command}}, tools.ShellName, c)
	switch {
	case v.refusal != "":
		return false, fmt.Errorf("%q: %s", command, v.refusal)
	case !v.ask:
		return true, nil
	}
	call := policy.Call{Name: tools.ShellName, Args: map[string]any{"command": command}}
	notice := func(text string) { s.agent.cfg.Logger.Warn(text) }
	outcome, err := s.approve(ctx, port, "", call, tools.ShellName, c, v.always, notice)
	switch {
	case errors.Is(err, errNoConfirmer):
		return false, fmt.Errorf("%w: no front end can ask whether to run %q", dialog.ErrCannotAsk, command)
	case err != nil && ctx.Err() == nil:
		return false, fmt.Errorf("%q: %w", command, err)
	}
	return outcome.Allows(), err
}

// mcpTool is a tool of an MCP server (internal/tools/mcp), which policies name by
// its server: mcp_SERVER_TOOL.
type mcpTool interface {
	MCPOrigin() (server, tool string)
}

// annotated is a tool with hints of what it does (an MCP tool's
// readOnlyHint ...), which rules' toolAnnotations match.
type annotated interface {
	MCPAnnotations() map[string]any
}

// policyCall is the model's call of tool as policy rules see it: fc's
// arguments are as Gemini CLI 0.61 names them (tools.NormalizeArgs),
// which rules' argsPattern match.
func policyCall(tool tools.Tool, fc *genai.FunctionCall) policy.Call {
	call := policy.Call{Name: tool.Name(), Args: fc.Args} // its own name, not an older one it was called by
	if m, ok := tool.(mcpTool); ok {
		server, name := m.MCPOrigin()
		call.Name, call.Server = policy.MCPToolName(server, name), server
	}
	if a, ok := tool.(annotated); ok {
		call.Annotations = a.MCPAnnotations()
	}
	return call
}

// policyConfirmation is the question about a call of tool that needs no
// approval but which a policy rule says to ask about.
func policyConfirmation(name string, tool tools.Tool, call tools.Call) *tools.Confirmation {
	return &tools.Confirmation{
		Kind:    dialog.ConfirmKindOf(tools.AnnotationsOf(tool).Kind),
		Title:   fmt.Sprintf("Allow %s? A policy rule asks before it runs.", name),
		Details: call.Title(),
	}
}
