package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The agent reads the editor's unsaved buffer, not the stale file on disk.
func TestReadsSeeUnsavedBuffers(t *testing.T) {
	h := start(t, setup{profile: lsptest.Neovim(), files: map[string]string{"a.go": "package a // on disk\n"}},
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "a.go"}),
			geminitest.Call("grep_search", map[string]any{"pattern": "unsaved"}),
			geminitest.Call("read_file", map[string]any{"path": "new.go"}),
		),
		geminitest.TextTurn("seen"),
	)
	if err := h.client.Open(h.ctx, h.path("a.go"), "package a // unsaved edit\n"); err != nil {
		t.Fatal(err)
	}
	// A buffer for a file that was never saved at all.
	if err := h.client.Open(h.ctx, h.path("new.go"), "package a // never saved\n"); err != nil {
		t.Fatal(err)
	}
	h.prompt(map[string]any{"prompt": "read it"})
	h.wantOutput(1,
		"package a // unsaved edit\n",
		"Found 1 match for pattern \"unsaved\" in the workspace directory:\n---\nFile: a.go\nL1: package a // unsaved edit\n---",
		"package a // never saved\n",
	)
}

// Paths outside the workspace, directly or through a symlink, are refused
// with an error the model can act on, and the turn goes on.
func TestPathsOutsideTheRootAreRefused(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, setup{profile: lsptest.Plugin(), opts: map[string]any{"approvalMode": "yolo"}},
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": filepath.Join(outside, "secret.txt")}),
			geminitest.Call("read_file", map[string]any{"path": "../" + filepath.Base(outside) + "/secret.txt"}),
			geminitest.Call("read_file", map[string]any{"path": "link/secret.txt"}),
			geminitest.Call("write_file", map[string]any{"file_path": "link/new.txt", "content": "x"}),
			geminitest.Call("list_directory", map[string]any{"path": "link"}),
		),
		geminitest.TextTurn("ok"),
	)
	if err := os.Symlink(outside, h.path("link")); err != nil {
		t.Fatal(err)
	}
	res := h.prompt(map[string]any{"prompt": "peek"})
	if res.StopReason != "end_turn" {
		t.Errorf("stopReason = %q", res.StopReason)
	}
	out := h.toolOutputs(1)
	if len(out) != 5 {
		t.Fatalf("outputs = %q", out)
	}
	for i, o := range out {
		if !strings.HasPrefix(o, "error: ") || !strings.Contains(o, "outside the workspace") || strings.Contains(o, "secret\"") {
			t.Errorf("output %d = %q, want an outside-the-workspace error", i, o)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Errorf("write_file escaped through the symlink")
	}
	if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
		t.Errorf("%d edits proposed outside the root", n)
	}
}

// An unknown tool and invalid arguments are errors the model sees; the
// turn goes on.
func TestUnknownToolAndInvalidArgumentsKeepTheTurnGoing(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{"a.go": aGo}},
		geminitest.CallTurn(
			geminitest.Call("delete_everything", map[string]any{}),
			geminitest.Call("read_file", map[string]any{"path": 42}),
			geminitest.Call("read_file", map[string]any{}),
			geminitest.Call("read_file", map[string]any{"path": "a.go", "offset": 1.5, "limit": 2}),
		),
		call("read_file", map[string]any{"path": "a.go"}),
		geminitest.TextTurn("recovered"),
	)
	res := h.prompt(map[string]any{"prompt": "go"})
	if res.StopReason != "end_turn" || res.Text != "recovered" {
		t.Fatalf("result = %+v", res)
	}
	h.wantOutput(1,
		`error: Tool "delete_everything" not found. Did you mean one of: "update_topic", "grep_search", "write_file"?`,
		"error: params/file_path must be string",
		"error: params must have required property 'file_path'",
		"error: params/offset must be integer",
	)
	h.wantOutput(2, aGo) // the turn went on
	results := h.updates("toolResult")
	if len(results) != 5 || results[0].Status != "error" || results[4].Status != "ok" {
		t.Errorf("toolResult updates = %+v", results)
	}
}

