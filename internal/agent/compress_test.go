package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// answer is a text answer whose response reports promptTokens, the count
// compression compares with the threshold.
func answer(text string, promptTokens int32) geminitest.Turn {
	t := geminitest.TextTurn(text)
	t.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: promptTokens, TotalTokenCount: promptTokens}
	return t
}

// The conversation the compression tests start from: two long exchanges
// and a short one, the last reporting a prompt past the threshold of a
// 1000-token window (500).
var (
	longPrompt  = "first: " + varied("question", 40)
	longAnswer  = "first answer: " + varied("fact", 50)
	midPrompt   = "second: " + varied("test", 5)
	midAnswer   = "second answer: " + varied("result", 5)
	shortPrompt = "third"
	shortAnswer = "third answer"
)

// varied is n different sentences about what (repeated text would be
// stopped as a loop).
func varied(what string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "The %s number %d is worth %d words. ", what, i, i*7+3)
	}
	return b.String()
}

func conversation() []geminitest.Turn {
	return []geminitest.Turn{answer(longAnswer, 100), answer(midAnswer, 300), answer(shortAnswer, 600)}
}

func converse(t *testing.T, s *agent.Session) {
	t.Helper()
	for _, p := range []string{longPrompt, midPrompt, shortPrompt} {
		if res, evs := prompt(t, s, p); res.StopReason != dialog.StopEndTurn || len(only[dialog.CompressedEvent](evs)) != 0 {
			t.Fatalf("prompt %.10q: %+v, events %v", p, res, evs.kinds())
		}
	}
}

// texts is each content's role and text.
func texts(contents []*genai.Content) []string {
	var out []string
	for _, c := range contents {
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		out = append(out, c.Role+": "+b.String())
	}
	return out
}

func equalTexts(t *testing.T, what string, got []*genai.Content, want ...string) {
	t.Helper()
	g := texts(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %.80q\nwant %.80q", what, g, want)
	}
}

// asciiEstimate is Gemini CLI's estimate of contents of ASCII text: a
// quarter token a character.
func asciiEstimate(contents []*genai.Content) int32 {
	n := 0
	for _, c := range contents {
		for _, p := range c.Parts {
			n += len(p.Text)
		}
	}
	return int32(float64(n) / 4)
}

func methods(reqs []geminitest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method)
	}
	return out
}

const snapshot = "<state_snapshot><overall_goal>Understand the code base.</overall_goal></state_snapshot>"

// summaryCheckText begins 0.61's request to check a summary.
const summaryCheckText = "Critically evaluate the <state_snapshot> you just generated."

// checked is srv answering every check of a summary with nothing, so
// that the first summary stands, as 0.61 keeps it then.
func checked(srv *geminitest.Server) *geminitest.Server {
	srv.AddRule(geminitest.Rule{Contains: summaryCheckText, Turn: geminitest.TextTurn("")})
	return srv
}

