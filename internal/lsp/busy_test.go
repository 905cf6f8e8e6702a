package lsp

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every LSP request refuses a busy session in the host's one wording,
// naming how an LSP client cancels, which each client reads: the VS Code
// extension's "is already running a prompt" (editors/vscode/src/errors.ts),
// the stock clients' "still answering" and the command that cancels.
func TestBusyErrorWording(t *testing.T) {
	msg := busyError(&dialog.BusyError{SessionID: "S1", Cancel: cancelHow}).Error()
	for _, want := range []string{"is already running a prompt", "still answering", CommandCancel, "gemini/cancel", "S1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("busy error %q lacks %q", msg, want)
		}
	}
}
