package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
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

// turn is one Prompt in progress.
type turn struct {
	s        *Session
	ctx      context.Context
	emit     func(dialog.Event)
	promptID string
	// system is the system instruction of the prompt's requests.
	system string
	result dialog.PromptResult
	// loops watches this prompt's answers for repetition.
	loops loopDetector
	// journal records the files the prompt changed, for a rewind.
	journal journal
	// hookStop is why a hook ended the agent's loop ("continue": false);
	// the calls left are not run, and the turn ends.
	hookStop string
	// declined is set once the user declined a call of the answer being
	// run: the calls of its later batches are cancelled (runCalls).
	declined bool
	// requests are the model requests the prompt made, bounded by
	// MaxPromptTurns: an AfterAgent hook's retries count with the rest.
	requests int
	// routed is the model an auto routed the prompt to; "" when none.
	routed string
	// questions lets one call at a time put a question to the user.
	questions questionLine
	// runs are the calls of the model answer being run (runCalls).
	runs []*toolRun
	// mu guards what the calls running at once share: result.ToolCalls,
	// result.Usage (a subagent's adds to it), hookStop, declined, journal.
	mu sync.Mutex
	// partialMu orders the results of an answer's calls as they end and
	// are saved (ended); unsaved is the last whole answer, until the
	// history gains it.
	partialMu sync.Mutex
	unsaved   *genai.Content

	// A subagent's turn (subagent.go): main is the main agent's turn whose
	// invoke_agent call runs it, whose journal records the subagent's
	// edits; finished says the subagent handed in its report, which ends
	// the turn after the calls of that answer.
	main     *turn
	finished func() bool
	// mainIndex is the invoke_agent call's place in the main answer: the
	// subagent's questions take their turn in main's line after it
	// (ask). clock is the run's time limit, paused while the user is
	// asked; nil for the main agent and a grace turn.
	mainIndex int
	clock     Pauser
	// scope is the subagent's name, which modelConfigs overrides match
	// as their overrideScope; "" for the main agent.
	scope string
}

func (t *turn) run(input *genai.Content) dialog.PromptResult {
	maxTurns := t.s.agent.cfg.MaxTurns
	routed := false
	for {
		if maxTurns <= 0 || t.s.requests < maxTurns {
			t.compress()
		}
		if !routed {
			// Once a prompt, before its input joins the history: the
			// classifier reads the history and the input apart.
			routed = true
			t.routed = t.route(t.s.chat.contents(), input)
		}
		// The input is kept even if the model call fails, so function calls
		// already in the history always have their responses.
		t.unsaved = nil
		t.s.chat.record(input)
		if maxTurns > 0 && t.s.requests >= maxTurns {
			return t.stop(dialog.StopMaxTurns, ErrMaxTurns)
		}
		if t.requests >= MaxPromptTurns {
			return t.stop(dialog.StopMaxTurns, maxPromptTurnsError())
		}
		if t.loops.modelCheckDue(input) {
			if loop := t.loops.checkWithModel(t, input, t.s.chat.contents()); loop != nil {
				return t.stopLoop(loop)
			}
		}
		t.requests++
		answer, err := t.callModel(input)
		if end, ok := errors.AsType[*hookEnd](err); ok {
			return t.endByHook(end)
		}
		if loop, ok := errors.AsType[*LoopError](err); ok {
			// The looping answer is not kept.
			return t.stopLoop(loop)
		}
		if err != nil {
			if t.ctx.Err() != nil {
				return t.stop(dialog.StopCancelled, t.ctx.Err())
			}
			err = t.explain(err)
			t.emit(dialog.ErrorEvent{Err: err})
			return t.stop(dialog.StopError, err)
		}
		if len(answer.calls) == 0 {
			if answer.finish == genai.FinishReasonMaxTokens {
				return t.stop(dialog.StopMaxTokens, dialog.ErrAnswerCut)
			}
			return t.stop(dialog.StopEndTurn, nil)
		}
		if loop, ok := errors.AsType[*LoopError](t.loops.checkCalls(answer.calls)); ok {
			// The answer is kept, so its calls are answered, none run.
			t.s.chat.record(notRun(answer.calls, loop))
			return t.stopLoop(loop)
		}
		input = t.runCalls(answer.calls)
		if t.finished != nil && t.finished() {
			t.s.chat.record(input)
			return t.stop(dialog.StopEndTurn, nil)
		}
		if t.ctx.Err() != nil {
			t.s.chat.record(input)
			return t.stop(dialog.StopCancelled, t.ctx.Err())
		}
		if t.hookStop != "" {
			t.s.chat.record(input)
			return t.stopByHook(t.hookStop)
		}
	}
}

