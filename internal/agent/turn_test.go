package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func TestMultiToolTurn(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			call("c1", "read_file", map[string]any{"path": "a.go"}),
			call("c2", "read_file", map[string]any{"path": "b.go"}),
		),
		geminitest.TextTurn("Both files ", "read."),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	res, evs := prompt(t, s, "read a.go and b.go")
	evs = evs.byCall("c1", "c2") // the calls ran at once

	if res.StopReason != dialog.StopEndTurn || res.Err != nil {
		t.Fatalf("result = %+v", res)
	}
	if res.Text != "Both files read." || res.ToolCalls != 2 {
		t.Errorf("text %q, tool calls %d", res.Text, res.ToolCalls)
	}
	want := []string{
		"UsageEvent",
		"ToolCallEvent", "ToolResultEvent",
		"ToolCallEvent", "ToolResultEvent",
		"TextEvent", "TextEvent", "UsageEvent",
	}
	if got := evs.kinds(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	calls := only[dialog.ToolCallEvent](evs)
	if c := calls[0].Call; c.CallID != "c1" || c.Name != "read_file" || c.Title != "Read a.go" || c.Args["path"] != "a.go" {
		t.Errorf("first call event = %+v", c)
	}
	results := only[dialog.ToolResultEvent](evs)
	if r := results[1].Result; r.CallID != "c2" || r.Status != dialog.StatusOK || r.Display != "read b.go" {
		t.Errorf("second result event = %+v", r)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if first.SystemInstruction == nil || first.SystemInstruction.Parts[0].Text != agent.DefaultSystemPrompt {
		t.Errorf("system instruction = %v", first.SystemInstruction)
	}
	if len(first.Tools) != 1 || first.Tools[0].FunctionDeclarations[0].Name != "read_file" {
		t.Errorf("tools = %s", toJSON(first.Tools))
	}
	if first.GenerationConfig != nil && first.GenerationConfig.ThinkingConfig != nil {
		t.Errorf("thinking config sent without Config.Thinking: %s", toJSON(first.GenerationConfig))
	}
	second := reqs[1].Contents
	if len(second) != 3 || second[0].Parts[0].Text != "read a.go and b.go" || second[1].Role != "model" || second[2].Role != "user" {
		t.Fatalf("second request contents = %s", toJSON(second))
	}
	if p := second[1].Parts; len(p) != 2 || p[0].FunctionCall.ID != "c1" || p[1].FunctionCall.ID != "c2" {
		t.Errorf("model turn = %s", describe(second[1]))
	}
	fr := responses(t, reqs[1])
	if len(fr) != 2 || fr[0].ID != "c1" || fr[0].Name != "read_file" || fr[0].Response["output"] != "contents of a.go" ||
		fr[1].ID != "c2" || fr[1].Response["output"] != "contents of b.go" {
		t.Errorf("function responses = %s", toJSON(fr))
	}
}

func TestThoughtsEmittedNotStored(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Planning the answer**\n\nI will greet the user."},
			{Thought: true, Text: "no subject here"},
			{Text: "Hello!"},
		}},
		geminitest.TextTurn("Again."),
	)
	a, _ := newAgent(t, srv, agent.Config{Thinking: true})
	s := a.NewSession()
	res, evs := prompt(t, s, "hi")
	if res.Text != "Hello!" {
		t.Errorf("text = %q: thoughts must not count as text", res.Text)
	}
	thoughts := only[dialog.ThoughtEvent](evs)
	if len(thoughts) != 2 {
		t.Fatalf("thought events = %+v", thoughts)
	}
	if th := thoughts[0].Thought; th.Subject != "Planning the answer" || th.Description != "I will greet the user." {
		t.Errorf("thought = %+v", th)
	}
	if th := thoughts[1].Thought; th.Subject != "" || th.Description != "no subject here" {
		t.Errorf("thought without subject = %+v", th)
	}
	prompt(t, s, "again")
	reqs := srv.Requests()
	if gc := reqs[0].GenerationConfig; gc == nil || gc.ThinkingConfig == nil || !gc.ThinkingConfig.IncludeThoughts {
		t.Errorf("includeThoughts not requested: %s", reqs[0].Body)
	}
	model := reqs[1].Contents[1]
	if len(model.Parts) != 1 || model.Parts[0].Thought || model.Parts[0].Text != "Hello!" {
		t.Errorf("stored model turn = %s, want only the text", describe(model))
	}
}

