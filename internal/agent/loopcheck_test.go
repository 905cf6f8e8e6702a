package agent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// distinctReads answers with n read_file calls of different files, from
// file number from on: no repetition for the other loop checks to find.
func distinctReads(from, n int) []geminitest.Turn {
	var paths []string
	for i := range n {
		paths = append(paths, fmt.Sprintf("f%d.go", from+i))
	}
	return readTurns(paths...)
}

// loopCheck is a loop check model's answer.
func loopCheck(confidence float64, analysis string) geminitest.Turn {
	b, _ := json.Marshal(map[string]any{"unproductive_state_analysis": analysis, "unproductive_state_confidence": confidence})
	return geminitest.TextTurn(string(b))
}

// checkModels lists the models of srv's requests that were not to the
// chat model, with the number of chat requests before each.
func checkModels(srv *geminitest.Server) []string {
	var out []string
	chat := 0
	for _, r := range srv.Requests() {
		if r.Model == "gemini-test" {
			chat++
			continue
		}
		out = append(out, fmt.Sprintf("%d:%s", chat, r.Model))
	}
	return out
}

// Gemini CLI 0.61's model-based check (LoopDetectionService.turnStarted,
// bundle chunk-JDPZ4CE3.js:342387): before the 30th model request of a
// prompt the loop-detection model is asked, at 0.9 or more the double-check
// model too; when both are sure, the first time the model is told (its
// _recoverFromLoop), and at the next check, 10 requests on, the turn stops.
func TestModelLoopCheckStopsTheTurn(t *testing.T) {
	var turns []geminitest.Turn
	turns = append(turns, distinctReads(0, 29)...)
	turns = append(turns, loopCheck(0.95, "flash says stuck"), loopCheck(0.97, "It keeps reading files."))
	turns = append(turns, distinctReads(29, 9)...)
	turns = append(turns, loopCheck(0.99, "flash says stuck again"), loopCheck(0.92, "Still reading files without end."))
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	res, evs := prompt(t, a.NewSession(), "read everything")

	loop := loopErr(t, res, evs)
	if loop.Analysis != "Still reading files without end." || !strings.Contains(loop.Error(), "Still reading files without end") {
		t.Errorf("loop = %+v (%q), want the double check's analysis", loop, loop.Error())
	}
	if first := only[dialog.NoticeEvent](evs)[0].Text; !strings.Contains(first, "It keeps reading files") {
		t.Errorf("first notice %q does not give the analysis", first)
	}
	want := []string{"29:gemini-3-flash-preview", "29:gemini-3.1-pro-preview-customtools", "38:gemini-3-flash-preview", "38:gemini-3.1-pro-preview-customtools"}
	if got := checkModels(srv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("checks = %v, want %v", got, want)
	}
	if res.ToolCalls != 38 {
		t.Errorf("%d calls run, want 38", res.ToolCalls)
	}
	reqs := srv.Requests()
	// 0.61 writes "${detail}. Please": an analysis ending in a full stop gets two.
	wantFeedback := "System: Potential loop detected. Details: It keeps reading files.. Please take a step back and confirm you're making forward progress. If not, take a step back, analyze your previous actions and rethink how you're approaching the problem. Avoid repeating the same tool calls or responses without new results."
	if got := feedbackOf(t, reqs[31]); got != wantFeedback {
		t.Errorf("feedback = %q, want %q", got, wantFeedback)
	}
	// The call answered before the check stays in the history.
	checkCallsAnswered(t, reqs[31].Contents)
}