func TestCompressionThatShrinks(t *testing.T) {
	turns := append(conversation(),
		geminitest.TextTurn("<scratchpad>thinking</scratchpad>\n", snapshot), // the summary
		answer("fourth answer", 200),
	)
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	res, evs := prompt(t, s, "fourth")
	if res.StopReason != dialog.StopEndTurn || res.Text != "fourth answer" {
		t.Fatalf("result = %+v", res)
	}

	// The summary, its check and the request: as 0.61, no count of a
	// history of text (estimated).
	reqs := srv.Requests()[3:]
	if got := methods(reqs); strings.Join(got, ",") != "generateContent,generateContent,streamGenerateContent" {
		t.Fatalf("requests after the conversation = %v", got)
	}
	// The oldest exchange (70% of the characters and more) is summarised
	// by the chat model with the reference's compression prompt.
	summary := reqs[0]
	if summary.Model != "gemini-2.5-pro" {
		t.Errorf("summary model = %s", summary.Model)
	}
	if si := summary.SystemInstruction; si == nil || !strings.HasPrefix(si.Parts[0].Text, "You are a specialized system component responsible for distilling chat history into a structured XML <state_snapshot>.") {
		t.Errorf("summary system instruction = %s", toJSON(si))
	}
	equalTexts(t, "summary request", summary.Contents,
		"user: "+longPrompt, "model: "+longAnswer,
		"user: Generate a new <state_snapshot> based on the provided history.\n\nFirst, reason in your scratchpad. Then, generate the updated <state_snapshot>.")

	// The next request has the snapshot, then the newest exchanges as they were.
	compressed := []string{
		"user: <scratchpad>thinking</scratchpad>\n" + snapshot,
		"model: Got it. Thanks for the additional context!",
		"user: " + midPrompt, "model: " + midAnswer, "user: " + shortPrompt, "model: " + shortAnswer,
	}
	// The check: the same history, the summary, and 0.61's request for a
	// final one, on the same model and instruction.
	check := reqs[1]
	equalTexts(t, "check request", check.Contents,
		"user: "+longPrompt, "model: "+longAnswer, "model: <scratchpad>thinking</scratchpad>\n"+snapshot,
		"user: Critically evaluate the <state_snapshot> you just generated. Did you omit any specific technical details, file paths, tool results, or user constraints mentioned in the history? If anything is missing or could be more precise, generate a FINAL, improved <state_snapshot>. Otherwise, repeat the exact same <state_snapshot> again.")
	if check.Model != summary.Model || toJSON(check.SystemInstruction) != toJSON(summary.SystemInstruction) {
		t.Errorf("the check went to %s with %.80s", check.Model, toJSON(check.SystemInstruction))
	}
	equalTexts(t, "next request", reqs[2].Contents, append(compressed, "user: fourth")...)

	// Before is what the last response reported, after the estimate of
	// the new history.
	got := only[dialog.CompressedEvent](evs)
	want := dialog.CompressionInfo{Before: 600, After: asciiEstimate(reqs[2].Contents[:len(reqs[2].Contents)-1])}
	if len(got) != 1 || got[0].Compression != want {
		t.Errorf("compressed events = %+v, want one with %+v", got, want)
	}
	if kinds := evs.kinds(); kinds[0] != "CompressedEvent" {
		t.Errorf("events = %v, want the compression first", kinds)
	}
}

func TestCompressionAgainKeepsTheSnapshot(t *testing.T) {
	turns := append(conversation(),
		geminitest.TextTurn(snapshot), answer("fourth answer", 700),
		geminitest.TextTurn(snapshot), answer("fifth answer", 100),
	)
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	prompt(t, s, "fourth")
	_, evs := prompt(t, s, "fifth")
	if n := len(only[dialog.CompressedEvent](evs)); n != 1 {
		t.Fatalf("%d compressions in the fifth prompt, want 1", n)
	}
	var second geminitest.Request
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == "generateContent" && r.Rule == nil { // a summary, not its check
			if n++; n == 2 {
				second = r
			}
		}
	}
	c := second.Contents
	if len(c) < 2 || c[0].Parts[0].Text != snapshot ||
		!strings.HasPrefix(c[len(c)-1].Parts[0].Text, "A previous <state_snapshot> exists in the history. You MUST integrate") {
		t.Errorf("second summary request = %.300q", texts(c))
	}
}