func TestAdjacentTextMerged(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("Hel", "lo ", "world"), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	_, evs := prompt(t, s, "hi")
	var deltas []string
	for _, ev := range only[dialog.TextEvent](evs) {
		deltas = append(deltas, ev.Text)
	}
	if !slices.Equal(deltas, []string{"Hel", "lo ", "world"}) {
		t.Errorf("deltas = %q, want each chunk as it came", deltas)
	}
	prompt(t, s, "next")
	contents := srv.Requests()[1].Contents
	if len(contents) != 3 {
		t.Fatalf("contents = %s", toJSON(contents))
	}
	if p := contents[1].Parts; len(p) != 1 || p[0].Text != "Hello world" {
		t.Errorf("model turn = %s, want one merged text part", describe(contents[1]))
	}
	if contents[2].Parts[0].Text != "next" {
		t.Errorf("last content = %s", describe(contents[2]))
	}
}

func TestGeneratedCallIDsPairResponses(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "a.go"}),
			geminitest.Call("read_file", map[string]any{"path": "b.go"}),
		),
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "c.go"}),
			call("model-id", "read_file", map[string]any{"path": "d.go"}),
		),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	_, evs := prompt(t, a.NewSession(), "read")
	evs = evs.byCall("call_1", "call_2", "call_3", "model-id") // each turn's calls ran at once

	var ids []string
	for _, ev := range only[dialog.ToolCallEvent](evs) {
		ids = append(ids, ev.Call.CallID)
	}
	if !slices.Equal(ids, []string{"call_1", "call_2", "call_3", "model-id"}) {
		t.Errorf("call ids = %q", ids)
	}
	for i, ev := range only[dialog.ToolResultEvent](evs) {
		if ev.Result.CallID != ids[i] {
			t.Errorf("result %d has id %q, want %q", i, ev.Result.CallID, ids[i])
		}
	}
	// The history sent back pairs every stored call with its response.
	last := srv.Requests()[2].Contents
	var callIDs, respIDs []string
	for _, c := range last {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				callIDs = append(callIDs, p.FunctionCall.ID)
			}
			if p.FunctionResponse != nil {
				respIDs = append(respIDs, p.FunctionResponse.ID)
			}
		}
	}
	if !slices.Equal(callIDs, ids) || !slices.Equal(respIDs, ids) {
		t.Errorf("history call ids %q, response ids %q, want %q", callIDs, respIDs, ids)
	}
}

func TestThoughtSignaturesSentBack(t *testing.T) {
	sigThought, sigCall, sigText := []byte("sig-thought"), []byte("sig-call"), []byte("sig-text")
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Reading**", ThoughtSignature: sigThought},
			{Text: "Let me look.", ThoughtSignature: nil},
			{Call: geminitest.Call("read_file", map[string]any{"path": "a.go"}), ThoughtSignature: sigCall},
		}},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Text: "It is "},
			{Text: "fine."},
			{ThoughtSignature: sigText},
		}},
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), Thinking: true})
	s := a.NewSession()
	prompt(t, s, "check a.go")
	prompt(t, s, "thanks")

	contents := srv.Requests()[2].Contents
	if len(contents) != 5 {
		t.Fatalf("contents = %s", toJSON(contents))
	}
	first := contents[1].Parts
	// The thought is dropped but its signature stays, on the text after it.
	if len(first) != 2 || first[0].Thought || first[0].Text != "Let me look." || !bytes.Equal(first[0].ThoughtSignature, sigThought) {
		t.Errorf("first model turn = %s", describe(contents[1]))
	}
	if len(first) == 2 && (first[1].FunctionCall == nil || !bytes.Equal(first[1].ThoughtSignature, sigCall)) {
		t.Errorf("call part lost its signature: %s", describe(contents[1]))
	}
	second := contents[3].Parts
	if len(second) != 1 || second[0].Text != "It is fine." || !bytes.Equal(second[0].ThoughtSignature, sigText) {
		t.Errorf("second model turn = %s, want the merged text with its signature", describe(contents[3]))
	}
}

