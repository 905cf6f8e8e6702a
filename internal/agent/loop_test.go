package agent_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// readTurns answers with one read_file call per path, one answer each.
func readTurns(paths ...string) []geminitest.Turn {
	var turns []geminitest.Turn
	for _, p := range paths {
		turns = append(turns, geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": p})))
	}
	return turns
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// loopErr returns the result's *LoopError, failing the test without one: the
// second loop of the prompt, the first having been told to the model.
func loopErr(t *testing.T, res dialog.PromptResult, evs events) *agent.LoopError {
	t.Helper()
	if res.StopReason != dialog.StopLoopDetected {
		t.Fatalf("stop reason = %s (err %v), want %s", res.StopReason, res.Err, dialog.StopLoopDetected)
	}
	loop, ok := errors.AsType[*agent.LoopError](res.Err)
	if !ok {
		t.Fatalf("err = %v, want a *agent.LoopError", res.Err)
	}
	notices := only[dialog.NoticeEvent](evs)
	if len(notices) != 2 || !strings.Contains(notices[0].Text, "The model was told so") || notices[1].Text != loop.Error() {
		t.Errorf("notices = %+v, want the first loop's, then one saying %q", notices, loop.Error())
	}
	if len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("a loop is not an error event: %v", evs.kinds())
	}
	return loop
}

// feedbackOf is the text of the last content of req, where the model is
// told of a loop.
func feedbackOf(t *testing.T, req geminitest.Request) string {
	t.Helper()
	last := req.Contents[len(req.Contents)-1]
	if last.Role != "user" || len(last.Parts) != 1 {
		t.Fatalf("last content = %s, want the loop feedback", toJSON(last))
	}
	return last.Parts[0].Text
}

// The first loop is told to the model, which goes on, as Gemini CLI 0.61's
// _recoverFromLoop does; the second stops the turn.
func TestToolCallLoopStopsTheTurn(t *testing.T) {
	turns := readTurns(repeat("a.go", 6)...)
	srv := geminitest.NewTestServer(t, append(turns, geminitest.TextTurn("ok"))...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	res, evs := prompt(t, s, "read a.go")

	loop := loopErr(t, res, evs)
	for _, want := range []string{"read_file", `{"path":"a.go"}`, "5 times in a row"} {
		if !strings.Contains(loop.Error(), want) {
			t.Errorf("loop message %q does not say %q", loop.Error(), want)
		}
	}
	// The fifth call is not run: the model is told of the loop, and its
	// next call, the sixth the same, is the second loop.
	if n := len(only[dialog.ToolResultEvent](evs)); n != 4 || res.ToolCalls != 4 {
		t.Errorf("%d results, %d calls run, want 4", n, res.ToolCalls)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
	want := `System: Potential loop detected. Details: the model called read_file with the same arguments {"path":"a.go"} 5 times in a row. Please take a step back and confirm you're making forward progress. If not, take a step back, analyze your previous actions and rethink how you're approaching the problem. Avoid repeating the same tool calls or responses without new results.`
	if got := feedbackOf(t, srv.Requests()[5]); got != want {
		t.Errorf("feedback = %q, want %q", got, want)
	}

	// The next prompt's history answers every call, the looping ones as not run.
	prompt(t, s, "next")
	c := srv.Requests()[6].Contents
	if len(c) != 15 || c[13].Role != "user" || c[14].Parts[0].Text != "next" {
		t.Fatalf("contents = %s", toJSON(c))
	}
	checkCallsAnswered(t, c)
	for _, at := range []int{11, 14} {
		fr := responses(t, geminitest.Request{Contents: c[:at]})
		if len(fr) != 1 || !strings.Contains(fmt.Sprint(fr[0].Response["error"]), "not run") {
			t.Errorf("looping call answered %s, want an error saying it was not run", toJSON(fr))
		}
	}
}

// checkCallsAnswered checks that every call in contents is answered, by id,
// in the content right after it.
func checkCallsAnswered(t *testing.T, contents []*genai.Content) {
	t.Helper()
	for i, c := range contents {
		for _, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			answered := false
			if i+1 < len(contents) {
				for _, q := range contents[i+1].Parts {
					answered = answered || q.FunctionResponse != nil && q.FunctionResponse.ID == p.FunctionCall.ID
				}
			}
			if !answered {
				t.Errorf("call %s in content %d is not answered next: %s", p.FunctionCall.ID, i, toJSON(contents))
			}
		}
	}
}

func TestToolCallsThatAreNotALoop(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []geminitest.Turn
	}{
		{"four identical calls", readTurns(repeat("a.go", 4)...)},
		{"different arguments", readTurns("a.go", "b.go", "c.go", "d.go", "e.go", "f.go")},
		{"a repeat broken by another call", readTurns("a.go", "a.go", "a.go", "a.go", "b.go", "a.go", "a.go", "a.go", "a.go")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, append(tc.turns, geminitest.TextTurn("done"))...)
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
			res, evs := prompt(t, a.NewSession(), "read")
			if res.StopReason != dialog.StopEndTurn || res.ToolCalls != len(tc.turns) {
				t.Errorf("result = %+v, want the end of the turn after %d calls", res, len(tc.turns))
			}
			if n := len(only[dialog.NoticeEvent](evs)); n != 0 {
				t.Errorf("%d notices", n)
			}
		})
	}
}

