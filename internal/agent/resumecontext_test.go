package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A session resumed a week later, on a workspace whose tree changed,
// sends its history byte for byte as it sent it, the first user content
// (the session context with the date and the tree it was made with, the
// memory, the first prompt) included, up to the new prompt: the model's
// cache keeps all of it. A new session of that day gets that day's
// context (0.61 makes a new one at each resume, so a resumed session's
// requests start differing from their first bytes).
func TestResumeSendsTheFirstContentAsItWasSent(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	base, root := contextConfig(t, &now, t.TempDir())
	base.Store = newStore(t)
	base.Memory = &memory{text: "# Contextual Instructions (GEMINI.md)\n<loaded_context>\nUse tabs.\n</loaded_context>"}
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"),
		geminitest.TextTurn("three"), geminitest.TextTurn("fresh"))
	a, _ := newAgent(t, srv, base)
	s := a.NewSession()
	prompt(t, s, "first")
	prompt(t, s, "second")

	now = now.Add(7 * 24 * time.Hour)
	if err := os.WriteFile(filepath.Join(root, "added.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := newAgent(t, srv, base)
	resumed, err := b.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, resumed, "third")
	prompt(t, b.NewSession(), "fresh")

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	before, after := modelOrder(reqs[1]), modelOrder(reqs[2])
	// All of the request before but the contents' closing bracket.
	if common := commonPrefix(before, after); common < len(before)-1 {
		t.Errorf("the resumed request differs from the one before from byte %d of %d: %.200s", common, len(before), after[common:])
	}
	first := toJSON(reqs[2].Contents[0])
	if !strings.Contains(first, "Saturday, November 28, 2026") || strings.Contains(first, "added.txt") || !strings.Contains(first, "Use tabs.") {
		t.Errorf("the resumed session's first content is not the one it sent first: %.600s", first)
	}
	// The clock and the tree did change: a new session shows them.
	if fresh := toJSON(reqs[3].Contents[0]); !strings.Contains(fresh, "Saturday, December 5, 2026") || !strings.Contains(fresh, "added.txt") {
		t.Errorf("a new session's context is not today's: %.600s", fresh)
	}
}