// stopLoop handles a loop found in the prompt, as 0.61 does: the first is
// told to the model, which goes on from there (its _recoverFromLoop, bundle
// chunk-JDPZ4CE3.js:346954); the second ends the turn (LoopDetected,
// :346628-346637, :346671-346680). The user is told either way.
func (t *turn) stopLoop(loop *LoopError) dialog.PromptResult {
	t.s.agent.log.loopDetected(t.promptID, loop)
	if t.loops.foundOne() {
		t.emit(dialog.NoticeEvent{Text: loop.Error()})
		return t.stop(dialog.StopLoopDetected, loop)
	}
	t.emit(dialog.NoticeEvent{Text: "A potential loop was detected: " + loop.detail() +
		". The model was told so, and asked to step back and rethink its approach."})
	detail := loop.Repeated
	if loop.Analysis != "" || detail == "" {
		detail = cmp.Or(loop.Analysis, "Repetitive patterns identified")
	}
	feedback := "System: Potential loop detected. Details: " + detail +
		". Please take a step back and confirm you're making forward progress. If not, take a step back, analyze your previous actions and rethink how you're approaching the problem. Avoid repeating the same tool calls or responses without new results."
	return t.run(genai.NewContentFromText(feedback, genai.RoleUser))
}

// explain is the error a failed model request ends the turn with, said
// for the user (apierror): the log has the raw error already. An answer
// cut off keeps its own words, which say what was kept. The model named
// is the one the request went to (a BeforeModel hook's choice, a
// fallback), not the session's.
func (t *turn) explain(err error) error {
	if _, cut := errors.AsType[*AnswerCutOffError](err); cut {
		return err
	}
	return apierror.Explain(err, apierror.Context{AuthType: t.s.agent.cfg.AuthType, Model: cmp.Or(t.result.Model, t.model())})
}

func (t *turn) stop(reason dialog.StopReason, err error) dialog.PromptResult {
	t.result.StopReason = reason
	t.result.Err = err
	return t.result
}

// callModel streams one model answer to the history plus input, emitting
// text and thoughts as they arrive, records the answer and returns it. An
// answer that says nothing (see emptyAnswer) is asked for once more, as
// Gemini CLI does, then reported as an error that says what came back. An
// answer cut off after part of it was shown is not recorded: its text stays
// in the transcript only.
func (t *turn) callModel(input *genai.Content) (*modelTurn, error) {
	a := t.s.agent
	t.s.requests++
	req, hookReply, err := t.request()
	if err != nil {
		return nil, err
	}
	t.hooks().selectTools(cmp.Or(req.model, t.model()), req.contents, req.config)
	if err := t.logRequest(req, input); err != nil {
		return nil, err
	}
	start := a.cfg.Now()
	out, usage, model, err := t.answer(req, hookReply, input)
	elapsed := a.cfg.Now().Sub(start)
	t.result.Model = model
	t.s.noteModel(model)
	if err != nil {
		t.answerFailed(out, input, model, elapsed, err)
		return nil, err
	}
	t.recordAnswer(out, usage, input, model, elapsed)
	return out, nil
}

// request is the next model request, as the BeforeModel hooks left it,
// or their answer in the model's place (hookReply).
func (t *turn) request() (req modelRequest, hookReply *genai.GenerateContentResponse, err error) {
	a := t.s.agent
	contents := t.s.chat.contents()
	if t.main == nil { // 0.61 masks the main conversation's only
		contents = t.maskedContents(contents)
	}
	// Read per request: a call may have switched the mode mid-turn.
	mode, plansDir := t.s.requestMode()
	system := t.system
	if mode == dialog.ApprovalPlan && t.main == nil { // a subagent's system prompt has plan mode's constraint (subagentInstruction)
		system += "\n\n" + a.planInstruction(plansDir)
	}
	return t.hooks().beforeModel(modelRequest{contents: contents, config: a.generateConfig(system, mode, plansDir)})
}

