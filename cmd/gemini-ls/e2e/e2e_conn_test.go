package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The editor going away while the model answers ends gemini-ls within 2 s,
// with status 1: it does not wait for the answer.
func TestEditorGoneDuringModelCall(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn())
	h.asyncPrompt(map[string]any{"prompt": "think"})
	h.waitUpdate("text")
	closeStdin(t, h)
	h.wantExit(1, 2*time.Second)
}

func closeStdin(t *testing.T, h *harness) {
	t.Helper()
	if err := h.proc.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantExit waits up to within for the server to exit with code.
func (h *harness) wantExit(code int, within time.Duration) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, within)
	defer cancel()
	got, err := h.proc.Wait(ctx)
	if err != nil {
		// Killed now: the harness would wait for it to end by itself.
		_ = h.proc.Cmd.Process.Kill()
		h.t.Fatalf("gemini-ls still runs %s after the editor went away", within)
	}
	if got != code {
		h.t.Errorf("exit status %d, want %d", got, code)
	}
}

// A method name or an id that is not UTF-8 comes back in a frame that is
// valid JSON and valid UTF-8, the bad bytes replaced with U+FFFD.
func TestInvalidUTF8IsNeverEchoed(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode()})
	for _, tc := range []struct {
		name, id, method, wantID, wantMessage string
	}{
		{"method", "raw-m", "gemini/\xff\xfeprompt", "raw-m", "method not found: gemini/\uFFFDprompt"},
		{"id", "raw-\xc3", "gemini/nothing", "raw-\uFFFD", "method not found: gemini/nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.client.WriteRaw(`{"jsonrpc":"2.0","id":"` + tc.id + `","method":"` + tc.method + `","params":{}}`); err != nil {
				t.Fatal(err)
			}
			raw, err := h.client.RawResponse(h.ctx, strings.TrimPrefix(tc.wantID, "raw-"))
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(raw) || !json.Valid(raw) {
				t.Fatalf("response frame %q is not valid UTF-8 JSON", raw)
			}
			var resp struct {
				ID    string `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &resp); err != nil {
				t.Fatal(err)
			}
			if resp.ID != tc.wantID || resp.Error.Code != -32601 || resp.Error.Message != tc.wantMessage {
				t.Errorf("response = %+v, want id %q, MethodNotFound %q", resp, tc.wantID, tc.wantMessage)
			}
		})
	}
	// The connection is fine afterwards.
	if err := h.client.Call(h.ctx, "gemini/sessions", map[string]any{}, nil); err != nil {
		t.Errorf("gemini/sessions after the bad frames: %v", err)
	}
}

// A confirmation the user never answers holds the edit queue only while its
// prompt runs: a change waiting behind it leaves when its own prompt is
// cancelled (the model is told it was not applied, and why), and once the
// unanswered prompt is cancelled the next change goes ahead.
func TestUnansweredConfirmationDoesNotBlockLaterEdits(t *testing.T) {
	for _, tc := range []struct {
		profile func() lsptest.Profile
		// withdraw is how the client is told nobody waits for the
		// unanswered request any more.
		withdraw string
	}{
		{lsptest.Plugin, "$/cancelRequest"},            // workspace/applyEdit
		{lsptest.NeovimPlugin, "gemini/cancelRequest"}, // gemini/request
		{lsptest.Eglot, "$/cancelRequest"},             // window/showMessageRequest
	} {
		t.Run(tc.profile().Name, func(t *testing.T) { testUnansweredConfirmation(t, tc.profile(), tc.withdraw) })
	}
}

func testUnansweredConfirmation(t *testing.T, profile lsptest.Profile, withdraw string) {
	edit := func(file string) geminitest.Turn {
		return call("replace", map[string]any{"file_path": file, "old_string": "return 1", "new_string": "return 2"})
	}
	h := start(t, setup{profile: profile, files: map[string]string{"a.go": aGo, "b.go": aGo, "c.go": aGo}},
		edit("a.go"),                 // 0: prompt A, never answered
		edit("b.go"),                 // 1: prompt B, waits behind A
		geminitest.TextTurn("noted"), // 2: prompt B again
		edit("c.go"),                 // 3: prompt C, after A ended
		geminitest.TextTurn("done"),  // 4
	)
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		h.open(f)
	}
	// The user never answers about a.go (eglot: C-g, or its own request
	// timeout unwound the question); the client does not answer even when
	// told nobody waits. Everything else is accepted.
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	h.client.OnShowMessageRequest = func(msg string, _ []string) string {
		if strings.Contains(msg, "a.go") {
			<-never
			return ""
		}
		return "Apply"
	}
	h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
		if strings.HasSuffix(e.Files[0].Path, "a.go") {
			<-never
			return lsptest.Answer{}
		}
		return lsptest.Answer{Apply: true}
	}
	question := "workspace/applyEdit"
	if profile.Name == "eglot" {
		question = "window/showMessageRequest"
	}

	resA := h.asyncPrompt(map[string]any{"prompt": "edit a"})
	if _, err := h.client.WaitMessage(h.ctx, question, nil); err != nil {
		t.Fatal(err)
	}
	sessionA := h.waitUpdate("toolCall").SessionID
	resB := h.asyncPrompt(map[string]any{"prompt": "edit b"})
	// B's toolCall update and the log line of its change waiting travel
	// apart (the LSP stream, the log file): the log may come first, so
	// wait for each.
	sessionB := h.waitToolCallOutside(sessionA).SessionID
	h.waitLog("waiting for the change in flight")

	// B's change waits for A's; B's prompt is cancelled meanwhile.
	h.cancelSession(sessionB)
	if res := waitResult(t, resB); res.StopReason != "cancelled" {
		t.Fatalf("prompt B = %+v, want cancelled", res)
	}
	for _, m := range h.client.Messages("") {
		if strings.Contains(string(m.Params), "b.go") && (m.Method == "workspace/applyEdit" || m.Method == "window/showMessageRequest") {
			t.Errorf("b.go's change was shown (%s) after its prompt was cancelled", m.Method)
		}
	}
	// The model learns, in the next request of B's session, that the
	// change was not applied and why.
	if res := h.prompt(map[string]any{"prompt": "what happened?", "sessionId": sessionB}); res.Text != "noted" {
		t.Fatalf("prompt B again = %+v", res)
	}
	got := functionResponses(h.model.Requests()[2].Contents)
	want := "This change was not applied: the prompt was cancelled while this change waited for the user to decide on another one, so it was never shown to the user. The file was not modified."
	if len(got) != 1 || got[0] != want {
		t.Errorf("the model was told %q, want %q", got, want)
	}

	// A is cancelled: the client is told to drop the question, and the
	// next change is shown and applied at once.
	h.cancelSession(sessionA)
	if res := waitResult(t, resA); res.StopReason != "cancelled" {
		t.Fatalf("prompt A = %+v, want cancelled", res)
	}
	if _, err := h.client.WaitMessage(h.ctx, withdraw, nil); err != nil {
		t.Errorf("the client was not told to drop the unanswered question: %v", err)
	}
	resC := h.asyncPrompt(map[string]any{"prompt": "edit c"})
	if res := waitResult(t, resC); res.StopReason != "end_turn" {
		t.Fatalf("prompt C = %+v", res)
	}
	h.wantOutput(4, "Successfully modified file: "+h.path("c.go")+" (1 replacements).")
	h.wantBuffer("c.go", "package a\n\nfunc A() int { return 2 }\n")
	h.wantBuffer("a.go", aGo)
	h.wantBuffer("b.go", aGo)
}

// functionResponses are the outputs or errors of every function response
// in contents.
func functionResponses(contents []*genai.Content) []string {
	var out []string
	for _, c := range contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				if e, ok := fr.Response["error"]; ok {
					out = append(out, fmt.Sprint(e))
				} else {
					out = append(out, fmt.Sprint(fr.Response["output"]))
				}
			}
		}
	}
	return out
}

// A notification whose text is not UTF-8 (here the diff of a Latin-1 file
// the model edits) still reaches the editor, the bad bytes as U+FFFD:
// jsonrpc2's encoder refuses such strings and would drop it.
func TestNotificationWithInvalidUTF8IsNotLost(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"menu.txt": "caf\xe9\n"}, opts: map[string]any{"approvalMode": "auto_edit"}},
		call("write_file", map[string]any{"file_path": "menu.txt", "content": "tea\n"}),
		geminitest.TextTurn("done"),
	)
	h.prompt(map[string]any{"prompt": "tea instead"})
	results := h.updates("toolResult")
	if len(results) != 1 {
		t.Fatalf("%d toolResult updates, want 1", len(results))
	}
	if d := results[0].Display; !strings.Contains(d, "-caf\uFFFD") || !strings.Contains(d, "+tea") {
		t.Errorf("display = %q, want the diff with U+FFFD for the Latin-1 byte", d)
	}
}
