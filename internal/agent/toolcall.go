package agent

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// What the model reads when a call did not run as asked.
const (
	declinedMessage       = "The user declined to run this command."
	noConfirmerMessage    = "This call needs the user's approval and there is no one to ask."
	cancelledMessage      = "The user cancelled the operation before this call ran."
	cancelledWhileRunning = "The user cancelled the operation while this call was running."
	// Gemini CLI 0.61 says "[Operation Cancelled] Reason: User cancelled
	// operation" for a call cancelled so.
	cancelledByDecline = "The user declined an earlier call of this answer, so this call was cancelled before it ran."
)

// runCall runs one call and returns its functionResponse part, followed by
// any extra parts (images, PDFs) the tool returned.
func (t *turn) runCall(run *toolRun) []*genai.Part {
	built, res, ok := t.buildCall(run)
	if !ok {
		return t.finish(run, res)
	}
	if run.afterDecline {
		// Only a call that would have run: one that is refused as built
		// is answered with why, as Gemini CLI 0.61 keeps a queued
		// call's validation error.
		return t.finish(run, tools.Result{Error: cancelledByDecline, Status: dialog.StatusCancelled})
	}

	// The BeforeTool hooks first, then the approval door on the call as
	// they left it, as in Gemini CLI 0.61 (beforeTool).
	hooked, res, ok := t.hooks().beforeTool(run.fc.Name, run.originalName(), built.tool, built.call, built.args)
	if !ok {
		return t.finish(run, res)
	}
	if hooked.changed != nil {
		run.hookArgs = hooked.args
	}
	c, door, res, ok := t.pass(run, built.tool, hooked.call, hooked.args, hooked.ask)
	if !ok {
		return t.finish(run, res)
	}
	res = t.execute(run, hooked.call, c, door)
	var tail *HookTailCall
	if res.Status != dialog.StatusCancelled && res.Status != dialog.StatusRejected {
		if hooked.changed != nil {
			res = appendToResult(res, modifiedNote(hooked.changed))
		}
		res, tail = t.hooks().afterTool(built.tool, hooked.args, run.originalName(), res)
	}
	parts := t.finish(run, res)
	if tail != nil {
		// An AfterTool hook's call in this one's place (tailcall.go).
		return t.runTail(run, tail, parts)
	}
	return parts
}

// builtCall is a call of tool, its arguments as Gemini CLI 0.61 names
// them.
type builtCall struct {
	tool tools.Tool
	args map[string]any
	call tools.Call
}

// buildCall finds the tool run's call names and builds the call, and
// tells the user of it; ok false, with the result to answer with, when
// there is no such tool the model was told of (lookUp) or the call is
// not valid.
func (t *turn) buildCall(run *toolRun) (builtCall, tools.Result, bool) {
	s, fc := t.s, run.fc
	event := dialog.ToolCall{CallID: fc.ID, Name: fc.Name, Title: fc.Name, Args: fc.Args}

	tool, res, found := t.lookUp(run)
	if !found {
		t.emit(dialog.ToolCallEvent{Call: event})
		return builtCall{}, res, false
	}
	// Hooks, policy rules and the tool see the call as Gemini CLI 0.61
	// would have made it, whichever names the model used; the history
	// keeps fc as the model made it.
	args, err := tools.NormalizeArgs(tool, fc.Args)
	if err != nil {
		t.emit(dialog.ToolCallEvent{Call: event})
		return builtCall{}, tools.Result{Error: err.Error()}, false
	}
	call, err := s.build(tool, args)
	if err != nil {
		t.emit(dialog.ToolCallEvent{Call: event})
		return builtCall{}, tools.Result{Error: err.Error()}, false
	}
	// The call reads its file as it starts, so that what is shown of it
	// names the line an edit starts at, then runs on that read.
	tools.Prepare(t.ctx, call)
	tools.Present(tool, call, &event)
	t.emit(dialog.ToolCallEvent{Call: event})
	return builtCall{tool: tool, args: args, call: call}, tools.Result{}, true
}

