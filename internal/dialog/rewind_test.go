package dialog_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every front end reads a rewind's mode the one way: none is both, and a
// name of no mode is refused naming the modes.
func TestParseRewindMode(t *testing.T) {
	for in, want := range map[string]dialog.RewindMode{"": dialog.RewindBoth, "both": dialog.RewindBoth, "code": dialog.RewindCode, "conversation": dialog.RewindConversation} {
		if got, err := dialog.ParseRewindMode(in); err != nil || got != want {
			t.Errorf("ParseRewindMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"sideways", "Both", " code"} {
		if got, err := dialog.ParseRewindMode(in); err == nil || !strings.Contains(err.Error(), "conversation, code or both") {
			t.Errorf("ParseRewindMode(%q) = %q, %v; want an error naming the modes", in, got, err)
		}
	}
}
