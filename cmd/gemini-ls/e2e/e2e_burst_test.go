package e2e

import (
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// More new conversations at once than the sessions kept in memory
// (dialog.MaxLiveSessions, 32) all run: the server's cache drops none
// that a prompt was sent to, so no prompt fails with a session the
// client never named.
func TestSessionBurstsOfNewConversationsAllRun(t *testing.T) {
	const burst, bursts = 64, 2
	turns := make([]geminitest.Turn, burst*bursts)
	for i := range turns {
		turns[i] = geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "ok", Delay: 20 * time.Millisecond}}}
	}
	h := start(t, setup{profile: lsptest.Plugin()}, turns...)
	seen := map[string]bool{}
	for b := range bursts {
		results := make([]promptResult, burst)
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = <-h.asyncPrompt(map[string]any{"prompt": "hi"})
			}()
		}
		wg.Wait()
		for i, res := range results {
			if res.StopReason != "end_turn" || res.Error != "" {
				t.Errorf("burst %d, prompt %d: %+v", b, i, res)
				continue
			}
			if seen[res.SessionID] {
				t.Errorf("burst %d, prompt %d ran in session %s, a session of another prompt", b, i, res.SessionID)
			}
			seen[res.SessionID] = true
		}
	}
}

// A client opening sessions in a loop and never prompting them (more
// than dialog.MaxBlankSessions) does not grow the server's memory by
// each: the first ones leave memory at once, and the first, named by a
// prompt, comes back and runs; a prompt without a session id, sent among
// more such opened, runs in the session opened for it.
func TestSessionsOpenedInALoopComeBackWhenNamed(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("first"), geminitest.TextTurn("fresh"))
	open := func() string {
		t.Helper()
		var opened commandStarted
		if err := h.executeCommand("gemini.newSession", nil, &opened); err != nil || opened.SessionID == "" {
			t.Fatalf("gemini.newSession: %+v, %v", opened, err)
		}
		return opened.SessionID
	}
	first := open()
	for range 2 * dialog.MaxBlankSessions {
		open()
	}
	if res := h.prompt(map[string]any{"prompt": "hi", "sessionId": first}); res.StopReason != "end_turn" || res.Error != "" || res.SessionID != first {
		t.Errorf("the first session opened, named: %+v", res)
	}
	fresh := h.asyncPrompt(map[string]any{"prompt": "hi"})
	for range 2 * dialog.MaxBlankSessions {
		open()
	}
	if res := <-fresh; res.StopReason != "end_turn" || res.Error != "" {
		t.Errorf("a prompt without a session id among sessions opened: %+v", res)
	}
}
