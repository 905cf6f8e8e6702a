package agent

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// turn is one Prompt in progress.
type turn struct {
	s   *Session
	ctx context.Context
	// port is the user of the call that started the turn (Prompt,
	// RunCall), a subagent's its main turn's: what its events are shown
	// to and its questions put to; nil when nobody can be told or asked.
	port dialog.Port
	// show hands the turn's events on, each with the subagent it is of
	// (zero for the main agent's); a batch of calls running at once
	// swaps it (scheduler.swapShow).
	show     func(from dialog.Subagent, ev dialog.Event)
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
	// hookRunner is the turn's hooks (hooks), kept while ctx is the
	// turn's: whoever changes ctx drops it (a subagent's grace turn).
	hookRunner atomic.Pointer[hookRunner]
	// routed is the model an auto routed the prompt to; "" when none.
	routed string
	// declared is what the last model request declared: the tools its
	// answer's calls may name (lookUp).
	declared declaredTools
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
	t.beginContext()
	for {
		if t.main == nil { // 0.61 masks the main conversation's only
			// Before compressing: masking keeps the prefix the cache
			// holds, a summary replaces it.
			t.maskHistory()
		}
		if maxTurns <= 0 || t.s.requests < maxTurns {
			t.compress()
		}
		if !routed {
			// Once a prompt, before its input joins the history: the
			// classifier reads the history and the input apart.
			routed = true
			t.routed = t.route(t.s.chat.contents(), input)
			input = t.withMemory(input) // not the router's to read
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
			if loop := t.loops.checkWithModel(t.utility(), input, t.s.chat.contents()); loop != nil {
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
	return apierror.Explain(err, apierror.Context{AuthType: t.s.agent.cfg.AuthType, EditorKey: t.s.agent.cfg.EditorKey, Model: cmp.Or(t.result.Model, t.model())})
}

func (t *turn) stop(reason dialog.StopReason, err error) dialog.PromptResult {
	t.result.StopReason = reason
	t.result.Err = err
	return t.result
}

// stopByHook ends the turn a hook stopped, and tells the user why.
func (t *turn) stopByHook(reason string) dialog.PromptResult {
	t.emit(dialog.NoticeEvent{Text: hookStoppedPrefix + reason})
	return t.stop(dialog.StopEndTurn, nil)
}

// runHooked runs the turn for the user's prompt text, whose content is
// input, between the session's hooks: on the session's first prompt the
// SessionStart hooks, whose context goes before the prompt; then the
// BeforeAgent hooks, which may add to the prompt, block it (it is not
// kept) or stop (it is kept, unanswered); and once the model is done,
// the AfterAgent hooks, which may have it go on with their reason as a
// new prompt.
func (t *turn) runHooked(prompt string, input *genai.Content) dialog.PromptResult {
	h := t.hooks()
	if h.hooks == nil {
		return t.run(input)
	}
	if source := t.s.takeStartSource(); source != "" {
		out := h.fire(HookSessionStart, source, map[string]any{"source": source})
		if out.AdditionalContext != "" {
			input.Parts = append([]*genai.Part{genai.NewPartFromText(hookContext(out.AdditionalContext))}, input.Parts...)
		}
	}
	out := h.fire(HookBeforeAgent, "", map[string]any{"prompt": prompt})
	switch {
	case out.Stop:
		t.s.chat.record(input)
		return t.stopByHook(out.StopReason)
	case out.Block:
		t.emit(dialog.NoticeEvent{Text: hookBlockedPrompt + out.Reason})
		return t.stop(dialog.StopEndTurn, nil)
	case out.AdditionalContext != "":
		input.Parts = append(input.Parts, genai.NewPartFromText(hookContext(out.AdditionalContext)))
	}
	res := t.run(input)
	for retried := false; res.StopReason == dialog.StopEndTurn && t.hookStop == ""; retried = true {
		out := h.fire(HookAfterAgent, "", map[string]any{"prompt": prompt, "prompt_response": res.Text, "stop_hook_active": retried})
		switch {
		case out.Stop:
			res = t.stopByHook(out.StopReason)
			t.clearContextIf(out.ClearContext)
			return res
		case !out.Block:
			return res
		}
		t.emit(dialog.NoticeEvent{Text: hookBlockedPrompt + out.Reason})
		t.clearContextIf(out.ClearContext)
		res = t.run(genai.NewContentFromText(out.Reason, genai.RoleUser))
	}
	return res
}

// clearContextIf empties the session's history when clear is set: an
// AfterAgent hook that stopped or blocked the agent asked for it
// (clearContext), and Gemini CLI 0.61 then starts its chat afresh
// (resetChat; bundle chunk-JDPZ4CE3.js:346777-346806): the model sees nothing of the conversation before, and
// the saved session (its history and transcript) starts again from this
// prompt, as after /clear. The user is told, in 0.61's words.
func (t *turn) clearContextIf(clear bool) {
	if !clear {
		return
	}
	s := t.s
	s.replaceChat(nil)
	s.exchangesMu.Lock()
	s.exchanges = nil
	s.exchangesMu.Unlock()
	t.emit(dialog.NoticeEvent{Text: "Conversation context has been cleared."})
}

// endByHook ends the turn a model hook ended, telling the user why. The
// input stays in the history unanswered, as after a failed request; the
// AfterAgent hooks do not run.
func (t *turn) endByHook(end *hookEnd) dialog.PromptResult {
	t.hookStop = end.reason
	if end.stop {
		return t.stopByHook(end.reason)
	}
	t.emit(dialog.NoticeEvent{Text: hookBlockedPrompt + end.reason})
	return t.stop(dialog.StopEndTurn, nil)
}

// emit shows ev, an event of the turn's own agent.
func (t *turn) emit(ev dialog.Event) { t.show(dialog.Subagent{}, ev) }

// showing is how a turn started by a call with port shows its events: on
// port, under the call's ctx; nowhere when port is nil.
func showing(ctx context.Context, port dialog.Port) func(dialog.Subagent, dialog.Event) {
	if port == nil {
		return func(dialog.Subagent, dialog.Event) {}
	}
	return func(from dialog.Subagent, ev dialog.Event) { port.Show(ctx, from, ev) }
}
