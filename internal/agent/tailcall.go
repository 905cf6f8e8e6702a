package agent

// A hook's tail call: an AfterTool hook may ask, in its
// hookSpecificOutput.tailToolCallRequest ({"name", "args"}), that another
// call run in the place of the one it hooked, as Gemini CLI 0.61's
// scheduler does (its _execute, bundle chunk-JDPZ4CE3.js:347847-347883;
// executeToolWithHooks, :342091): the call asked for goes through all a
// model's call goes through (the BeforeTool hooks, which read
// original_request_name, the approval door, the AfterTool hooks, which
// may ask for another), and its result answers the model's call: the
// model reads it under its own call's id and name. The call replaced is
// told to the user and to telemetry as it ended, as 0.61 logs it.

import (
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// maxTailCalls bounds the tail calls in a row in the place of one call of
// the model's: hooks that each ask for another do not hold the turn for
// ever (0.61 sets no bound).
const maxTailCalls = 10

// tailOf is where a tail call stands: the model's call it answers, and
// how many tail calls in a row led to it (1 for the first).
type tailOf struct {
	model *genai.FunctionCall
	depth int
}

// originalName is the name of the model's call run is a tail call in the
// place of; "" for the model's own calls.
func (run *toolRun) originalName() string {
	if run.tail == nil {
		return ""
	}
	return run.tail.model.Name
}

// runTail runs req, the call an AfterTool hook asked for after run's,
// whose answer was parts, and returns the parts answering the model's
// call: the tail call's, under the model's call's id and name; parts
// itself when the tail call does not run (the turn was cancelled or a hook
// stopped it, or too many ran in a row), which the user is told.
func (t *turn) runTail(run *toolRun, req *HookTailCall, parts []*genai.Part) []*genai.Part {
	model, depth := run.fc, 1
	if run.tail != nil {
		model, depth = run.tail.model, run.tail.depth+1
	}
	switch {
	case t.ctx.Err() != nil || t.stoppedByHook() != "":
		return parts
	case depth > maxTailCalls:
		t.emit(dialog.NoticeEvent{Text: fmt.Sprintf(
			"An AfterTool hook asked that %s run in the place of %s; it did not, as %d calls hooks asked for ran in a row in the place of the model's %s call already. The model reads %s's result.",
			req.Name, run.fc.Name, maxTailCalls, model.Name, run.fc.Name)})
		return parts
	}
	t.emit(dialog.NoticeEvent{Text: fmt.Sprintf("An AfterTool hook had %s run in the place of %s; the model reads its result as the result of its %s call.",
		req.Name, run.fc.Name, model.Name)})
	next := &toolRun{
		fc:    &genai.FunctionCall{ID: fmt.Sprintf("%s.tail%d", model.ID, depth), Name: req.Name, Args: argsOrEmpty(req.Args)},
		index: run.index,
		tail:  &tailOf{model: model, depth: depth},
	}
	t.mu.Lock()
	t.result.ToolCalls++
	t.mu.Unlock()
	next.start = t.s.agent.cfg.Now()
	return answering(model, t.runCall(next))
}

// answering is parts, a tail call's answer, made the answer of call: its
// function response under call's id and name, as 0.61 answers the
// model's call (originalRequestName, the callId kept).
func answering(call *genai.FunctionCall, parts []*genai.Part) []*genai.Part {
	out := slices.Clone(parts)
	if len(out) == 0 || out[0].FunctionResponse == nil {
		return out
	}
	resp := *out[0].FunctionResponse
	resp.ID, resp.Name = call.ID, call.Name
	part := *out[0]
	part.FunctionResponse = &resp
	out[0] = &part
	return out
}