// logRequest logs the request of input and records it in the telemetry.
func (t *turn) logRequest(req modelRequest, input *genai.Content) error {
	requestText, err := json.Marshal(input)
	if err != nil {
		return fmt.Errorf("encoding the request for the log: %w", err)
	}
	t.events().request(cmp.Or(req.model, t.model()), string(requestText))
	return nil
}

// answer is the answer to req, a BeforeModel hook's (hookReply) or the
// model's, with the model that gave it (or failed last); an answer that
// says nothing is asked for again (emptyAnswerAttempts).
func (t *turn) answer(req modelRequest, hookReply *genai.GenerateContentResponse, input *genai.Content) (out *modelTurn, usage *genai.GenerateContentResponseUsageMetadata, model string, err error) {
	if hookReply != nil {
		// A BeforeModel hook answered: the model is not asked.
		out, model = &modelTurn{}, cmp.Or(req.model, t.model())
		_, err = t.take(out, hookReply)
		return out, nil, model, err
	}
	for attempt := 1; ; attempt++ {
		out, usage, model, err = t.stream(req)
		if err == nil {
			err = out.emptyAnswer(hasFunctionResponse(input))
		}
		var empty *EmptyAnswerError
		if !errors.As(err, &empty) {
			return out, usage, model, err
		}
		empty.Attempts = attempt
		if attempt == emptyAnswerAttempts {
			return out, usage, model, err
		}
		reason := (&EmptyAnswerError{What: empty.What, FinishReason: empty.FinishReason}).Error()
		if werr := t.wait(model, attempt, emptyAnswerDelay, reason, err); werr != nil {
			return out, usage, model, werr
		}
	}
}

// answerFailed logs a failed model request and keeps what the user saw
// of its answer (out) in the transcript, not the history.
func (t *turn) answerFailed(out *modelTurn, input *genai.Content, model string, elapsed time.Duration, err error) {
	t.events().apiError(model, elapsed, err)
	_, cut := errors.AsType[*AnswerCutOffError](err)
	_, ended := errors.AsType[*hookEnd](err)
	if (cut || ended) && out != nil {
		// The user saw it: the transcript has it, the history does not.
		t.result.Text += out.sep + out.text.String()
	}
	if _, empty := errors.AsType[*EmptyAnswerError](err); empty && !hasFunctionResponse(input) {
		// As for any empty answer to the user: recorded, so that it
		// and the input it answered are left out of later requests.
		t.s.chat.record(&genai.Content{Role: genai.RoleModel})
	}
}

// recordAnswer records the model's answer to input in the history, its
// usage in the prompt's and tells the user, and logs the response.
func (t *turn) recordAnswer(out *modelTurn, usage *genai.GenerateContentResponseUsageMetadata, input *genai.Content, model string, elapsed time.Duration) {
	// An empty answer to the user is recorded (and left out of later
	// requests with the input it answered); an empty answer to function
	// responses is not.
	if len(out.parts) > 0 || !hasFunctionResponse(input) {
		st := sessionstore.Step{Content: out.content(), Model: model}
		if usage != nil {
			st.Usage = storeUsage(usageOf(usage))
		}
		t.s.chat.recordStep(st)
	}
	if usage != nil {
		t.s.chat.promptTokens = usage.PromptTokenCount
		u := usageOf(usage)
		t.result.Usage = t.result.Usage.Add(u)
		t.emit(dialog.UsageEvent{Usage: dialog.UsageReport{Response: u, Prompt: t.result.Usage, Session: t.s.sessionUsage().Add(t.result.Usage), Model: model}})
	}
	text := out.text.String()
	t.result.Text += out.sep + text
	t.events().response(model, elapsed, usage, text, out.finish)
}