func TestUnknownToolAndInvalidArgs(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(
			geminitest.Call("delete_everything", nil),
			geminitest.Call("read_file", map[string]any{"file": "a.go"}),
			geminitest.Call("read_file", map[string]any{"path": "a.go"}),
		),
		geminitest.TextTurn("Recovered."),
	)
	reg := tools.NewRegistry(readTool())
	a, _ := newAgent(t, srv, agent.Config{Tools: reg})
	res, evs := prompt(t, a.NewSession(), "go")
	evs = evs.byCall("call_1", "call_2", "call_3")
	if res.StopReason != dialog.StopEndTurn || res.Text != "Recovered." {
		t.Fatalf("result = %+v: the turn must go on after bad calls", res)
	}
	calls := only[dialog.ToolCallEvent](evs)
	if calls[0].Call.Title != "delete_everything" || calls[1].Call.Title != "read_file" || calls[2].Call.Title != "Read a.go" {
		t.Errorf("titles = %q, %q, %q", calls[0].Call.Title, calls[1].Call.Title, calls[2].Call.Title)
	}
	results := only[dialog.ToolResultEvent](evs)
	if results[0].Result.Status != dialog.StatusError || results[1].Result.Status != dialog.StatusError || results[2].Result.Status != dialog.StatusOK {
		t.Errorf("statuses = %s", toJSON(results))
	}
	fr := responses(t, srv.Requests()[1])
	if len(fr) != 3 {
		t.Fatalf("responses = %s", toJSON(fr))
	}
	if fr[0].Response["error"] != `Tool "delete_everything" not found. Did you mean "read_file"?` {
		t.Errorf("unknown tool response = %v", fr[0].Response)
	}
	if fr[1].Response["error"] != "params must have required property 'path'" || fr[1].Response["output"] != nil {
		t.Errorf("invalid args response = %v", fr[1].Response)
	}
	if fr[2].Response["output"] != "contents of a.go" {
		t.Errorf("valid call response = %v", fr[2].Response)
	}
}

func TestToolWithoutRegistry(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call("read_file", nil)), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{})
	if res, _ := prompt(t, a.NewSession(), "go"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("result = %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs[0].Tools) != 0 {
		t.Errorf("tools sent without a tool set: %s", toJSON(reqs[0].Tools))
	}
	if fr := responses(t, reqs[1]); len(fr) != 1 || !strings.Contains(fr[0].Response["error"].(string), "not found") {
		t.Errorf("response = %s", toJSON(fr))
	}
}