// execute runs call, which passed the door (its verdict door, c the
// confirmation it needs), and lands the change it proposes; the result
// is what the call did, a mode it switched to or a topic it set told.
func (t *turn) execute(run *toolRun, call tools.Call, c *tools.Confirmation, door verdict) tools.Result {
	s, fc := t.s, run.fc
	run.pastQuestions()
	res, err := call.Execute(t.ctx, tools.CallInfo{SessionID: s.id, CallID: fc.ID, Ask: t.asker(run), Confirm: t.confirmer(run), Background: s.backgroundRegistry(), Topic: &s.topic, Delegate: t.delegator(run), Progress: t.progress})
	switch {
	case err == nil && res.Proposal != nil:
		res, err = t.land(run, c, res.Proposal, door)
	case err == nil && res.Files != nil:
		res, err = t.landFiles(run, res.Files, door)
	}
	switch {
	case err != nil && t.ctx.Err() != nil:
		res = tools.Result{Error: cancelledWhileRunning, Status: dialog.StatusCancelled}
	case err != nil:
		res = tools.Result{Error: err.Error()}
	case res.Mode != "":
		res = t.switchMode(res, run.answered.Load())
	case res.Topic != nil:
		s.retitle(*res.Topic)
		t.emit(dialog.TopicEvent{Topic: *res.Topic})
	}
	return res
}

// pass takes a call of tool, built from args, through the session's
// approval door, the one every call passes: the door's verdict, and the
// user's answer where it asks, except for an edit, whose question waits
// for its change and is asked when it is landed (land, with the verdict
// returned). hookAsked says a BeforeTool hook asked that the user be
// asked (forceAsk). It returns the confirmation the call needs (a policy
// rule's or a hook's question where the call needs none), and ok false
// with the result to answer with when the call must not run.
func (t *turn) pass(run *toolRun, tool tools.Tool, call tools.Call, args map[string]any, hookAsked bool) (*tools.Confirmation, verdict, tools.Result, bool) {
	// The tool's own name, not the one called: a name the registry found
	// among a tool's older names (an MCP server may give its tool a
	// built-in's) must not borrow what allows the tool of that name now.
	s, name := t.s, tool.Name()
	c := call.Confirmation()
	pc := policyCall(tool, &genai.FunctionCall{Name: name, Args: args})
	decide := func() verdict {
		v := s.approvals.decide(pc, name, c)
		if hookAsked {
			v = s.approvals.forceAsk(v)
		}
		return v
	}
	v := decide()
	if v.refusal != "" {
		return c, v, tools.Result{Error: v.refusal, Status: dialog.StatusRejected}, false
	}
	if v.ask && c == nil {
		c = policyConfirmation(name, tool, call)
	}
	if v.ask && !c.AskWithChange {
		settled := func() bool { // by the user's answer to another call's question
			v := decide()
			return v.refusal == "" && !v.ask
		}
		if res, ok := t.confirm(run, pc, c, v.always, settled); !ok {
			return c, v, res, false
		}
	}
	if !v.ask {
		// Gemini CLI 0.61 gives a call nobody is asked about the outcome
		// ProceedOnce, and so counts it as accepted.
		run.decision = dialog.DecisionAccept
	}
	return c, v, tools.Result{}, true
}

// switchMode switches the session to the mode res chose and says so; in
// a folder that is not trusted, only to default or plan, and the model
// is told. Unless the user chose it (answered: they answered the call's
// question), a call never raises the mode: leaving plan mode, above the
// mode the session had before it; otherwise, above the mode it is in.
// The model is told what was refused.
func (t *turn) switchMode(res tools.Result, answered bool) tools.Result {
	if ceiling := t.modeCeiling(); !answered && res.Mode.MorePermissive(ceiling) {
		res.Output += fmt.Sprintf("\n\nNobody chose %s, so the approval mode is %s: a call cannot raise it above the mode the session was in before it.", res.Mode, ceiling)
		res.Mode = ceiling
	}
	if t.s.agent.cfg.Untrusted && res.Mode != dialog.ApprovalPlan && res.Mode != dialog.ApprovalDefault {
		res.Output += fmt.Sprintf("\n\nThe folder is not trusted, so the approval mode is default, not %s: edits will require confirmation.", res.Mode)
		res.Mode = dialog.ApprovalDefault
	}
	t.s.SetApprovalMode(res.Mode)
	if res.ApprovedPlan != "" {
		t.s.setApprovedPlan(res.ApprovedPlan)
	}
	t.emit(dialog.ModeEvent{Mode: res.Mode})
	return res
}

