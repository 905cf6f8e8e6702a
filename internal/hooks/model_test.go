package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// The model hooks, BeforeModel and AfterModel, with real shell hooks and
// the fake Gemini API.

// TestBeforeModelHookBlocksTheRequest: a BeforeModel hook exiting 2
// keeps the request from the model; the turn ends and the user is told
// the hook's reason.
func TestBeforeModelHookBlocksTheRequest(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("never sent"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookBeforeModel: {
		def("", command(`cat > before-model.json; echo "the model is off limits" >&2; exit 2`, 0)),
	}})
	res, notices := prompt(t, s, "hello")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	if res.StopReason != dialog.StopEndTurn || res.Text != "" {
		t.Errorf("stop %s, text %q", res.StopReason, res.Text)
	}
	if !slices.Contains(notices, "Agent execution blocked by hook: the model is off limits") {
		t.Errorf("the user was told %q", notices)
	}
	var in struct {
		Event   string `json:"hook_event_name"`
		Request struct {
			Model    string              `json:"model"`
			Messages []map[string]string `json:"messages"`
			Config   map[string]any      `json:"config"`
		} `json:"llm_request"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "before-model.json"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "BeforeModel" || in.Request.Model != "gemini-test" || len(in.Request.Messages) != 1 ||
		in.Request.Messages[0]["role"] != "user" || in.Request.Messages[0]["content"] != "hello" || in.Request.Config == nil {
		t.Errorf("BeforeModel input %s", data)
	}
}

// TestBeforeModelHookChangesTheRequest: a BeforeModel hook's llm_request
// changes the model, the first message's text and the temperature of
// every request; the call and its response, which hooks do not see, are
// kept in the request after the call.
func TestBeforeModelHookChangesTheRequest(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("done"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeModel: {def("", command(
		`cat >/dev/null; echo '{"hookSpecificOutput":{"llm_request":{"model":"gemini-hooked","messages":[{"role":"user","content":"rewritten by the hook"}],"config":{"temperature":0.25}}}}'`, 0))}})
	res, _ := prompt(t, s, "the secret prompt")
	if res.Text != "done" || len(tool.paths()) != 1 {
		t.Fatalf("text %q, ran %v", res.Text, tool.paths())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Model != "gemini-hooked" {
			t.Errorf("request %d went to %q", i, r.Model)
		}
		if got := texts(r.Contents[0]); len(got) != 1 || got[0] != "rewritten by the hook" {
			t.Errorf("request %d's first content = %q", i, got)
		}
		if r.GenerationConfig == nil || r.GenerationConfig.Temperature == nil || *r.GenerationConfig.Temperature != 0.25 {
			t.Errorf("request %d's generation config = %+v", i, r.GenerationConfig)
		}
		if strings.Contains(string(r.Body), "the secret prompt") {
			t.Errorf("request %d still says what the hook rewrote: %s", i, r.Body)
		}
	}
	if len(reqs[1].Contents) != 3 || modelCall(t, reqs[1]).Name != "write_note" || functionResponse(t, reqs[1])["output"] != "wrote a.md" {
		t.Errorf("the second request lost the call or its response: %v", reqs[1].Contents)
	}
}

// TestBeforeModelHookAnswersInsteadOfTheModel: a BeforeModel hook's
// llm_response is the answer; no request reaches the model.
func TestBeforeModelHookAnswersInsteadOfTheModel(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("from the model"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookBeforeModel: {def("", command(
		`cat >/dev/null; echo '{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["a cached ","answer"]}}]}}}'`, 0))}})
	var shown strings.Builder
	res, err := s.Prompt(t.Context(), dialog.Input{Text: "hello"}, port{show: func(ev dialog.Event) {
		if text, ok := ev.(dialog.TextEvent); ok {
			shown.WriteString(text.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	if res.StopReason != dialog.StopEndTurn || res.Text != "a cached answer" || shown.String() != "a cached answer" {
		t.Errorf("stop %s, text %q, shown %q", res.StopReason, res.Text, shown.String())
	}
}

// TestAfterModelHookReplacesTheResponseText: an AfterModel hook runs on
// each streamed chunk, with the request and the chunk; the chunk it
// replaces is what the user is shown and what the conversation keeps.
func TestAfterModelHookReplacesTheResponseText(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("the secret", " is 42"), geminitest.TextTurn("ok"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterModel: {def("", command(`
input=$(cat)
printf '%s\n' "$input" >> after-model.jsonl
case "$input" in
*'"text":"the secret"'*) echo '{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["[redacted]"]}}]}}}' ;;
*) echo '{}' ;;
esac`, 0))}})
	res, notices := prompt(t, s, "tell me")
	if res.Text != "[redacted] is 42" || len(notices) != 0 {
		t.Errorf("text %q, notices %q", res.Text, notices)
	}
	data, err := os.ReadFile(filepath.Join(dir, "after-model.jsonl"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("the hook ran %d times for 2 chunks: %s", len(lines), data)
	}
	var in struct {
		Event    string                                 `json:"hook_event_name"`
		Request  struct{ Messages []map[string]string } `json:"llm_request"`
		Response struct {
			Text       string `json:"text"`
			Candidates []struct {
				Content struct{ Parts []string } `json:"content"`
			} `json:"candidates"`
		} `json:"llm_response"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "AfterModel" || len(in.Request.Messages) != 1 || in.Request.Messages[0]["content"] != "tell me" ||
		in.Response.Text != "the secret" || len(in.Response.Candidates) != 1 || !slices.Equal(in.Response.Candidates[0].Content.Parts, []string{"the secret"}) {
		t.Errorf("AfterModel input %s", lines[0])
	}

	prompt(t, s, "again")
	history := srv.Requests()[1].Contents
	if got := texts(history[1]); len(got) != 1 || got[0] != "[redacted] is 42" {
		t.Errorf("the conversation kept %q", got)
	}
}

