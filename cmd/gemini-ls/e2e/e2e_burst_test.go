package e2e

import (
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
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