// modeCeiling is the most permissive mode a call may switch the session
// to without the user choosing it: in plan mode, the mode before it
// (Session.modeBeforePlan); otherwise the mode it is in.
func (t *turn) modeCeiling() dialog.ApprovalMode {
	if mode := t.s.ApprovalMode(); mode != dialog.ApprovalPlan {
		return mode
	}
	return t.s.modeBeforePlan()
}

// confirm asks the user about a call that needs c approved, offering
// "always allow" where it would hold. It reports false, with the result
// to send instead, when the call must not run. The user is asked once no
// other call's question is before them, unless settled (when not nil)
// then says the call may run unasked: an answer to another call's
// question ("always allow") covered it.
func (t *turn) confirm(run *toolRun, call policy.Call, c *tools.Confirmation, always bool, settled func() bool) (tools.Result, bool) {
	fc := run.fc
	unasked := false
	outcome, err := ask(t, run, func() (dialog.ConfirmOutcome, error) {
		if settled != nil && settled() {
			unasked = true
			return dialog.ProceedOnce, nil
		}
		t.hooks().notifyPermission(string(c.Kind), c.Title, map[string]any{"details": c.Details})
		notice := func(text string) { t.emit(dialog.NoticeEvent{Text: text}) }
		return t.s.approve(t.ctx, t.port, fc.ID, call, fc.Name, c, always, notice)
	})
	if unasked {
		run.decision = dialog.DecisionAccept
		return tools.Result{}, true
	}
	nobodyToAsk := errors.Is(err, errNoConfirmer) || errors.Is(err, dialog.ErrCannotAsk)
	switch {
	case t.ctx.Err() != nil:
		return tools.Result{Error: cancelledMessage, Status: dialog.StatusCancelled}, false
	case err != nil && !nobodyToAsk:
		return tools.Result{Error: fmt.Sprintf("Asking the user for approval failed: %v", err)}, false
	}
	run.decision = decisionOf(outcome) // nobody to ask: a rejection
	switch {
	case errors.Is(err, errNoConfirmer):
		return tools.Result{Error: noConfirmerMessage, Status: dialog.StatusRejected}, false
	case err != nil:
		return tools.Result{Error: err.Error(), Status: dialog.StatusRejected}, false
	case !outcome.Allows():
		t.userDeclined()
		return tools.Result{Error: declinedMessage, Status: dialog.StatusRejected}, false
	}
	return tools.Result{}, true
}

// decisionOf is the user's answer as Gemini CLI counts it.
func decisionOf(o dialog.ConfirmOutcome) dialog.CallDecision {
	switch o {
	case dialog.ProceedOnce:
		return dialog.DecisionAccept
	case dialog.ProceedAlways, dialog.ProceedAlwaysAndSave, dialog.ProceedAlwaysPrefix:
		return dialog.DecisionAutoAccept
	}
	return dialog.DecisionReject
}