// emptyAnswerAttempts is how often an answer that says nothing is asked
// for (Gemini CLI 0.61: one retry), emptyAnswerDelay the wait between.
const (
	emptyAnswerAttempts = 2
	emptyAnswerDelay    = 500 * time.Millisecond
)

// stream gets one model answer and returns it with the model that gave it.
// A rate limit or server error is retried with the RetryPolicy, and a Pro
// model out of quota may fall back (fallBack). An answer that broke off or
// ended without a finish reason is retried when none of it was shown;
// otherwise a retry would repeat it, so stream returns the partial answer
// with an *AnswerCutOffError.
func (t *turn) stream(req modelRequest) (*modelTurn, *genai.GenerateContentResponseUsageMetadata, string, error) {
	a := t.s.agent
	retries := &streamRetries{policy: a.cfg.Retry, backoff: newBackoff(a.cfg.Retry), fallBack: t.fallBack}
	for attempt := 1; ; attempt++ {
		if notice, ok := a.fallbackNotice(t.s.id); ok {
			t.emit(dialog.NoticeEvent{Text: notice})
		}
		model, sent, err := t.configured(cmp.Or(req.model, t.model()), req, retries.cutOffs > 0)
		if err != nil {
			return nil, nil, model, err
		}
		out, usage, shown, err := t.streamCounted(model, sent)
		ended, keep, err := t.attemptEnded(out, shown, err)
		if ended {
			if !keep {
				return nil, nil, model, err
			}
			return out, usage, model, err
		}
		step, wait, err := retries.afterFailure(model, req.model != "", err)
		switch step {
		case retryGiveUp:
			return nil, nil, model, err
		case retrySwitched:
			attempt = 0
			continue
		}
		if werr := t.wait(model, attempt, wait, retryReason(err), err); werr != nil {
			return nil, nil, model, werr
		}
	}
}

// streamCounted is streamOnce, counted in the session's stats.
func (t *turn) streamCounted(model string, req modelRequest) (*modelTurn, *genai.GenerateContentResponseUsageMetadata, bool, error) {
	a := t.s.agent
	start := a.cfg.Now()
	out, usage, shown, err := t.streamOnce(model, req)
	_, loop := errors.AsType[*LoopError](err)
	_, ended := errors.AsType[*hookEnd](err)
	// A loop or a hook stopped an answer that came: not a failure.
	t.s.statsRecord().request(model, a.cfg.Now().Sub(start), usageOf(usage), err != nil && !loop && !ended)
	return out, usage, shown, err
}

// attemptEnded says whether an attempt's outcome ends stream, with the
// error it ends with and whether the answer is kept: an answer that
// came, one stopped by a loop or a hook, one cut off after some of it
// was shown, or the prompt's cancellation. Otherwise err is a failure
// before anything was shown, which may be retried.
func (t *turn) attemptEnded(out *modelTurn, shown bool, err error) (ended, keep bool, _ error) {
	_, loop := errors.AsType[*LoopError](err)
	_, hooked := errors.AsType[*hookEnd](err)
	if loop || hooked {
		return true, true, err // not a broken stream: nothing to retry
	}
	if err == nil && out.candidates && out.finish == "" {
		err = &AnswerCutOffError{Calls: len(out.calls)}
	}
	switch {
	case err == nil:
		return true, true, nil
	case t.ctx.Err() != nil:
		return true, false, t.ctx.Err()
	case shown:
		if _, ok := err.(*AnswerCutOffError); !ok {
			err = &AnswerCutOffError{Cause: err, Calls: len(out.calls)}
		}
		return true, true, err
	}
	return false, false, err
}