// The check requests carry 0.61's system prompt, schema, models and
// contents (checkForLoopWithLLM, bundle chunk-JDPZ4CE3.js:342597).
func TestModelLoopCheckRequest(t *testing.T) {
	turns := append(distinctReads(0, 29), loopCheck(0.95, "maybe"), loopCheck(0.2, "no"), geminitest.TextTurn("done"))
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	if res, _ := prompt(t, a.NewSession(), "read everything"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	reqs := srv.Requests()
	flash, pro := reqs[29], reqs[30]
	if flash.Model != "gemini-3-flash-preview" || pro.Model != "gemini-3.1-pro-preview-customtools" {
		t.Fatalf("checks on %s and %s", flash.Model, pro.Model)
	}
	for _, r := range []geminitest.Request{flash, pro} {
		sys := r.SystemInstruction.Parts[0].Text
		if !strings.HasPrefix(sys, "You are a diagnostic agent that determines whether a conversational AI assistant is stuck in an unproductive loop.") ||
			!strings.Contains(sys, "(e.g., edit_file → run_build → edit_file → run_build)") ||
			!strings.HasSuffix(sys, "should weigh heavily against flagging a loop.") {
			t.Errorf("system instruction = %q", sys)
		}
		gc := r.GenerationConfig
		schema, _ := json.Marshal(gc.ResponseJsonSchema)
		if gc.ResponseMIMEType != "application/json" || string(schema) != `{"properties":{"unproductive_state_analysis":{"description":"Your reasoning on if the conversation is looping without forward progress.","type":"string"},"unproductive_state_confidence":{"description":"A number between 0.0 and 1.0 representing your confidence that the conversation is in an unproductive state.","type":"number"}},"required":["unproductive_state_analysis","unproductive_state_confidence"],"type":"object"}` {
			t.Errorf("%s: mime %q, schema %s", r.Model, gc.ResponseMIMEType, schema)
		}
		if fmt.Sprint(toJSON(r.Contents)) != fmt.Sprint(toJSON(flash.Contents)) {
			t.Errorf("the double check read other contents")
		}
	}
	// loop-detection: gemini-3-flash-base, temperature 0 and topP 1.
	if gc := flash.GenerationConfig; gc.Temperature == nil || *gc.Temperature != 0 || gc.TopP == nil || *gc.TopP != 1 || gc.ThinkingConfig != nil {
		t.Errorf("loop-detection generationConfig = %+v", gc)
	}
	// The prompt, the last 20 contents before the 30th request's input
	// (from the 39th: a response first and a call last are left out), the task.
	c := flash.Contents
	main := reqs[28].Contents // the 29th request: the prompt and 28 calls with their responses
	if len(c) != 20 || c[0].Parts[0].Text != "<original_user_request>\nread everything\n</original_user_request>" ||
		!strings.HasPrefix(c[19].Parts[0].Text, "Please analyze the conversation history to determine the possibility") ||
		toJSON(c[1:19]) != toJSON(main[39:57]) {
		t.Errorf("check contents = %s", toJSON(c))
	}
}

// A confidence below 0.9 lets the prompt go on, and sets when the next check
// is: round(5 + 10 × (1 − confidence)) requests on (updateCheckInterval,
// bundle chunk-JDPZ4CE3.js:342680), from the double check's confidence when
// there was one.
func TestModelLoopCheckInterval(t *testing.T) {
	var turns []geminitest.Turn
	turns = append(turns, distinctReads(0, 29)...)
	turns = append(turns, loopCheck(0.5, "fine")) // next in 10
	turns = append(turns, distinctReads(29, 10)...)
	turns = append(turns, loopCheck(0.8, "hmm")) // next in 7
	turns = append(turns, distinctReads(39, 7)...)
	turns = append(turns, loopCheck(0.95, "stuck?"), loopCheck(0.3, "no")) // next in 12
	turns = append(turns, distinctReads(46, 11)...)
	turns = append(turns, geminitest.TextTurn("done"))
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	res, evs := prompt(t, a.NewSession(), "read everything")
	if res.StopReason != dialog.StopEndTurn || len(only[dialog.NoticeEvent](evs)) != 0 {
		t.Fatalf("result = %+v, notices %v", res, only[dialog.NoticeEvent](evs))
	}
	want := []string{"29:gemini-3-flash-preview", "39:gemini-3-flash-preview", "46:gemini-3-flash-preview", "46:gemini-3.1-pro-preview-customtools"}
	if got := checkModels(srv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("checks = %v, want %v", got, want)
	}
}

// A check that fails (twice: 0.61 asks with maxAttempts 2) or answers no
// confidence finds no loop and leaves the interval as it was.
func TestModelLoopCheckFailureIsNoLoop(t *testing.T) {
	fail := geminitest.Turn{Err: &geminitest.APIError{Code: 500, Message: "down"}}
	var turns []geminitest.Turn
	turns = append(turns, distinctReads(0, 29)...)
	turns = append(turns, fail, fail)
	turns = append(turns, distinctReads(29, 10)...)
	turns = append(turns, geminitest.TextTurn("not json"), geminitest.TextTurn(`{"unproductive_state_analysis":"no number"}`))
	turns = append(turns, distinctReads(39, 10)...)
	turns = append(turns, loopCheck(0.95, "stuck"), fail, fail)
	turns = append(turns, geminitest.TextTurn("done"))
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	res, evs := prompt(t, a.NewSession(), "read everything")
	if res.StopReason != dialog.StopEndTurn || len(only[dialog.NoticeEvent](evs)) != 0 || res.ToolCalls != 49 {
		t.Fatalf("result = %+v, notices %v", res, only[dialog.NoticeEvent](evs))
	}
	want := []string{"29:gemini-3-flash-preview", "29:gemini-3-flash-preview", "39:gemini-3-flash-preview", "39:gemini-3-flash-preview",
		"49:gemini-3-flash-preview", "49:gemini-3.1-pro-preview-customtools", "49:gemini-3.1-pro-preview-customtools"}
	if got := checkModels(srv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("checks = %v, want %v", got, want)
	}
}