func TestCompressionThatWouldGrowIsDiscarded(t *testing.T) {
	turns := append(conversation(),
		geminitest.TextTurn(varied("long-winded snapshot", 100)), // about 1200 tokens
		answer("fourth answer", 700),
		answer("fifth answer", 800),
	)
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	res, evs := prompt(t, s, "fourth")
	if res.StopReason != dialog.StopEndTurn || len(only[dialog.CompressedEvent](evs)) != 0 {
		t.Fatalf("result = %+v, events %v: nothing to report", res, evs.kinds())
	}
	original := []string{
		"user: " + longPrompt, "model: " + longAnswer, "user: " + midPrompt, "model: " + midAnswer,
		"user: " + shortPrompt, "model: " + shortAnswer,
	}
	reqs := srv.Requests()
	equalTexts(t, "request after a discarded compression", reqs[len(reqs)-1].Contents, append(original, "user: fourth")...)

	// Still past the threshold, but not summarised again in this session.
	prompt(t, s, "fifth")
	reqs = srv.Requests()
	if got := methods(reqs[6:]); strings.Join(got, ",") != "streamGenerateContent" {
		t.Errorf("requests of the fifth prompt = %v, want no second summary", got)
	}
}

func TestFailedSummaryKeepsTheHistory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary geminitest.Turn
	}{
		{"an error", geminitest.ErrorTurn(400, "the request is too large")},
		{"an empty summary", geminitest.TextTurn("  \n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turns := append(conversation(), tc.summary, answer("fourth answer", 700),
				geminitest.TextTurn(snapshot), answer("fifth answer", 100))
			srv := checked(geminitest.NewTestServer(t, turns...))
			a, _ := newAgent(t, srv, agent.Config{TokenLimit: 1000})
			s := a.NewSession()
			converse(t, s)
			res, evs := prompt(t, s, "fourth")
			if res.StopReason != dialog.StopEndTurn || res.Text != "fourth answer" {
				t.Fatalf("result = %+v: a failed summary must not fail the prompt", res)
			}
			if k := evs.kinds(); len(only[dialog.CompressedEvent](evs)) != 0 || len(only[dialog.ErrorEvent](evs)) != 0 {
				t.Errorf("events = %v", k)
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			equalTexts(t, "request after a failed summary", last.Contents,
				"user: "+longPrompt, "model: "+longAnswer, "user: "+midPrompt, "model: "+midAnswer,
				"user: "+shortPrompt, "model: "+shortAnswer, "user: fourth")

			// A failed summary is tried again at the next request.
			_, evs = prompt(t, s, "fifth")
			if n := len(only[dialog.CompressedEvent](evs)); n != 1 {
				t.Errorf("%d compressions at the next prompt, want 1", n)
			}
		})
	}
}

func TestSummaryIsRetried(t *testing.T) {
	turns := append(conversation(),
		geminitest.ErrorTurn(503, "overloaded"), geminitest.TextTurn(snapshot),
		answer("fourth answer", 100),
	)
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, sl := newAgent(t, srv, agent.Config{TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	_, evs := prompt(t, s, "fourth")
	if len(sl.got()) != 1 || len(only[dialog.RetryEvent](evs)) != 1 {
		t.Errorf("waits %v, events %v: want one retry", sl.got(), evs.kinds())
	}
	if n := len(only[dialog.CompressedEvent](evs)); n != 1 {
		t.Errorf("%d compressions, want 1", n)
	}
}

func TestNoCompressionUnderTheThreshold(t *testing.T) {
	srv := geminitest.NewTestServer(t, append(conversation(), answer("fourth answer", 100))...)
	// 600 of a 2000-token window is under the default half.
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 2000})
	s := a.NewSession()
	converse(t, s)
	prompt(t, s, "fourth")
	for _, m := range methods(srv.Requests()) {
		if m != "streamGenerateContent" {
			t.Errorf("requests = %v, want no summary", methods(srv.Requests()))
			break
		}
	}
}

func TestCompressionThresholdSetting(t *testing.T) {
	turns := append(conversation(), geminitest.TextTurn(snapshot), answer("fourth answer", 100))
	srv := checked(geminitest.NewTestServer(t, turns...))
	// 600 of 2000 tokens passes a threshold of 0.25.
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 2000, CompressionThreshold: 0.25})
	s := a.NewSession()
	converse(t, s)
	if _, evs := prompt(t, s, "fourth"); len(only[dialog.CompressedEvent](evs)) != 1 {
		t.Errorf("events = %v, want a compression", evs.kinds())
	}
}