func TestToolCallCycleIsALoop(t *testing.T) {
	var paths []string
	for range 5 {
		paths = append(paths, "a.go", "b.go")
	}
	// After the first loop, a.go again repeats the cycle.
	srv := geminitest.NewTestServer(t, readTurns(append(paths, "a.go")...)...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	res, evs := prompt(t, a.NewSession(), "read")
	loop := loopErr(t, res, evs)
	if !strings.Contains(loop.Error(), "2 tool calls (read_file, read_file)") || res.ToolCalls != 9 {
		t.Errorf("loop %q after %d calls, want the 2-call cycle after 9", loop.Error(), res.ToolCalls)
	}
}

func TestIdenticalCallsInOneAnswerAreALoop(t *testing.T) {
	var calls []*genai.FunctionCall
	for range 5 {
		calls = append(calls, geminitest.Call("read_file", map[string]any{"path": "a.go"}))
	}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(calls...), readTurns("a.go")[0], geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	res, evs := prompt(t, s, "read")
	loopErr(t, res, evs)
	if res.ToolCalls != 0 || len(only[dialog.ToolCallEvent](evs)) != 0 {
		t.Errorf("%d calls run, want none of the looping answers'", res.ToolCalls)
	}
	prompt(t, s, "next")
	c := srv.Requests()[2].Contents
	checkCallsAnswered(t, c)
	if len(c) != 7 || len(c[2].Parts) != 5 || len(c[5].Parts) != 1 {
		t.Errorf("contents = %s", toJSON(c))
	}
}

func TestLoopDetectionResetsEachPrompt(t *testing.T) {
	turns := readTurns(repeat("a.go", 3)...)
	turns = append(turns, geminitest.TextTurn("done"))
	turns = append(turns, readTurns(repeat("a.go", 3)...)...)
	turns = append(turns, geminitest.TextTurn("done again"))
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	prompt(t, s, "read")
	if res, _ := prompt(t, s, "read again"); res.StopReason != dialog.StopEndTurn {
		t.Errorf("second prompt = %+v: six calls over two prompts are not a loop", res)
	}
}

const looping = "I will read the file again to check what it contains. "

func TestContentLoopStopsTheStream(t *testing.T) {
	chunks := append([]string{"Let me think.\n"}, repeat(looping, 12)...)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn(chunks...), geminitest.TextTurn(chunks...), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	res, evs := prompt(t, s, "first")
	loop := loopErr(t, res, evs)
	if !strings.Contains(loop.Error(), "the same text 10 times") || !strings.Contains(loop.Error(), "read the file again") {
		t.Errorf("loop message = %q", loop.Error())
	}
	// Text stops at once: the delta that completed the loop is not shown.
	if n := len(only[dialog.TextEvent](evs)); n >= 2*len(chunks) {
		t.Errorf("%d text events of 2×%d chunks: the stream was not stopped", n, len(chunks))
	}

	// The looping answers are not kept; the prompt and the feedback are,
	// and the next request is well-formed.
	prompt(t, s, "second")
	c := srv.Requests()[2].Contents
	if len(c) != 3 || c[0].Parts[0].Text != "first" || !strings.HasPrefix(c[1].Parts[0].Text, "System: Potential loop detected. Details: the model wrote the same text 10 times") || c[2].Parts[0].Text != "second" {
		t.Errorf("contents after a content loop = %s", toJSON(c))
	}
}

func TestContentThatIsNotALoop(t *testing.T) {
	var varied []string
	for i := range 30 {
		varied = append(varied, fmt.Sprintf("Sentence %d is about topic %d, in words of its own. ", i, i*7))
	}
	fenced := append([]string{"Here is the code:\n```go\n"}, repeat("\tfmt.Println(\"the same line of code, again and again\")\n", 15)...)
	fenced = append(fenced, "```\n")
	// Lists restart the tracking, as in the reference, even when items repeat.
	list := append([]string{"To do:\n"}, repeat("- run the tests again once the change has been made\n", 15)...)
	var prefixed []string
	for i := range 15 {
		prefixed = append(prefixed, fmt.Sprintf("The handler checks the request, then writes the response for case %d.\n", i))
	}
	nine := append(repeat(looping, 9), varied...)
	for _, tc := range []struct {
		name   string
		chunks []string
	}{
		{"varied text", varied},
		{"lines sharing a long prefix", prefixed},
		{"a sentence said nine times in a row", nine},
		{"repeated code in a fence", fenced},
		{"a list whose items repeat", list},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, geminitest.TextTurn(tc.chunks...))
			a, _ := newAgent(t, srv, agent.Config{})
			res, evs := prompt(t, a.NewSession(), "write")
			if res.StopReason != dialog.StopEndTurn || res.Text != strings.Join(tc.chunks, "") {
				t.Errorf("result = %s %v, want the whole text", res.StopReason, res.Err)
			}
			if n := len(only[dialog.NoticeEvent](evs)); n != 0 {
				t.Errorf("%d notices", n)
			}
		})
	}
}

// model.disableLoopDetection turns every check off, as Gemini CLI 0.61's
// getDisableLoopDetection does: six identical calls all run, and past the
// 30th request no loop check asks a model.
func TestLoopDetectionOff(t *testing.T) {
	turns := readTurns(repeat("a.go", 34)...)
	srv := geminitest.NewTestServer(t, append(turns, geminitest.TextTurn("ok"))...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), DisableLoopDetection: true})
	res, evs := prompt(t, a.NewSession(), "read a.go")
	if res.StopReason != dialog.StopEndTurn || res.ToolCalls != 34 {
		t.Fatalf("stop %q after %d calls (%v), want end_turn after 34", res.StopReason, res.ToolCalls, res.Err)
	}
	if n := len(only[dialog.NoticeEvent](evs)); n != 0 {
		t.Errorf("%d notices, want none", n)
	}
	if n := len(srv.Requests()); n != 35 {
		t.Errorf("%d requests, want 35 (none a loop check's)", n)
	}
}