// asyncPrompt sends gemini/prompt without waiting.
func (h *harness) asyncPrompt(params map[string]any) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		var res promptResult
		if err := h.client.Call(h.ctx, "gemini/prompt", params, &res); err != nil {
			res.Error = "call failed: " + err.Error()
		}
		ch <- res
	}()
	return ch
}

func (h *harness) waitUpdate(kind string) update {
	h.t.Helper()
	m, err := h.client.WaitMessage(h.ctx, "gemini/update", func(p json.RawMessage) bool {
		var u update
		return json.Unmarshal(p, &u) == nil && u.Kind == kind
	})
	if err != nil {
		h.t.Fatal(err)
	}
	var u update
	_ = json.Unmarshal(m.Params, &u)
	return u
}

func (h *harness) cancelSession(id string) {
	h.t.Helper()
	if err := h.client.Notify(h.ctx, "gemini/cancel", map[string]any{"sessionId": id}); err != nil {
		h.t.Fatal(err)
	}
}

func waitResult(t *testing.T, ch <-chan promptResult) promptResult {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt did not end")
		return promptResult{}
	}
}

// waitToolCallOutside waits for a toolCall update of a session other than
// sessionID.
func (h *harness) waitToolCallOutside(sessionID string) update {
	h.t.Helper()
	m, err := h.client.WaitMessage(h.ctx, "gemini/update", func(p json.RawMessage) bool {
		var u update
		return json.Unmarshal(p, &u) == nil && u.Kind == "toolCall" && u.SessionID != sessionID
	})
	if err != nil {
		h.t.Fatal(err)
	}
	var u update
	_ = json.Unmarshal(m.Params, &u)
	return u
}

func hangingTurn() geminitest.Turn {
	return geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Thinking about it"}}, Hang: true}
}

