package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// The client's answers to the agent's requests: whatever comes back, or
// nothing, the turn ends and the model is told; the agent answers only
// the client's requests.

// answerWith is a Config.Rewrite that answers method's requests with
// line, %s standing for the request's id.
func answerWith(method, line string) func(string, json.RawMessage, []byte) []byte {
	return func(m string, id json.RawMessage, answer []byte) []byte {
		if m != method {
			return answer
		}
		return fmt.Appendf(nil, line, id)
	}
}

// wantAnswersOnlyToRequests fails if any line the agent wrote is an
// answer (no method) whose id is not that of a request the client sent.
func (h *acpHarness) wantAnswersOnlyToRequests() {
	h.t.Helper()
	type envelope struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	ids := map[string]bool{}
	for _, line := range h.client.Sent() {
		var e envelope
		if json.Unmarshal([]byte(line), &e) == nil && e.Method != "" && len(e.ID) > 0 {
			ids[string(e.ID)] = true
		}
	}
	for _, line := range h.client.Received() {
		var e envelope
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			h.t.Errorf("the agent wrote a line that is not JSON: %.200s", line)
			continue
		}
		if e.Method == "" && !ids[string(e.ID)] {
			h.t.Errorf("the agent answered id %s, which no request of the client's had: %.300s", e.ID, line)
		}
	}
}

// codecompanion answers fs/write_text_file with {"result": null}: a
// success. The model is told the edit applied, and the turn goes on.
func TestACPWriteAnsweredNull(t *testing.T) {
	cfg := editorACP
	cfg.Rewrite = answerWith("fs/write_text_file", `{"jsonrpc":"2.0","id":%s,"result":null}`)
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, replaceA(), geminitest.TextTurn("done"))
	h.mustPrompt("return 2", sdk.StopReasonEndTurn)
	if b, _ := h.client.Buffer(h.path("a.go")); b != "package a\n\nfunc A() int { return 2 }\n" {
		t.Errorf("the buffer holds %q", b)
	}
	if out, errText := h.result(1); out != "Successfully modified file: "+h.path("a.go")+" (1 replacements)." || errText != "" {
		t.Errorf("the model was told %q (error %q), want the edit applied", out, errText)
	}
	if got := h.client.MessageText(h.session); got != "done" {
		t.Errorf("message %q", got)
	}
	h.wantAnswersOnlyToRequests()
}

// A permission request answered {"result": null} has no outcome: the call
// does not run, the model is told why, and the turn goes on.
func TestACPPermissionAnsweredNull(t *testing.T) {
	cfg := acptest.Config{Rewrite: answerWith("session/request_permission", `{"jsonrpc":"2.0","id":%s,"result":null}`)}
	h := startACP(t, acpSetup{cfg: cfg}, call("run_shell_command", map[string]any{"command": "touch ran"}), geminitest.TextTurn("ok"))
	h.mustPrompt("touch it", sdk.StopReasonEndTurn)
	if _, err := os.Stat(h.path("ran")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
	want := "Asking the user for approval failed: session/request_permission: the editor's answer is malformed: its result has no outcome"
	if _, errText := h.result(1); errText != want {
		t.Errorf("the model was told %q, want %q", errText, want)
	}
	h.wantAnswersOnlyToRequests()
}

// Answers that are not JSON-RPC responses end the wait for them: the
// model is told the answer was malformed (and, for a write, that the
// file may have changed), and the agent answers none of them.
func TestACPMalformedAnswers(t *testing.T) {
	for _, c := range []struct{ name, line, why string }{
		{"no result", `{"jsonrpc":"2.0","id":%s}`, "it has neither a result nor an error"},
		{"not JSON", `{"jsonrpc":"2.0","id":%s,"result":{"x":`, "it is not valid JSON"},
		{"bad error", `{"jsonrpc":"2.0","id":%s,"error":"no"}`, `its error is not a JSON-RPC error: "no"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":%s,"result":{}}`, `jsonrpc must be "2.0"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := editorACP
			cfg.Rewrite = answerWith("fs/write_text_file", c.line)
			h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, replaceA(), geminitest.TextTurn("done"))
			// Answers to nothing the agent asked are dropped, not answered.
			for _, line := range []string{`{"jsonrpc":"2.0","id":900,"result":null}`, `{"jsonrpc":"2.0","id":901,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","id":902}`} {
				if err := h.client.Send(line); err != nil {
					t.Fatal(err)
				}
			}
			h.mustPrompt("return 2", sdk.StopReasonEndTurn)
			want := "proposing change to " + h.path("a.go") + ": fs/write_text_file: the editor's answer is malformed: " + c.why +
				", so whether the editor changed the file is unknown: read it before changing it again"
			if _, errText := h.result(1); !strings.Contains(errText, want) {
				t.Errorf("the model was told %q, want %q", errText, want)
			}
			h.wantAnswersOnlyToRequests()
		})
	}
}