// streamOnce makes one streamed request to model, emitting text and
// thoughts as they arrive, each chunk as the AfterModel hooks left it;
// shown says whether any did.
func (t *turn) streamOnce(model string, req modelRequest) (*modelTurn, *genai.GenerateContentResponseUsageMetadata, bool, error) {
	out := &modelTurn{}
	var usage *genai.GenerateContentResponseUsageMetadata
	shown := false
	hooks := t.hooks().afterModel(model, req)
	for resp, err := range t.s.agent.cfg.Generator.GenerateContentStream(t.ctx, model, req.contents, req.config) {
		if err != nil {
			return out, usage, shown, err
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if hooks != nil {
			if resp, err = hooks.fire(resp); err != nil {
				return out, usage, shown, err
			}
		}
		showed, err := t.take(out, resp)
		shown = shown || showed
		if err != nil {
			return out, usage, shown, err
		}
	}
	return out, usage, shown, nil
}

// take adds one response (a streamed chunk) to out, emitting its text and
// thoughts; showed says whether it did.
func (t *turn) take(out *modelTurn, resp *genai.GenerateContentResponse) (showed bool, err error) {
	if f := resp.PromptFeedback; f != nil && f.BlockReason != "" {
		return false, apierror.BlockedPrompt(string(f.BlockReason), f.BlockReasonMessage)
	}
	if len(resp.Candidates) == 0 {
		return false, nil
	}
	c := resp.Candidates[0]
	out.candidates = true
	if c.FinishReason != "" {
		out.finish = c.FinishReason
	}
	if c.Content == nil {
		return false, nil
	}
	for _, p := range c.Content.Parts {
		if ev, ok := out.add(&t.s.chat, p); ok {
			if err := t.loops.checkEvent(ev); err != nil {
				return showed, err
			}
			if text, ok := ev.(dialog.TextEvent); ok && out.text.Len() == len(text.Text) {
				// This answer's first text: a paragraph of its own.
				out.sep = dialog.ParagraphBreak(t.result.Text)
				text.Text = out.sep + text.Text
				ev = text
			}
			showed = true
			t.emit(ev)
		}
	}
	return showed, nil
}

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
	hooked, res, ok := t.hooks().beforeTool(run.fc.Name, built.tool, built.call, built.args)
	if !ok {
		return t.finish(run, res)
	}
	c, door, res, ok := t.pass(run, built.tool, hooked.call, hooked.args)
	if !ok {
		return t.finish(run, res)
	}
	res = t.execute(run, hooked.call, c, door)
	if res.Status != dialog.StatusCancelled && res.Status != dialog.StatusRejected {
		if hooked.changed != nil {
			res = appendToResult(res, modifiedNote(hooked.changed))
		}
		res = t.hooks().afterTool(built.tool, hooked.args, res)
	}
	return t.finish(run, res)
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
// there is no such tool or the call is not valid.
func (t *turn) buildCall(run *toolRun) (builtCall, tools.Result, bool) {
	a, s, fc := t.s.agent, t.s, run.fc
	event := dialog.ToolCall{CallID: fc.ID, Name: fc.Name, Title: fc.Name, Args: fc.Args}

	var tool tools.Tool
	found := false
	if a.cfg.Tools != nil {
		tool, found = a.cfg.Tools.Get(fc.Name)
	}
	if !found {
		msg := fmt.Sprintf("Tool %q not found: no tools are available.", fc.Name)
		if a.cfg.Tools != nil {
			msg = a.cfg.Tools.UnknownToolError(fc.Name)
		}
		t.emit(dialog.ToolCallEvent{Call: event})
		return builtCall{}, tools.Result{Error: msg}, false
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
	event.Title, event.Kind = call.Title(), tools.AnnotationsOf(tool).Kind
	event.Path, event.Line = tools.LocationOf(call)
	t.emit(dialog.ToolCallEvent{Call: event})
	return builtCall{tool: tool, args: args, call: call}, tools.Result{}, true
}

// execute runs call, which passed the door (its verdict door, c the
// confirmation it needs), and lands the change it proposes; the result
// is what the call did, a mode it switched to or a topic it set told.
func (t *turn) execute(run *toolRun, call tools.Call, c *tools.Confirmation, door verdict) tools.Result {
	s, fc := t.s, run.fc
	run.pastQuestions()
	res, err := call.Execute(t.ctx, tools.CallInfo{SessionID: s.id, CallID: fc.ID, Ask: t.asker(run), Background: s.backgroundRegistry(), Topic: &s.topic, Delegate: t.delegator(run)})
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
		t.emit(dialog.TopicEvent{Topic: *res.Topic})
	}
	return res
}

// pass takes a call of tool, built from args, through the session's
// approval door, the one every call passes: the door's verdict, and the
// user's answer where it asks, except for an edit, whose question waits
// for its change and is asked when it is landed (land, with the verdict
// returned). It returns the confirmation the call needs (a policy rule's
// question where the call needs none but a rule asks), and ok false with
// the result to answer with when the call must not run.
func (t *turn) pass(run *toolRun, tool tools.Tool, call tools.Call, args map[string]any) (*tools.Confirmation, verdict, tools.Result, bool) {
	s, name := t.s, run.fc.Name
	c := call.Confirmation()
	pc := policyCall(tool, &genai.FunctionCall{Name: name, Args: args})
	v := s.approvals.decide(pc, name, c)
	if v.refusal != "" {
		return c, v, tools.Result{Error: v.refusal, Status: dialog.StatusRejected}, false
	}
	if v.ask && c == nil {
		c = policyConfirmation(name, tool, call)
	}
	if v.ask && !c.AskWithChange {
		settled := func() bool { // by the user's answer to another call's question
			v := s.approvals.decide(pc, name, c)
			return v.refusal == "" && !v.ask
		}
		if res, ok := t.confirm(run, pc, c, v.always, settled); !ok {
			return c, v, res, false
		}
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
		t.hooks().notifyPermission(c.Kind, c.Title, map[string]any{"details": c.Details})
		notice := func(text string) { t.emit(dialog.NoticeEvent{Text: text}) }
		return t.s.approve(t.ctx, fc.ID, call, fc.Name, c, always, notice)
	})
	if unasked {
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
	case dialog.ProceedAlways, dialog.ProceedAlwaysAndSave:
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
	if err := s.canLand(); err != nil {
		return tools.Result{}, err
	}
	if asks {
		t.hooks().notifyPermission("edit", "Edit "+p.Change.Path, map[string]any{"filePath": p.Change.Path})
	}
	t.checkpoint(fc)
	watch := tools.WatchEdit(t.ctx, s.agent.cfg.Diagnostics, p.Change.Path)
	landIt := func() (dialog.Landing, error) {
		return s.land(t.ctx, dialog.LandRequest{CallID: fc.ID, Change: p.Change, Ask: asks, CanAllowAlways: door.always})
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
	s, fc, asks := t.s, run.fc, door.ask
	if err := s.canLand(); err != nil {
		return tools.Result{}, err
	}
	lander, ok := s.agent.cfg.Lander.(dialog.FilesLander)
	if !ok {
		return tools.Result{}, errNoFilesLander
	}
	paths := make([]string, len(p.Changes))
	changes := make([]dialog.RevertChange, len(p.Changes))
	for i, ch := range p.Changes {
		paths[i], changes[i] = ch.Path, dialog.RevertChange{FileChange: ch}
	}
	if asks {
		t.hooks().notifyPermission("edit", p.Title, map[string]any{"filePaths": paths})
	}
	t.checkpoint(fc)
	watches := make([]*tools.EditWatch, len(paths))
	for i, path := range paths {
		watches[i] = tools.WatchEdit(t.ctx, s.agent.cfg.Diagnostics, path)
	}
	landIt := func() ([]dialog.Decision, error) {
		return lander.LandFiles(t.ctx, dialog.LandFilesRequest{SessionID: s.id, CallID: fc.ID, Title: p.Title, Changes: changes, Ask: asks})
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
	t.emit(dialog.ToolResultEvent{Result: dialog.ToolResult{
		CallID:  fc.ID,
		Name:    fc.Name,
		Status:  res.Status,
		Display: display,
	}})
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

// asker is how run's call asks the user, once no other call's question
// is before them; nil when the front end cannot.
func (t *turn) asker(run *toolRun) tools.AskFunc {
	if !t.s.canQuestion() {
		return nil
	}
	return func(ctx context.Context, q dialog.Question) (dialog.Answer, error) {
		a, err := ask(t, run, func() (dialog.Answer, error) {
			return t.s.question(ctx, run.fc.ID, q)
		})
		if err == nil {
			run.answered.Store(true)
		}
		return a, err
	}
}