func TestCancelWhileSummarising(t *testing.T) {
	slow := geminitest.TextTurn(snapshot)
	slow.Delay = time.Minute // answered only if the client waits
	srv := checked(geminitest.NewTestServer(t, append(conversation(), slow)...))
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if _, err := srv.WaitRequests(ctx, 4); err == nil {
			cancel()
		}
	}()
	res, evs := promptCtx(ctx, s, "fourth")
	if res.StopReason != dialog.StopCancelled || len(only[dialog.CompressedEvent](evs)) != 0 || len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("result = %+v, events %v", res, evs.kinds())
	}
	if got := methods(srv.Requests()[3:]); strings.Join(got, ",") != "generateContent" {
		t.Errorf("requests after the cancel = %v, want only the summary", got)
	}
}

// After a compression the model may have lost what it was told of the
// editor: the next prompt tells it all again.
func TestCompressionResendsTheEditorContext(t *testing.T) {
	turns := append(conversation(), geminitest.TextTurn(snapshot), answer("fourth answer", 100), answer("fifth answer", 100))
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{TokenLimit: 1000})
	s := a.NewSession()
	editor := &dialog.EditorContext{ActiveFile: &dialog.ActiveFile{Path: "/w/main.go"}}
	send := func(text string) {
		t.Helper()
		if res, err := s.Prompt(context.Background(), dialog.Input{Text: text, Editor: editor}, front{}.port(nil)); err != nil || res.StopReason != dialog.StopEndTurn {
			t.Fatalf("prompt %.10q: %+v, %v", text, res, err)
		}
	}
	for _, p := range []string{longPrompt, midPrompt, shortPrompt, "fourth", "fifth"} {
		send(p)
	}
	reqs := srv.Requests()
	mentions := func(r geminitest.Request) bool {
		last := r.Contents[len(r.Contents)-1]
		return strings.Contains(last.Parts[0].Text, "/w/main.go")
	}
	if !mentions(reqs[0]) || mentions(reqs[1]) {
		t.Fatal("the editor context must be told once, then not again while unchanged")
	}
	last := reqs[len(reqs)-1]
	if !mentions(last) {
		t.Errorf("the prompt after the compression does not tell the editor context again: %.200q", texts(last.Contents[len(last.Contents)-1:]))
	}
}

