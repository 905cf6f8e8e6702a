package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

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
	t.showTextPlan(out, req.config)
	return out, nil
}

// showTextPlan shows the plan the main agent wrote as a checklist in its
// answer (- [ ] step, - [x] done: tools.ChecklistTodos) as the session's
// plan (dialog.PlanEvent), where the request did not declare write_todos
// (0.61 declares it only to Gemini 2 models, so not under auto): the
// user sees the agent's plan whatever the model, and the model is told
// of no other tool.
func (t *turn) showTextPlan(out *modelTurn, config *genai.GenerateContentConfig) {
	if t.main != nil || declares(config, tools.WriteTodosName) {
		return
	}
	if todos := tools.ChecklistTodos(out.text.String()); todos != nil {
		t.emit(dialog.PlanEvent{Todos: todos})
	}
}

// declares reports whether config declares the tool name.
func declares(config *genai.GenerateContentConfig, name string) bool {
	if config == nil {
		return false
	}
	for _, tool := range config.Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				return true
			}
		}
	}
	return false
}

// request is the next model request, as the BeforeModel hooks left it,
// or their answer in the model's place (hookReply).
func (t *turn) request() (req modelRequest, hookReply *genai.GenerateContentResponse, err error) {
	a := t.s.agent
	contents := t.s.chat.contents() // masked at the loop's start (maskHistory)
	// Read per request: a call may have switched the mode mid-turn.
	mode, plansDir := t.s.requestMode()
	t.declared = declaredTools{key: toolsKey{mode: mode, plansDir: plansDir}, set: true}
	system := t.system
	if mode == dialog.ApprovalPlan && t.main == nil { // a subagent's system prompt has plan mode's constraint (subagentInstruction)
		system += "\n\n" + a.planInstruction(plansDir)
	}
	return t.hooks().beforeModel(modelRequest{contents: contents, config: a.generateConfig(system, mode, plansDir)})
}

// logRequest logs the request of input and records it in the telemetry.
// The request's text, the input encoded (tool outputs whole), is made
// only for a log or a telemetry that keeps it; for the log alone, its
// long texts are cut to their heads (a prompt may be 16 MiB, copied three
// times over into one log line).
func (t *turn) logRequest(req modelRequest, input *genai.Content) error {
	events := t.events()
	var requestText []byte
	if events.keepsRequestText() {
		logged := input
		if !events.recordsRequestText() {
			logged = textsCut(input, maxLoggedText)
		}
		var err error
		if requestText, err = json.Marshal(logged); err != nil {
			return fmt.Errorf("encoding the request for the log: %w", err)
		}
	}
	events.request(cmp.Or(req.model, t.model()), string(requestText))
	return nil
}

// maxLoggedText bounds each text of a request the log alone keeps.
const maxLoggedText = 64 << 10

// textsCut is c with each text longer than max cut to its first max
// bytes (whole characters) and a note of how much was left out; c itself
// when none is that long.
func textsCut(c *genai.Content, max int) *genai.Content {
	if c == nil {
		return nil
	}
	var out *genai.Content
	for i, p := range c.Parts {
		if p == nil || len(p.Text) <= max {
			continue
		}
		if out == nil {
			copied := *c
			copied.Parts = slices.Clone(c.Parts)
			out = &copied
		}
		n := max
		for n > max-utf8.UTFMax && !utf8.RuneStart(p.Text[n]) {
			n-- // not inside a character
		}
		head := p.Text[:n]
		cut := *p
		cut.Text = fmt.Sprintf("%s… [%d bytes more]", head, len(p.Text)-len(head))
		out.Parts[i] = &cut
	}
	if out == nil {
		return c
	}
	return out
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
		fill := t.s.keepContextFill(usage.PromptTokenCount, model)
		t.emit(dialog.UsageEvent{Usage: dialog.UsageReport{Response: u, Prompt: t.result.Usage, Session: t.s.sessionUsage().Add(t.result.Usage), Model: model, Context: fill}})
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
			t.emit(dialog.NoticeEvent{Text: notice, Aside: true})
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
	errorType := ""
	// A loop or a hook stopped an answer that came: not a failure; nor
	// is the user's cancelling it, which 0.61 does not count either.
	if err != nil && !loop && !ended && !errors.Is(err, context.Canceled) {
		errorType = requestErrorType(err, a.cfg.AuthType)
	}
	t.s.statsRecord().request(model, a.cfg.Now().Sub(start), usageOf(usage), errorType)
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