// land has the front end land an edit's proposed change, asking the user
// first when the door said to (ask), and returns the call's result: with
// the errors the editor shows in the file since, where it can tell them
// (Config.Diagnostics). Where the user allowed edits for good, the
// service records it.
func (t *turn) land(run *toolRun, c *tools.Confirmation, p *tools.Proposal, door verdict) (tools.Result, error) {
	s, fc, asks := t.s, run.fc, door.ask
	if err := canLand(t.port); err != nil {
		return tools.Result{}, err
	}
	if asks {
		t.hooks().notifyPermission("edit", "Edit "+p.Change.Path, map[string]any{"filePath": p.Change.Path})
	}
	t.checkpoint(fc)
	watch := tools.WatchEdit(t.ctx, s.agent.cfg.Diagnostics, s.agent.cfg.Workspace, p.Change.Path)
	landIt := func() (dialog.Landing, error) {
		return s.land(t.ctx, t.port, dialog.LandRequest{CallID: fc.ID, Change: p.Change, Ask: asks, CanAllowAlways: door.always})
	}
	var landing dialog.Landing
	var err error
	if asks {
		landing, err = ask(t, run, landIt)
	} else {
		landing, err = landIt()
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("proposing change to %s: %w", p.Change.Path, err)
	}
	if asks && door.always && landing.AllowAlways {
		s.approvals.allowAlways(c.AllowKeys...)
	}
	if asks {
		run.decision = landingDecision(landing)
	}
	if asks && landing.Outcome == dialog.Refused && door.protected != "" {
		landing.Reason = protectedLanding(landing.Reason, door.protected)
	}
	if asks && landing.Outcome == dialog.Declined {
		// The user's no, not a front end's refusal (dialog.Refused).
		t.userDeclined()
	}
	t.journalLanded(p.Change, landing.Decision)
	res, err := p.Settle(landing.Decision)
	if err == nil && (landing.Outcome == dialog.Applied || landing.Outcome == dialog.Modified) {
		res.Output += watch.Introduced(t.ctx, s.agent.cfg.Workspace.Display(p.Change.Path))
	}
	return res, err
}

// journalLanded records in the prompt's journal, which a rewind
// reverts, what became of a change an edit call proposed.
func (t *turn) journalLanded(change workspace.FileChange, d dialog.Decision) {
	jt := t
	if t.main != nil {
		jt = t.main
	}
	jt.mu.Lock()
	defer jt.mu.Unlock()
	jt.journal.landed(change, d)
}

// landFiles has the front end land an edit's change across files
// (rename_symbol's) as one, asking the user once where the door said
// to, and returns the call's result: each file's outcome, with the
// errors the editor shows since in the files that changed.
func (t *turn) landFiles(run *toolRun, p *tools.FilesProposal, door verdict) (tools.Result, error) {
	s, fc := t.s, run.fc
	if err := canLand(t.port); err != nil {
		return tools.Result{}, err
	}
	paths := make([]string, len(p.Changes))
	changes := make([]dialog.RevertChange, len(p.Changes))
	for i, ch := range p.Changes {
		paths[i], changes[i] = ch.Path, dialog.RevertChange{FileChange: ch}
	}
	// The door saw the call by its first file; the change is every file's.
	if door = s.approvals.acrossFiles(paths, door); door.refusal != "" {
		return tools.Result{Error: door.refusal, Status: dialog.StatusRejected}, nil
	}
	asks := door.ask
	if asks {
		t.hooks().notifyPermission("edit", p.Title, map[string]any{"filePaths": paths})
	}
	t.checkpoint(fc)
	watches := make([]*tools.EditWatch, len(paths))
	for i, path := range paths {
		watches[i] = tools.WatchEdit(t.ctx, s.agent.cfg.Diagnostics, s.agent.cfg.Workspace, path)
	}
	landIt := func() ([]dialog.Decision, error) {
		ds, err := t.port.LandFiles(t.ctx, dialog.LandFilesRequest{SessionID: s.id, CallID: fc.ID, Title: p.Title, Changes: changes, Ask: asks})
		s.landedFiles(t.ctx, changes, ds)
		return ds, err
	}
	var decisions []dialog.Decision
	var err error
	if asks {
		decisions, err = ask(t, run, landIt)
	} else {
		decisions, err = landIt()
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("proposing %s: %w", p.Title, err)
	}
	if len(decisions) != len(changes) {
		return tools.Result{}, fmt.Errorf("proposing %s: the front end told %d outcomes for %d files", p.Title, len(decisions), len(changes))
	}
	declined := false
	for i, d := range decisions {
		t.journalLanded(p.Changes[i], d)
		declined = declined || d.Outcome == dialog.Declined
	}
	if asks {
		run.decision = filesDecision(decisions)
		if declined {
			t.userDeclined()
		}
	}
	res, err := p.Settle(decisions)
	if err == nil && res.Error == "" {
		for i, d := range decisions {
			if d.Outcome == dialog.Applied || d.Outcome == dialog.Modified {
				res.Output += watches[i].Introduced(t.ctx, s.agent.cfg.Workspace.Display(paths[i]))
			}
		}
	}
	return res, err
}

