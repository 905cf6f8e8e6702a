package lsp

import (
	"errors"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/dialog"
)

// A turn that simply ended ends its part of the transcript with the rule
// alone; one that stopped early says why in words, never in the
// protocol's stop reason.
func TestTranscriptEndsInWords(t *testing.T) {
	for _, tc := range []struct {
		res  dialog.PromptResult
		want string
	}{
		{dialog.PromptResult{StopReason: dialog.StopEndTurn, Text: "Done."}, "Done.\n\n---\n\n"},
		{dialog.PromptResult{StopReason: dialog.StopCancelled}, "Done.\n\n_Cancelled._\n\n---\n\n"},
		{dialog.PromptResult{StopReason: dialog.StopLoopDetected}, "Done.\n\n_Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on._\n\n---\n\n"},
		{dialog.PromptResult{StopReason: dialog.StopError, Err: errors.New("quota exhausted")}, "Done.\n\n_Failed: quota exhausted._\n\n---\n\n"},
	} {
		tr := &transcript{}
		tr.b.WriteString("Done.")
		tr.end(tc.res)
		got := tr.b.String()
		if got != tc.want {
			t.Errorf("%s: transcript ends %q, want %q", tc.res.StopReason, got, tc.want)
		}
		if strings.Contains(got, string(tc.res.StopReason)) {
			t.Errorf("%s: the stop reason's protocol name is in the transcript: %q", tc.res.StopReason, got)
		}
	}
}