func TestToolExtraPartsAndErrors(t *testing.T) {
	png := []byte("\x89PNG fake")
	img := fakeTool{name: "read_image", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "image", exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Output: "Read image a.png", Parts: []*genai.Part{genai.NewPartFromBytes(png, "image/png")}}, nil
		}}, nil
	}}
	failing := fakeTool{name: "fail", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "fail", exec: func(context.Context) (tools.Result, error) {
			return tools.Result{}, errorString("disk on fire")
		}}, nil
	}}
	soft := fakeTool{name: "soft", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "soft", exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Error: "File not found: x", Display: "**not found**"}, nil
		}}, nil
	}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_image", nil), geminitest.Call("fail", nil), geminitest.Call("soft", nil)),
		geminitest.TextTurn("seen"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(img, failing, soft)})
	_, evs := prompt(t, a.NewSession(), "look")
	evs = evs.byCall("call_1", "call_2", "call_3")
	last := srv.Requests()[1].Contents
	parts := last[len(last)-1].Parts
	if len(parts) != 4 || parts[0].FunctionResponse == nil || parts[1].InlineData == nil || !bytes.Equal(parts[1].InlineData.Data, png) {
		t.Fatalf("user content = %s, want the image right after its response", toJSON(parts))
	}
	if r := parts[2].FunctionResponse.Response; r["error"] != "disk on fire" {
		t.Errorf("failed call response = %v", r)
	}
	if r := parts[3].FunctionResponse.Response; r["error"] != "File not found: x" {
		t.Errorf("error result response = %v", r)
	}
	results := only[dialog.ToolResultEvent](evs)
	if results[1].Result.Status != dialog.StatusError || results[1].Result.Display != "disk on fire" {
		t.Errorf("failed call event = %+v", results[1].Result)
	}
	if results[2].Result.Status != dialog.StatusError || results[2].Result.Display != "**not found**" {
		t.Errorf("error result event = %+v", results[2].Result)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestEmptyAnswerRecorded(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{}, geminitest.Turn{}, // nothing to say to "first", twice
		geminitest.CallTurn(call("c1", "read_file", map[string]any{"path": "a.go"})),
		geminitest.Turn{}, // nothing more to say after the tool: done
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	if res, evs := prompt(t, s, "first"); res.StopReason != dialog.StopError || len(only[dialog.TextEvent](evs)) != 0 {
		t.Fatalf("empty answer: %+v, %v", res, evs.kinds())
	}
	if res, _ := prompt(t, s, "second"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("an empty answer after the tools ran: %+v", res)
	}
	prompt(t, s, "third")
	reqs := srv.Requests()
	// The empty answer to "first" is recorded, and left out with "first".
	if c := reqs[2].Contents; len(c) != 1 || c[0].Parts[0].Text != "second" {
		t.Errorf("after an empty answer, contents = %s", toJSON(c))
	}
	// Nothing is recorded for an empty answer to function responses: they
	// stay, followed by the next prompt.
	c := reqs[4].Contents
	if len(c) != 4 || c[0].Parts[0].Text != "second" || c[1].Parts[0].FunctionCall == nil ||
		c[2].Parts[0].FunctionResponse == nil || c[3].Parts[0].Text != "third" {
		t.Errorf("contents = %s", toJSON(c))
	}
}

// An answer with nothing in it is asked for once more, then the turn ends
// with an error that says what the model returned.
func TestEmptyAnswers(t *testing.T) {
	thought := geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "**Hmm** pondering", Thought: true}}}
	for _, tc := range []struct {
		name  string
		turn  geminitest.Turn
		after bool // answering function responses
		want  string
	}{
		{"no candidates", geminitest.Turn{NoCandidates: true}, false, "the response had no candidates"},
		{"no candidates after tools", geminitest.Turn{NoCandidates: true}, true, "the response had no candidates"},
		{"empty candidate", geminitest.Turn{}, false, "it gave no answer (finish reason STOP)"},
		{"safety", geminitest.Turn{FinishReason: genai.FinishReasonSafety}, false, "its answer was blocked for safety (finish reason SAFETY)"},
		{"safety after tools", geminitest.Turn{FinishReason: genai.FinishReasonSafety}, true, "its answer was blocked for safety (finish reason SAFETY)"},
		{"recitation", geminitest.Turn{FinishReason: genai.FinishReasonRecitation}, false, "its answer was blocked for reciting protected material (finish reason RECITATION)"},
		{"other", geminitest.Turn{FinishReason: genai.FinishReasonOther}, false, "it gave no answer (finish reason OTHER)"},
		{"prohibited", geminitest.Turn{FinishReason: genai.FinishReasonProhibitedContent}, false, "its answer was blocked (finish reason PROHIBITED_CONTENT)"},
		{"max tokens", geminitest.Turn{FinishReason: genai.FinishReasonMaxTokens}, false, "its answer was cut at the output token limit before it said anything (finish reason MAX_TOKENS)"},
		{"malformed call", geminitest.Turn{FinishReason: genai.FinishReasonMalformedFunctionCall}, true, "its function call was malformed (finish reason MALFORMED_FUNCTION_CALL)"},
		{"thoughts only", thought, false, "it only thought and gave no answer (finish reason STOP)"},
		{"thoughts only after tools", thought, true, "it only thought and gave no answer (finish reason STOP)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var turns []geminitest.Turn
			if tc.after {
				turns = append(turns, geminitest.CallTurn(call("c1", "read_file", map[string]any{"path": "a.go"})))
			}
			srv := geminitest.NewTestServer(t, append(turns, tc.turn, tc.turn)...)
			a, sl := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
			res, evs := prompt(t, a.NewSession(), "hello")

			if res.StopReason != dialog.StopError {
				t.Fatalf("stop reason %q, want error (result %+v)", res.StopReason, res)
			}
			want := "the model returned no answer: " + tc.want + "; asked 2 times"
			if res.Err == nil || apierror.Raw(res.Err).Error() != want {
				t.Errorf("error = %v\nwant    %s", res.Err, want)
			}
			if e, ok := errors.AsType[*agent.EmptyAnswerError](res.Err); !ok || e.Attempts != 2 {
				t.Errorf("error %T %+v, want an *EmptyAnswerError after 2 attempts", res.Err, e)
			}
			if errs := only[dialog.ErrorEvent](evs); len(errs) != 1 || apierror.Raw(errs[0].Err).Error() != want {
				t.Errorf("error events = %v", errs)
			}
			if n := len(srv.Requests()); n != len(turns)+2 {
				t.Errorf("%d requests, want %d: the empty answer asked for once more", n, len(turns)+2)
			}
			if got := sl.got(); !slices.Equal(got, []time.Duration{500 * time.Millisecond}) {
				t.Errorf("waits before the second request = %v, want [500ms]", got)
			}
		})
	}
}