// A permission answered "cancelled" means the turn was cancelled (ACP:
// the client cancelled the prompt turn): the prompt answers cancelled,
// nothing runs or lands, and the model is not asked again.
func TestACPPermissionCancelledEndsTheTurn(t *testing.T) {
	for _, c := range []struct {
		name string
		turn geminitest.Turn
	}{
		{"edit", replaceA()},
		{"shell", call("run_shell_command", map[string]any{"command": "touch ran"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := editorACP
			cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.Cancelled }
			h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, c.turn, geminitest.TextTurn("next"))
			h.mustPrompt("go", sdk.StopReasonCancelled)
			if n := len(h.model.Requests()); n != 1 {
				t.Errorf("%d model requests, want 1: the cancelled turn asked the model again", n)
			}
			if w := h.client.Writes(); len(w) != 0 {
				t.Errorf("fs/write_text_file requests %+v after a cancel", w)
			}
			h.wantDisk("a.go", aGo)
			if _, err := os.Stat(h.path("ran")); !os.IsNotExist(err) {
				t.Errorf("the command ran: %v", err)
			}
			// The session goes on, and the next prompt's request answers
			// the cancelled call.
			h.mustPrompt("again", sdk.StopReasonEndTurn)
			if got := h.client.MessageText(h.session); got != "next" {
				t.Errorf("message %q", got)
			}
			if _, errText := h.result(1); !strings.Contains(errText, "cancelled") {
				t.Errorf("the cancelled call was answered %q", errText)
			}
		})
	}
}

// An answer to fs/read_text_file longer than the SDK's 10 MiB lines, but
// a file read_file takes whole, is read: a buffer of 12 MiB.
func TestACPLargeReadAnswer(t *testing.T) {
	line := strings.Repeat("a", 99) + "\n"
	disk := strings.Repeat(line, 12<<20/len(line))
	h := startACP(t, acpSetup{files: map[string]string{"big.txt": disk}, cfg: editorACP},
		call("read_file", map[string]any{"path": "big.txt"}), geminitest.TextTurn("read"))
	buffer := "from the editor\n" + disk
	h.client.SetBuffer(h.path("big.txt"), buffer)
	h.mustPrompt("read big.txt", sdk.StopReasonEndTurn)
	if n := len(h.client.Reads()); n != 1 {
		t.Errorf("%d fs/read_text_file requests, want 1", n)
	}
	out, errText := h.result(1)
	if errText != "" || !strings.Contains(out, "from the editor") {
		t.Errorf("the model was told %.300q (error %q), want the buffer's text", out, errText)
	}
	h.wantAnswersOnlyToRequests()
}

// A client that never answers fs/write_text_file holds the turn until
// session/cancel, which ends it at once; the agent withdraws the request.
func TestACPUnansweredWriteCancelled(t *testing.T) {
	cfg := editorACP
	cfg.Rewrite = func(method string, _ json.RawMessage, answer []byte) []byte {
		if method == "fs/write_text_file" {
			return nil
		}
		return answer
	}
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}, cfg: cfg}, replaceA(), geminitest.TextTurn("next"))
	h.cancelMidway("return 2", "the write", func(c *acptest.Client) bool { return len(c.Writes()) == 1 })
	h.client.Wait(h.ctx, "$/cancel_request", func(c *acptest.Client) bool {
		for _, line := range c.Received() {
			if strings.Contains(line, `"method":"$/cancel_request"`) {
				return true
			}
		}
		return false
	})
	h.mustPrompt("again", sdk.StopReasonEndTurn)
	h.wantAnswersOnlyToRequests()
}
