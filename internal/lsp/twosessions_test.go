package lsp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// askUserTurn is a model turn calling ask_user with question, of one
// choice.
func askUserTurn(question string) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call("ask_user", map[string]any{"questions": []any{map[string]any{
		"header": "Pick", "question": question, "type": "choice",
		"options": []any{map[string]any{"label": "Yes", "description": ""}, map[string]any{"label": "No", "description": ""}},
	}}}))
}

// Two sessions of one connection prompt at once, each asking a
// confirmation (run_shell_command) and then a question (ask_user) while
// the other's waits: each question reaches the client naming the session
// whose prompt asked it, and its answer goes back to that prompt alone.
func TestTwoSessionsQuestionsReachTheirOwnTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo first"})),
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo second"})),
		askUserTurn("First's question?"), askUserTurn("Second's question?"),
		geminitest.TextTurn("Done."), geminitest.TextTurn("Done."))
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "GEMINI_API_KEY": "test-key", "GEMINI_MODEL": "gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL":          model.URL,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
	}
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.NeovimPlugin())

	// Each question is told by the session it names, "one" the first
	// named, "other" the second; the test answers a session's questions
	// through its own channel.
	type asked struct{ session, what string }
	questions := make(chan asked, 4)
	var mu sync.Mutex
	names := map[string]string{} // session id → one, other
	answers := map[string]chan bool{"one": make(chan bool, 2), "other": make(chan bool, 2)}
	nameOf := func(id string) string {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := names[id]; !ok {
			names[id] = []string{"one", "other", "third"}[len(names)]
		}
		return names[id]
	}
	wait := func(ctx context.Context, raw json.RawMessage, what string) bool {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(raw, &p)
		name := nameOf(p.SessionID)
		questions <- asked{name, what}
		select {
		case yes := <-answers[name]:
			return yes
		case <-ctx.Done():
			return false
		}
	}
	c.OnConfirm = func(ctx context.Context, raw json.RawMessage) string {
		var p struct{ Details string }
		_ = json.Unmarshal(raw, &p)
		if wait(ctx, raw, "confirm "+p.Details) {
			return "proceed_once"
		}
		return "cancel"
	}
	c.OnAsk = func(ctx context.Context, raw json.RawMessage) any {
		var p struct{ Text string }
		_ = json.Unmarshal(raw, &p)
		if wait(ctx, raw, "ask "+p.Text) {
			return map[string]any{"chosen": []string{"0"}}
		}
		return map[string]any{"declined": true}
	}
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
		t.Fatal(err)
	}
	type result struct {
		SessionID string `json:"sessionId"`
		Text      string `json:"text"`
	}
	type end struct {
		res result
		err error
	}
	ended := make(chan end, 2)
	prompt := func() {
		var res result
		err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "run it"}, &res)
		ended <- end{res, err}
	}
	next := func() string {
		select {
		case q := <-questions:
			return q.session + ": " + q.what
		case e := <-ended:
			t.Fatalf("a prompt ended before its question: %+v", e)
			return ""
		case <-ctx.Done():
			t.Fatal("no question reached the client")
			return ""
		}
	}

	// Each question waits for its answer while the other turn asks, so
	// the model's turns go to the sessions in this order.
	go prompt() // one
	got := []string{next()}
	go prompt() // other
	got = append(got, next())
	answers["one"] <- false
	got = append(got, next())
	answers["other"] <- false
	got = append(got, next())
	want := []string{"one: confirm echo first", "other: confirm echo second", "one: ask First's question?", "other: ask Second's question?"}
	if !slices.Equal(got, want) {
		t.Errorf("the questions reached the client as %q, want %q: each naming its own session", got, want)
	}
	answers["one"] <- true
	answers["other"] <- true
	for range 2 {
		e := <-ended
		if e.err != nil || e.res.Text != "Done." || nameOf(e.res.SessionID) == "third" {
			t.Errorf("a prompt ended %+v, want done in a session that asked", e)
		}
	}
}