func TestEmptyAnswerRetrySucceeds(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{FinishReason: genai.FinishReasonOther},
		geminitest.TextTurn("Here it is."),
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	res, evs := prompt(t, s, "hello")
	if res.StopReason != dialog.StopEndTurn || res.Err != nil || res.Text != "Here it is." {
		t.Fatalf("result = %+v", res)
	}
	if len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("error events after a successful retry: %v", only[dialog.ErrorEvent](evs))
	}
	// The second prompt's history has the answer that came, once.
	prompt(t, s, "again")
	if c := srv.Requests()[2].Contents; len(c) != 3 || c[1].Parts[0].Text != "Here it is." {
		t.Errorf("contents = %s", toJSON(c))
	}
}

func TestMaxTokensCutAnswer(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{
		Chunks:       []geminitest.Chunk{{Text: "The first half of"}},
		FinishReason: genai.FinishReasonMaxTokens,
	})
	a, sl := newAgent(t, srv, agent.Config{})
	res, _ := prompt(t, a.NewSession(), "hello")
	if res.StopReason != dialog.StopMaxTokens || !errors.Is(res.Err, dialog.ErrAnswerCut) || res.Text != "The first half of" {
		t.Fatalf("result = %+v, want max_tokens with the text so far", res)
	}
	if n := len(srv.Requests()); n != 1 || len(sl.got()) != 0 {
		t.Errorf("%d requests, waits %v: a cut answer with text is not asked again", n, sl.got())
	}
}

func TestEmptyPrompt(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{})
	var evs events
	res, _ := a.NewSession().Prompt(context.Background(), dialog.Input{}, front{}.port(evs.emit))
	if res.StopReason != dialog.StopError || res.Err == nil || len(only[dialog.ErrorEvent](evs)) != 1 {
		t.Errorf("result = %+v, events %v", res, evs.kinds())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests for an empty prompt", n)
	}
	res, _ = agent.New(agent.Config{}).NewSession().Prompt(context.Background(), dialog.Input{Text: "hi"}, nil)
	if res.StopReason != dialog.StopError || !strings.Contains(res.Err.Error(), "Config.Generator") {
		t.Errorf("without a generator: %+v", res)
	}
}