// TestModelHooksMergeByFieldReplacement: the model events' hooks merge
// as Gemini CLI's mergeWithFieldReplacement: a later hook's decision
// replaces an earlier one's; their llm_requests merge key by key, and in
// order each sequential hook reads the request the one before left.
func TestModelHooksMergeByFieldReplacement(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	ev := agent.HookEvent{Name: agent.HookBeforeModel, SessionID: "s-1",
		Input: map[string]any{"llm_request": map[string]any{"model": "gemini-test", "messages": []any{}}}}
	first := `cat >/dev/null; echo '{"decision":"deny","reason":"first says no","hookSpecificOutput":{"llm_request":{"model":"gemini-hooked"}}}'`
	second := `grep -q '"model":"gemini-hooked"' && echo '{"decision":"allow","hookSpecificOutput":{"llm_request":{"config":{"temperature":0}}}}'`
	r := runner(t, dir, agent.HookBeforeModel, settings.HookDefinition{Sequential: true, Hooks: []settings.HookCommand{command(first, 0), command(second, 0)}})
	out := fire(t, r, ev)
	if out.Block || len(out.Messages) != 0 {
		t.Errorf("the later allow did not replace the earlier deny: %+v", out)
	}
	if out.LLMRequest["model"] != "gemini-hooked" || out.LLMRequest["config"] == nil {
		t.Errorf("merged llm_request = %v", out.LLMRequest)
	}
}

// TestAfterModelHookBlocksTheAnswer: an AfterModel hook exiting 2 ends
// the turn; the user is told why, the answer is not kept, and a hook
// failing on every chunk is reported once.
func TestAfterModelHookBlocksTheAnswer(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("fine", " words", " then forbidden"), geminitest.TextTurn("ok"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterModel: {def("",
		command(`grep -q forbidden && { echo "no forbidden words" >&2; exit 2; }; exit 0`, 0),
		command(`cat >/dev/null; echo broken >&2; exit 1`, 0),
	)}})
	res, notices := prompt(t, s, "talk")
	want := []string{`Hook "cat >/dev/null; echo broken >&2; exit 1" failed for event AfterModel: it exited with code 1: broken. It was ignored.`,
		"Agent execution blocked by hook: no forbidden words"}
	if res.StopReason != dialog.StopEndTurn || !slices.Equal(notices, want) {
		t.Errorf("stop %s, notices %q", res.StopReason, notices)
	}
	if res.Text != "fine words" {
		t.Errorf("text %q: the transcript keeps what was shown, and no more", res.Text)
	}
	prompt(t, s, "again")
	if strings.Contains(string(srv.Requests()[1].Body), "fine words") {
		t.Errorf("the conversation kept the blocked answer: %s", srv.Requests()[1].Body)
	}
}

// TestBeforeModelHookModelOutOfQuota: a model a BeforeModel hook chose
// that is out of quota ends the turn with the error; no fallback model
// replaces it, and the request is not sent again.
func TestBeforeModelHookModelOutOfQuota(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(429, "Quota exceeded for gemini-hooked, limit: 0"), geminitest.TextTurn("never"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookBeforeModel: {def("", command(
		`cat >/dev/null; echo '{"hookSpecificOutput":{"llm_request":{"model":"gemini-hooked"}}}'`, 0))}})
	res, _ := prompt(t, s, "hello")
	// Said as a sentence (issue 56) that names the model the hook chose,
	// whose quota it is.
	if res.StopReason != dialog.StopError || res.Err == nil || !strings.HasPrefix(res.Err.Error(), "The quota for gemini-hooked is used up") {
		t.Errorf("stop %s, err %v", res.StopReason, res.Err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-hooked" {
		t.Errorf("%d requests", len(reqs))
	}
}

// TestCancelStopsAnAfterModelHook: cancelling the prompt while an
// AfterModel hook runs stops it; the chunk it held is not shown, and no
// failure is reported: the user cancelled.
func TestCancelStopsAnAfterModelHook(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("held back"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterModel: {def("", command(`touch started; sleep 120`, 0))}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	guard := time.AfterFunc(60*time.Second, cancel)
	defer guard.Stop()
	var shown []dialog.Event
	res, err := s.Prompt(ctx, dialog.Input{Text: "talk"}, port{show: func(ev dialog.Event) {
		switch ev.(type) {
		case dialog.NoticeEvent, dialog.TextEvent:
			shown = append(shown, ev)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != dialog.StopCancelled || len(shown) != 0 {
		t.Errorf("stop %s, shown %+v", res.StopReason, shown)
	}
}