func TestCancelMidStream(t *testing.T) {
	t.Run("gemini/cancel", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn(), geminitest.TextTurn("after"))
		ch := h.asyncPrompt(map[string]any{"prompt": "think"})
		u := h.waitUpdate("text")
		h.cancelSession(u.SessionID)
		res := waitResult(t, ch)
		if res.StopReason != "cancelled" || res.SessionID != u.SessionID {
			t.Fatalf("result = %+v", res)
		}
		// The session stays usable.
		if next := h.prompt(map[string]any{"prompt": "again", "sessionId": res.SessionID}); next.StopReason != "end_turn" || next.Text != "after" {
			t.Errorf("next prompt = %+v", next)
		}
	})
	// "Stop and send again" in one step: the next prompt waits for the
	// cancelled one to end (conversation.Turns) instead of meeting a busy
	// session.
	t.Run("prompt right after gemini/cancel", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn(), geminitest.TextTurn("after"))
		ch := h.asyncPrompt(map[string]any{"prompt": "think"})
		u := h.waitUpdate("text")
		h.cancelSession(u.SessionID)
		next := h.prompt(map[string]any{"prompt": "again", "sessionId": u.SessionID})
		if next.StopReason != "end_turn" || next.Text != "after" {
			t.Errorf("the prompt sent right after cancelling = %+v", next)
		}
		if res := waitResult(t, ch); res.StopReason != "cancelled" {
			t.Errorf("the cancelled prompt = %+v", res)
		}
	})
	t.Run("$/cancelRequest", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn())
		if err := h.client.RawCall("p1", "gemini/prompt", map[string]any{"prompt": "think"}); err != nil {
			t.Fatal(err)
		}
		h.waitUpdate("text")
		if err := h.client.Notify(h.ctx, "$/cancelRequest", map[string]any{"id": "raw-p1"}); err != nil {
			t.Fatal(err)
		}
		raw, err := h.client.RawResponse(h.ctx, "p1")
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Result promptResult `json:"result"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil || resp.Result.StopReason != "cancelled" {
			t.Errorf("response = %s", raw)
		}
	})
}

// plugins are the clients that review edits and answer gemini/confirm, and
// the notification that withdraws a question from each.
var plugins = []struct {
	profile func() lsptest.Profile
	cancel  string
}{
	{lsptest.Plugin, "$/cancelRequest"},
	{lsptest.NeovimPlugin, "gemini/cancelRequest"},
}

func TestCancelMidConfirmation(t *testing.T) {
	for _, pl := range plugins {
		t.Run(pl.profile().Name, func(t *testing.T) { testCancelMidConfirmation(t, pl.profile, pl.cancel) })
	}
}

func testCancelMidConfirmation(t *testing.T, profile func() lsptest.Profile, cancel string) {
	t.Run("edit preview", func(t *testing.T) {
		h := start(t, setup{profile: profile(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		h.open("a.go")
		h.client.OnApplyEdit = lsptest.Hold(make(chan struct{}))
		ch := h.asyncPrompt(map[string]any{"prompt": "return 2"})
		if _, err := h.client.WaitMessage(h.ctx, "workspace/applyEdit", nil); err != nil {
			t.Fatal(err)
		}
		u := h.updates("toolCall")[0]
		h.cancelSession(u.SessionID)
		res := waitResult(t, ch)
		if res.StopReason != "cancelled" {
			t.Fatalf("result = %+v", res)
		}
		h.wantBuffer("a.go", aGo)
		// The plugin is told to close the preview nobody waits for.
		if _, err := h.client.WaitMessage(h.ctx, cancel, nil); err != nil {
			t.Errorf("no %s for the abandoned applyEdit: %v", cancel, err)
		}
		if r := h.waitUpdate("toolResult"); r.Status != "cancelled" {
			t.Errorf("toolResult = %+v, want cancelled", r)
		}
	})
	t.Run("shell confirmation", func(t *testing.T) {
		h := start(t, setup{profile: profile()},
			call("run_shell_command", map[string]any{"command": "touch ran"}),
			geminitest.TextTurn("done"),
		)
		h.client.OnConfirm = func(ctx context.Context, _ json.RawMessage) string {
			<-ctx.Done() // the user never answers
			return "proceed_once"
		}
		ch := h.asyncPrompt(map[string]any{"prompt": "touch"})
		if _, err := h.client.WaitMessage(h.ctx, "gemini/confirm", nil); err != nil {
			t.Fatal(err)
		}
		h.cancelSession(h.updates("toolCall")[0].SessionID)
		if res := waitResult(t, ch); res.StopReason != "cancelled" {
			t.Fatalf("result = %+v", res)
		}
		if _, err := os.Stat(h.path("ran")); err == nil {
			t.Error("the command ran after the prompt was cancelled")
		}
		if _, err := h.client.WaitMessage(h.ctx, cancel, nil); err != nil {
			t.Errorf("no %s for the abandoned gemini/confirm: %v", cancel, err)
		}
	})
}

// Shell commands are confirmed with gemini/confirm, showMessageRequest, or
// refused when nobody can be asked.
func TestShellConfirmation(t *testing.T) {
	shellTurns := func() []geminitest.Turn {
		return []geminitest.Turn{call("run_shell_command", map[string]any{"command": "echo hi > out.txt"}), geminitest.TextTurn("done")}
	}
	for _, pl := range plugins {
		t.Run("gemini/confirm proceed/"+pl.profile().Name, func(t *testing.T) {
			h := start(t, setup{profile: pl.profile()}, shellTurns()...)
			var asked json.RawMessage
			h.client.OnConfirm = func(_ context.Context, p json.RawMessage) string { asked = p; return "proceed_once" }
			h.prompt(map[string]any{"prompt": "run"})
			var p map[string]string
			_ = json.Unmarshal(asked, &p)
			if p["kind"] != "execute" || p["details"] != "echo hi > out.txt" || p["callId"] == "" || p["sessionId"] == "" {
				t.Errorf("gemini/confirm params = %s", asked)
			}
			h.wantDisk("out.txt", "hi\n")
			if out := h.toolOutputs(1)[0]; !shellSucceeded(out) {
				t.Errorf("shell output %q, want a command that succeeded", out)
			}
		})
		t.Run("gemini/confirm cancel/"+pl.profile().Name, func(t *testing.T) {
			h := start(t, setup{profile: pl.profile()}, shellTurns()...)
			h.client.OnConfirm = func(context.Context, json.RawMessage) string { return "cancel" }
			h.prompt(map[string]any{"prompt": "run"})
			h.wantOutput(1, "error: The user declined to run this command.")
			if _, err := os.Stat(h.path("out.txt")); err == nil {
				t.Error("a declined command ran")
			}
		})
	}
	t.Run("showMessageRequest", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.VSCode()}, shellTurns()...)
		h.client.OnShowMessageRequest = func(msg string, actions []string) string {
			if !strings.Contains(msg, "echo hi > out.txt") || strings.Join(actions, ",") != "Allow Once,Reject" { // no Always Allow: it writes to a file
				t.Errorf("asked %q with %q", msg, actions)
			}
			return "Allow Once"
		}
		h.prompt(map[string]any{"prompt": "run"})
		h.wantDisk("out.txt", "hi\n")
		if n := len(h.client.Messages("gemini/confirm")); n != 0 {
			t.Errorf("sent gemini/confirm to a client without it")
		}
	})
	t.Run("nobody to ask", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions()}, shellTurns()...)
		h.prompt(map[string]any{"prompt": "run"})
		out := h.toolOutputs(1)
		if !strings.Contains(out[0], `"approvalMode": "yolo"`) {
			t.Errorf("output = %q", out)
		}
		if _, err := os.Stat(h.path("out.txt")); err == nil {
			t.Error("ran without confirmation")
		}
	})
	t.Run("yolo", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NoQuestions(), opts: map[string]any{"approvalMode": "yolo"}, env: trustTheWorkspace()}, shellTurns()...)
		h.prompt(map[string]any{"prompt": "run"})
		h.wantDisk("out.txt", "hi\n")
	})
}

// The prompt's context tells the model where the user is and what they
// selected, as the editor has it.
func TestPromptContextCarriesTheSelection(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{"a.go": aGo}}, geminitest.TextTurn("explained"))
	if err := h.client.Open(h.ctx, h.path("a.go"), "package a\n\nfunc 😀() int { return 1 }\n"); err != nil {
		t.Fatal(err)
	}
	h.prompt(map[string]any{"prompt": "explain", "context": map[string]any{
		"uri":   "file://" + h.path("a.go"),
		"range": map[string]any{"start": map[string]int{"line": 2, "character": 5}, "end": map[string]int{"line": 2, "character": 13}},
	}})
	got, rest := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
	want := `{"activeFile":{"path":"` + h.path("a.go") + `","cursor":{"line":3,"character":6},"selectedText":"😀() int"}}`
	if got != want {
		t.Errorf("context:\n%s\nwant:\n%s", got, want)
	}
	if len(rest) != 1 || rest[0] != "explain" {
		t.Errorf("parts after the context = %q", rest)
	}
}

// Sessions run side by side.
func TestTwoSessionsAtOnce(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "one", Delay: 200 * time.Millisecond}}},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "two", Delay: 200 * time.Millisecond}}},
	)
	var wg sync.WaitGroup
	results := make([]promptResult, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = waitResult(t, h.asyncPrompt(map[string]any{"prompt": "hi"}))
		}()
	}
	wg.Wait()
	if results[0].SessionID == results[1].SessionID {
		t.Errorf("both prompts ran in session %s", results[0].SessionID)
	}
	texts := results[0].Text + "," + results[1].Text
	if texts != "one,two" && texts != "two,one" {
		t.Errorf("texts = %s", texts)
	}
}

// Diagnostics the editor shows travel with the prompt.
func TestPromptContextCarriesDiagnostics(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo}}, geminitest.TextTurn("fixed"))
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "fix the diagnostics here", "context": map[string]any{
		"uri": "file://" + h.path("a.go"),
		"diagnostics": []map[string]any{
			{"range": map[string]any{"start": map[string]int{"line": 2, "character": 5}, "end": map[string]int{"line": 2, "character": 6}}, "severity": 1, "message": "A redeclared in this block", "source": "compiler", "code": "DuplicateDecl"},
			{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}}, "severity": 2, "message": "package comment missing"},
		},
	}})
	got, _ := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
	want := `{"activeFile":{"path":"` + h.path("a.go") + `","diagnostics":[` +
		`{"line":3,"character":6,"severity":"error","message":"A redeclared in this block","source":"compiler","code":"DuplicateDecl"},` +
		`{"line":1,"character":1,"severity":"warning","message":"package comment missing"}]}}`
	if got != want {
		t.Errorf("context:\n%s\nwant:\n%s", got, want)
	}

	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "x", "context": map[string]any{"diagnostics": []any{}, "range": map[string]any{}}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"context.uri"`) {
		t.Errorf("context without uri: %v", err)
	}
}

