package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// functionOutputs are the "output" of each function response of r.
func functionOutputs(r geminitest.Request) []string {
	var out []string
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				s, _ := fr.Response["output"].(string)
				out = append(out, s)
			}
		}
	}
	return out
}

// The summary request and its check are given a tool output of the part
// summarised cut to its head and tail (10,000 characters), saying where
// the whole is, which a file holds: a 100 KB read (under what masking
// keeps whole) went to both whole, 25,000 tokens each.
func TestSummaryIsGivenEachToolOutputCut(t *testing.T) {
	tmp := t.TempDir()
	const size = 100 << 10
	srv := checked(geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call(tools.ReadFileName, map[string]any{"path": "big.txt"})),
		answer("read it", 100),
		answer("two answer", 600), // past the threshold of 1000 tokens
		geminitest.TextTurn(snapshot),
		answer("three answer", 100),
	))
	a, _ := newAgent(t, srv, agent.Config{
		Tools: tools.NewRegistry(bigRead(size)), TokenLimit: 1000,
		ProjectTempDir: func() (string, error) { return tmp, nil },
	})
	s := a.NewSession()
	prompt(t, s, "read big.txt")
	prompt(t, s, "two")
	if _, evs := prompt(t, s, "three"); len(only[dialog.CompressedEvent](evs)) != 1 {
		t.Fatalf("events %v, want a compression", evs.kinds())
	}
	whole := strings.Repeat("a line of the big file, as read\n", size/32)
	var summaries int
	for _, r := range srv.Requests() {
		if r.Method != "generateContent" {
			continue
		}
		summaries++
		outputs := functionOutputs(r)
		if len(outputs) != 1 {
			t.Fatalf("the summary request gives %d outputs, want the read's", len(outputs))
		}
		got := outputs[0]
		if len([]rune(got)) > 10_300 || !strings.HasPrefix(got, "Output too large. Showing first 2,000 and last 8,000 characters. For full output see: ") {
			t.Fatalf("the summary request was given the read as %d characters: %.200q", len([]rune(got)), got)
		}
		path, _, _ := strings.Cut(strings.TrimPrefix(got, "Output too large. Showing first 2,000 and last 8,000 characters. For full output see: "), "\n")
		if b, err := os.ReadFile(path); err != nil || string(b) != whole {
			t.Errorf("the file the summary is pointed at holds %d bytes (%v), want the whole output's %d", len(b), err, len(whole))
		}
	}
	if summaries != 2 {
		t.Errorf("%d summary requests, want the summary and its check", summaries)
	}
}

// fixedEstimate is 0.61's estimate of r's system instruction and tools:
// ASCII text a quarter token a character, the tools' JSON likewise.
func fixedEstimate(r geminitest.Request) int {
	n := 0
	for _, p := range r.SystemInstruction.Parts {
		n += len(p.Text)
	}
	b, _ := json.Marshal(r.Tools)
	return (n + len(b)) / 4
}

// A resumed session, whose prompt no response has counted yet, judges
// the threshold on an estimate that counts the system instruction and
// the tools, as the API's count does: a history under the threshold
// alone but over it with them is compressed at the resumed prompt.
func TestResumedSessionCountsSystemAndToolsTowardTheThreshold(t *testing.T) {
	store := newStore(t)
	srv := checked(geminitest.NewTestServer(t,
		geminitest.TextTurn(longAnswer), geminitest.TextTurn(midAnswer), // no count of the prompt
		geminitest.TextTurn(snapshot), geminitest.TextTurn("third answer"),
	))
	cfg := agent.Config{Store: store, Tools: tools.NewRegistry(bigRead(64))}
	first, _ := newAgent(t, srv, cfg)
	s := first.NewSession()
	prompt(t, s, longPrompt)
	prompt(t, s, midPrompt)
	last := srv.Requests()[1]
	history := int(asciiEstimate(last.Contents)) + len(midAnswer)/4
	fixed := fixedEstimate(last)
	if fixed < 200 {
		t.Fatalf("the system instruction and tools are %d tokens: too few to tell", fixed)
	}
	// Half the window: over the history alone by half the fixed part,
	// under the history with it by as much.
	cfg.TokenLimit = 2 * (history + fixed/2)
	second, _ := newAgent(t, srv, cfg)
	resumed, err := second.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	_, evs := prompt(t, resumed, "third")
	got := only[dialog.CompressedEvent](evs)
	if len(got) != 1 {
		t.Fatalf("events %v, want the resumed prompt to compress (history %d + system and tools %d tokens, threshold %d)", evs.kinds(), history, fixed, cfg.TokenLimit/2)
	}
	if before := int(got[0].Compression.Before); before < history+fixed*9/10 {
		t.Errorf("compressed from %d tokens, want the history's %d and the system and tools' %d", before, history, fixed)
	}
}