// filesDecision is the user's answer to a change across files: rejected
// when they declined any of it, modified when they changed any.
func filesDecision(ds []dialog.Decision) dialog.CallDecision {
	out := dialog.DecisionAccept
	for _, d := range ds {
		switch d.Outcome {
		case dialog.Declined, dialog.Refused:
			return dialog.DecisionReject
		case dialog.Modified:
			out = dialog.DecisionModify
		}
	}
	return out
}

// landingDecision is the user's answer to a change they were asked
// about: a stale change was accepted, though it did not land.
func landingDecision(l dialog.Landing) dialog.CallDecision {
	switch {
	case l.Outcome == dialog.Declined, l.Outcome == dialog.Refused:
		return dialog.DecisionReject
	case l.Outcome == dialog.Modified:
		return dialog.DecisionModify
	case l.AllowAlways:
		return dialog.DecisionAutoAccept
	}
	return dialog.DecisionAccept
}

// finish emits the call's result, records it in the session's stats and
// returns the parts answering it.
func (t *turn) finish(run *toolRun, res tools.Result) []*genai.Part {
	fc := run.fc
	if res.Status == "" {
		res.Status = dialog.StatusOK
		if res.Error != "" {
			res.Status = dialog.StatusError
		}
	}
	t.s.statsRecord().call(fc.Name, res.Status, t.s.agent.cfg.Now().Sub(run.start), run.decision)
	t.events().toolCall(run, res)
	display := res.Display
	if display == "" && res.Error != "" {
		display = res.Error
	}
	result := dialog.ToolResult{CallID: fc.ID, Name: fc.Name, Status: res.Status, Display: display, Found: res.Found, Outcome: res.Outcome}
	if run.notFound {
		result.ErrorType = toolNotRegistered
	}
	t.emit(dialog.ToolResultEvent{Result: result})
	return append([]*genai.Part{functionResponse(fc, t.cutToolOutput(fc, res))}, res.Parts...)
}

// functionResponse answers fc with res: {"output": ...} or {"error": ...}.
func functionResponse(fc *genai.FunctionCall, res tools.Result) *genai.Part {
	response := map[string]any{"output": res.Output}
	if res.Error != "" {
		response = map[string]any{"error": res.Error}
	}
	return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: response}}
}

// confirmer is CallInfo.Confirm for run: the session's confirmation,
// about run's call, in the line of its turn's questions, which the yolo
// mode answers yes as it allows every call; nil where the front end asks
// nobody.
func (t *turn) confirmer(run *toolRun) tools.ConfirmFunc {
	if t.port == nil {
		return nil
	}
	return func(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		if t.s.approvals.mode() == dialog.ApprovalYolo {
			return dialog.ProceedOnce, nil
		}
		req.CallID, req.Tool = run.fc.ID, run.fc.Name
		return ask(t, run, func() (dialog.ConfirmOutcome, error) { return t.s.ask(ctx, t.port, req) })
	}
}

// progress tells the user how a long call goes (tools.CallInfo.Progress),
// as a notice of the turn.
func (t *turn) progress(text string) { t.emit(dialog.NoticeEvent{Text: text}) }

// asker is how run's call asks the user, once no other call's question
// is before them; nil when the front end cannot.
func (t *turn) asker(run *toolRun) tools.AskFunc {
	if t.port == nil {
		return nil
	}
	return func(ctx context.Context, q dialog.Question) (dialog.Answer, error) {
		a, err := ask(t, run, func() (dialog.Answer, error) {
			return t.s.question(ctx, t.port, run.fc.ID, q)
		})
		if err == nil {
			run.answered.Store(true)
		}
		return a, err
	}
}
