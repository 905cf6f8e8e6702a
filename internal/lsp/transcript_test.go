package lsp

import (
	"errors"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// A turn that simply ended ends its part of the transcript with the rule
// alone; one that stopped early says why in words, never in the
// protocol's stop reason.
func TestTranscriptEndsInWords(t *testing.T) {
	for _, tc := range []struct {
		o    conversation.Outcome
		want string
	}{
		{conversation.Outcome{Ending: conversation.Done, Text: "Done."}, "Done.\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.Cancelled}, "Done.\n\n_Cancelled._\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.LoopDetected}, "Done.\n\n_Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on._\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.Failed, Err: errors.New("quota exhausted")}, "Done.\n\n_Failed: quota exhausted._\n\n---\n\n"},
	} {
		tr := &transcript{}
		tr.b.WriteString("Done.")
		tr.end(tc.o)
		got := tr.b.String()
		if got != tc.want {
			t.Errorf("%s: transcript ends %q, want %q", tc.o.Ending.Reason(), got, tc.want)
		}
		if strings.Contains(got, tc.o.Ending.Reason()) {
			t.Errorf("%s: the stop reason's protocol name is in the transcript: %q", tc.o.Ending.Reason(), got)
		}
	}
}