func TestMaxTurns(t *testing.T) {
	loop := geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.go"}))
	srv := geminitest.NewTestServer(t, loop, loop, loop)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool()), MaxTurns: 2})
	s := a.NewSession()
	res, evs := prompt(t, s, "loop forever")
	if res.StopReason != dialog.StopMaxTurns || res.Err != agent.ErrMaxTurns || res.ToolCalls != 2 {
		t.Fatalf("result = %+v", res)
	}
	if res.Err.Error() != "Reached max session turns for this session." {
		t.Errorf("message = %q", res.Err)
	}
	if len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("max turns is not an error event: %v", evs.kinds())
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
	// The limit is per session: the next prompt stops at once, another
	// session is not affected.
	if res, _ := prompt(t, s, "again"); res.StopReason != dialog.StopMaxTurns || len(srv.Requests()) != 2 {
		t.Errorf("second prompt = %+v after %d requests", res, len(srv.Requests()))
	}
	srv.Push(geminitest.TextTurn("fresh"))
	// The queued loop turn answers first, then "fresh": two requests.
	if res, _ := prompt(t, a.NewSession(), "hi"); res.StopReason != dialog.StopEndTurn || res.Text != "fresh" {
		t.Errorf("new session = %+v", res)
	}
}

func TestSessions(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{})
	s1, s2 := a.NewSession(), a.NewSession()
	if s1.ID() == s2.ID() || s1.ID() == "" {
		t.Errorf("ids %q and %q", s1.ID(), s2.ID())
	}
	if got, err := a.Session(context.Background(), s1.ID()); err != nil || got != s1 {
		t.Errorf("Session(%q) = %v, %v", s1.ID(), got, err)
	}
	a.EndSession(s1.ID())
	if _, err := a.Session(context.Background(), s1.ID()); err == nil {
		t.Error("session still known after EndSession")
	}
	if _, err := a.Session(context.Background(), s2.ID()); err != nil {
		t.Error("EndSession forgot the wrong session")
	}
}

// Without a session bound, one prompt still stops after MaxPromptTurns
// model requests, and the next prompt starts afresh.
func TestMaxPromptTurns(t *testing.T) {
	var turns []geminitest.Turn
	for i := range agent.MaxPromptTurns + 1 {
		if i >= 29 && (i-29)%15 == 0 {
			// The model-based loop check, at confidence 0 every 15 requests.
			turns = append(turns, loopCheck(0, "fine"))
		}
		// Different arguments each time, so that no loop is detected.
		turns = append(turns, geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": fmt.Sprintf("f%d.go", i)})))
	}
	srv := geminitest.NewTestServer(t, turns...)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	res, _ := prompt(t, s, "read everything")
	if res.StopReason != dialog.StopMaxTurns || res.ToolCalls != agent.MaxPromptTurns || !strings.Contains(res.Err.Error(), "one prompt") {
		t.Fatalf("result = %+v", res)
	}
	srv.Push(geminitest.TextTurn("done"))
	if res, _ := prompt(t, s, "go on"); res.StopReason != dialog.StopEndTurn {
		t.Errorf("next prompt = %+v", res)
	}
}

// The text of different model turns of one prompt reads as paragraphs:
// a blank line between them in the result and in the streamed text, and
// nothing added to the history.
func TestTextOfModelTurnsIsSeparated(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "I'll add a greeting."}, {Call: call("c1", "read_file", map[string]any{"path": "a.go"})}}},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Reading more.\n"}, {Call: call("c2", "read_file", map[string]any{"path": "b.go"})}}},
		geminitest.TextTurn("Done: ", "greeting added."),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	res, evs := prompt(t, a.NewSession(), "add a greeting")
	want := "I'll add a greeting.\n\nReading more.\n\nDone: greeting added."
	if res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
	var streamed strings.Builder
	for _, e := range only[dialog.TextEvent](evs) {
		streamed.WriteString(e.Text)
	}
	if streamed.String() != want {
		t.Errorf("streamed text %q, want %q", streamed.String(), want)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Contents
	if got := last[3].Parts[0].Text; got != "Reading more.\n" {
		t.Errorf("history keeps the model's text as it said it: %q", got)
	}
}
