package builtin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// /rewind lists the prompts, the most recent last, and rewinds the
// conversation to before one; it says what it did, and a wrong argument
// names the usage.
func TestRewind(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	env := h.conversation()
	if got := h.answer(env, "/rewind"); got != "There is nothing to rewind: the conversation has no prompts yet." {
		t.Errorf("/rewind of a new conversation said %q", got)
	}
	for _, p := range []string{"first\nwith a second line", "second"} {
		if _, err := env.Session.Prompt(context.Background(), dialog.Input{Text: p}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.answer(env, "/rewind"); !strings.HasPrefix(got, "Prompts of this conversation, the most recent last:\n1. first …\n2. second\n") {
		t.Errorf("/rewind said %q", got)
	}
	for line, want := range map[string]string{
		"/rewind x":              `"x" is not a prompt number; usage: /rewind [<n> [conversation | code | both]]`,
		"/rewind 1 sideways":     `unknown mode "sideways"; usage: /rewind`,
		"/rewind 1 both extra":   "too many arguments; usage: /rewind",
		"/rewind 3":              "the rewind failed: no such prompt 3: the conversation has 2 prompts",
		"/rewind 0 conversation": "no such prompt 0",
	} {
		if err := h.fails(env, line); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	if got := h.answer(env, "/rewind 2 conversation"); got != "Rewound the conversation to before prompt 2: 1 prompt removed." {
		t.Errorf("/rewind 2 conversation said %q", got)
	}
	if pts := env.Session.RewindPoints(); len(pts) != 1 || pts[0].Text != "first\nwith a second line" {
		t.Errorf("points after the rewind = %+v", pts)
	}
}