// The session list names each session by its first prompt, the most
// recently used first, and a listed session can be continued.
func TestSessionsList(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	first := h.prompt(map[string]any{"prompt": "first question\nwith details"})
	time.Sleep(5 * time.Millisecond)
	second := h.prompt(map[string]any{"prompt": "second question"})
	h.prompt(map[string]any{"prompt": "follow-up", "sessionId": first.SessionID})
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Title     string `json:"title"`
			CreatedAt string `json:"createdAt"`
			Prompts   int    `json:"prompts"`
		} `json:"sessions"`
	}
	if err := h.client.Call(h.ctx, "gemini/sessions", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 2 {
		t.Fatalf("sessions = %+v", res.Sessions)
	}
	got := res.Sessions
	if got[0].SessionID != first.SessionID || got[0].Title != "first question" || got[0].Prompts != 2 ||
		got[1].SessionID != second.SessionID || got[1].Title != "second question" || got[1].Prompts != 1 {
		t.Errorf("sessions = %+v", got)
	}
	if _, err := time.Parse(time.RFC3339Nano, got[1].CreatedAt); err != nil {
		t.Errorf("createdAt %q: %v", got[1].CreatedAt, err)
	}
}

// A connection keeps in memory, beside the session in use, the 4 idle
// sessions used last (dialog.MaxIdleSavedSessions): an editor stays open
// for days, and each session holds its whole history. A session dropped
// from memory is saved, so prompting it again reads it back, and the
// model sees its whole history.
func TestSessionsAreBoundedByUse(t *testing.T) {
	const sessions, live = 32, dialog.MaxIdleSavedSessions + 1
	turns := make([]geminitest.Turn, sessions+4)
	for i := range turns {
		turns[i] = geminitest.TextTurn("ok")
	}
	h := start(t, setup{profile: lsptest.Plugin()}, turns...)
	first := h.prompt(map[string]any{"prompt": "first"}).SessionID
	second := h.prompt(map[string]any{"prompt": "second"}).SessionID
	for i := 2; i < sessions; i++ {
		h.prompt(map[string]any{"prompt": "more"})
	}
	h.prompt(map[string]any{"prompt": "back to the first", "sessionId": first}) // second is now the least recently used
	h.prompt(map[string]any{"prompt": "one too many"})

	var res struct {
		Sessions []struct {
			SessionID string    `json:"sessionId"`
			CreatedAt time.Time `json:"createdAt"`
			UpdatedAt time.Time `json:"updatedAt"`
			Prompts   int       `json:"prompts"`
			Live      bool      `json:"live"`
		} `json:"sessions"`
	}
	if err := h.client.Call(h.ctx, "gemini/sessions", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	inMemory := 0
	for _, s := range res.Sessions {
		if s.Live {
			inMemory++
		}
		switch s.SessionID {
		case second:
			if s.Live || s.Prompts != 1 {
				t.Errorf("the dropped session = %+v, want it listed as saved, not live", s)
			}
		case first:
			if !s.Live || s.Prompts != 2 || !s.UpdatedAt.After(s.CreatedAt) {
				t.Errorf("first session = %+v", s)
			}
		}
	}
	if len(res.Sessions) != sessions+1 || inMemory != live {
		t.Errorf("%d sessions listed, %d live; want %d, %d live", len(res.Sessions), inMemory, sessions+1, live)
	}

	if res := h.prompt(map[string]any{"prompt": "again", "sessionId": second}); res.StopReason != "end_turn" {
		t.Fatalf("prompt to the dropped session: %+v", res)
	}
	reqs := h.model.Requests()
	last := withoutSessionContext(reqs[len(reqs)-1].Contents)
	if len(last) != 3 || last[0].Parts[0].Text != "second" {
		t.Errorf("the resumed session's request = %d contents; want its first exchange and the new prompt", len(last))
	}
}
