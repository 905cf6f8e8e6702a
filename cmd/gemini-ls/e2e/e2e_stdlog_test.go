package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// A prompt cancelled while the model streams makes the genai SDK write
// "Error context canceled" with the standard log package: the line goes
// to gemini-ls's log at debug level (this harness's --log-file), never to
// stderr, the editor's log of gemini-ls or a person's terminal.
func TestCancelledStreamLogsNothingOnStderr(t *testing.T) {
	const sdkLine = "Error context canceled"
	h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn())
	ch := h.asyncPrompt(map[string]any{"prompt": "think"})
	u := h.waitUpdate("text")
	h.cancelSession(u.SessionID)
	if res := waitResult(t, ch); res.StopReason != "cancelled" {
		t.Fatalf("result = %+v", res)
	}
	// The SDK logs once its stream's read fails, after the prompt ended.
	stderr := func() string { return readFile(h.log + ".stderr") }
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(h.readLog()+stderr(), sdkLine); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the SDK's line %q is neither in the log nor on stderr", sdkLine)
		}
	}
	if got := stderr(); strings.Contains(got, sdkLine) {
		t.Errorf("the SDK's line reached stderr:\n%s", got)
	}
	if !strings.Contains(h.readLog(), sdkLine) {
		t.Errorf("the SDK's line is not in the log")
	}
}