// The history is summarised on the model Gemini CLI 0.61 picks for the
// turn's model (its chat-compression model configs): a turn on Flash on
// gemini-3-flash-preview with no generation config of its own, a turn on a
// Pro model on the custom-tools Gemini 3.1 Pro with that model's chat
// config (bench/compare-0.61/models.sh shows 0.61 sending them). An auto's
// turn is on the model its prompt was routed to; before the prompt is
// routed (compression comes first), on the one the previous prompt went to.
func TestCompressionModelFollowsTheTurnsModel(t *testing.T) {
	low := geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`)
	high := geminitest.TextTurn(`{"complexity_reasoning":"Hard.","complexity_score":95}`)
	call := geminitest.CallTurn(geminitest.Call("no_such_tool", map[string]any{}))
	call.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 600, TotalTokenCount: 600}
	routed := func(classifier geminitest.Turn, answers []geminitest.Turn) []geminitest.Turn {
		var out []geminitest.Turn
		for _, a := range answers {
			out = append(out, classifier, a)
		}
		return out
	}
	under := []geminitest.Turn{answer(longAnswer, 100), answer(midAnswer, 300), answer(shortAnswer, 400)}
	for _, tc := range []struct {
		name, model string
		turns       []geminitest.Turn
		want        string // the summary's model
		chatConfig  bool   // it carries the model's chat config
	}{
		{"auto, the last prompt routed to Pro", "auto",
			append(routed(high, conversation()), geminitest.TextTurn(snapshot), high, answer("fourth answer", 100)),
			"gemini-3.1-pro-preview-customtools", true},
		{"auto, the last prompt routed to Flash", "auto",
			append(routed(low, conversation()), geminitest.TextTurn(snapshot), low, answer("fourth answer", 100)),
			"gemini-3-flash-preview", false},
		{"auto, routed to Flash mid-prompt after Pro", "auto",
			append(routed(high, under), low, call, geminitest.TextTurn(snapshot), answer("fourth answer", 100)),
			"gemini-3-flash-preview", false},
		{"auto, routed to Pro mid-prompt after Flash", "auto",
			append(routed(low, under), high, call, geminitest.TextTurn(snapshot), answer("fourth answer", 100)),
			"gemini-3.1-pro-preview-customtools", true},
		{"pro", "pro", append(conversation(), geminitest.TextTurn(snapshot), answer("fourth answer", 100)),
			"gemini-3.1-pro-preview-customtools", true},
		{"flash", "flash", append(conversation(), geminitest.TextTurn(snapshot), answer("fourth answer", 100)),
			"gemini-3-flash-preview", false},
		{"gemini-2.5-pro", "gemini-2.5-pro", append(conversation(), geminitest.TextTurn(snapshot), answer("fourth answer", 100)),
			"gemini-2.5-pro", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := checked(geminitest.NewTestServer(t, tc.turns...))
			a, _ := newAgent(t, srv, agent.Config{Model: tc.model, TokenLimit: 1000})
			s := a.NewSession()
			converse(t, s)
			if res, evs := prompt(t, s, "fourth"); res.Text != "fourth answer" || len(only[dialog.CompressedEvent](evs)) != 1 {
				t.Fatalf("result %+v, events %v", res, evs.kinds())
			}
			var summary *geminitest.Request
			for _, r := range srv.Requests() {
				if si := r.SystemInstruction; si != nil && strings.HasPrefix(si.Parts[0].Text, "You are a specialized system component") {
					summary = &r
				}
			}
			if summary == nil {
				t.Fatal("no summary request")
			}
			if summary.Model != tc.want {
				t.Errorf("summarised on %s, want %s", summary.Model, tc.want)
			}
			gc := summary.GenerationConfig
			if tc.chatConfig {
				if gc == nil || gc.Temperature == nil || *gc.Temperature != 1 || gc.TopK == nil || *gc.TopK != 64 ||
					gc.ThinkingConfig == nil || !gc.ThinkingConfig.IncludeThoughts || gc.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelHigh {
					t.Errorf("generationConfig = %s, want %s's chat config", toJSON(gc), tc.want)
				}
			} else if gc != nil && (gc.Temperature != nil || gc.ThinkingConfig != nil) {
				t.Errorf("generationConfig = %s, want none", toJSON(gc))
			}
		})
	}
}

// A change of model resets what the previous prompt went to, as 0.61's
// setModel resets its active model: the next prompt's compression is judged
// by the new model.
func TestCompressionAfterAModelChange(t *testing.T) {
	high := geminitest.TextTurn(`{"complexity_reasoning":"Hard.","complexity_score":95}`)
	var turns []geminitest.Turn
	for _, a := range conversation() {
		turns = append(turns, high, a)
	}
	turns = append(turns, geminitest.TextTurn(snapshot), answer("fourth answer", 100))
	srv := checked(geminitest.NewTestServer(t, turns...))
	a, _ := newAgent(t, srv, agent.Config{Model: "auto", TokenLimit: 1000})
	s := a.NewSession()
	converse(t, s)
	a.SetModel("gemini-2.5-flash")
	if res, evs := prompt(t, s, "fourth"); res.Text != "fourth answer" || len(only[dialog.CompressedEvent](evs)) != 1 {
		t.Fatalf("result %+v, events %v", res, evs.kinds())
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-3].Model; got != "gemini-2.5-flash" {
		t.Errorf("summarised on %s, want gemini-2.5-flash", got)
	}
}
