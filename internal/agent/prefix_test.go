package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// bigRead is a read_file whose every read is a file of size bytes (208
// KB in the task): more than masking keeps whole.
func bigRead(size int) fakeTool {
	body := strings.Repeat("a line of the big file, as read\n", size/32)
	return fakeTool{name: tools.ReadFileName, build: func(args map[string]any) (tools.Call, error) {
		path, _ := args["path"].(string)
		return fakeCall{title: "Read " + path, kind: dialog.KindRead, exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Output: body}, nil
		}}, nil
	}}
}

// bigReadTurns is the model reading the big file, then saying so.
func bigReadTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call(tools.ReadFileName, map[string]any{"path": "big.txt"})),
		geminitest.TextTurn("read it"),
	}
}

// contentsJSON is the JSON of each content of a request.
func contentsJSON(r geminitest.Request) []string {
	out := make([]string, len(r.Contents))
	for i, c := range r.Contents {
		out[i] = toJSON(c)
	}
	return out
}

// maskedFiles are the masked outputs saved under tmp's tool-outputs.
func maskedFiles(t *testing.T, tmp string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(tmp, "tool-outputs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A masked tool output is masked once, in the history itself, and saved
// so: two resumes of the session send the history byte for byte as the
// session sent it last, and the output is one file on disk (0.61 masks
// it again at each resume under a new random name, another copy each
// time, breaking the cache from there on).
func TestMaskedOutputIsTheSameAcrossResumes(t *testing.T) {
	store, tmp := newStore(t), t.TempDir()
	srv := geminitest.NewTestServer(t, append(bigReadTurns(),
		geminitest.TextTurn("two"), geminitest.TextTurn("three"), geminitest.TextTurn("four"))...)
	cfg := func() agent.Config {
		return agent.Config{
			Tools: tools.NewRegistry(bigRead(208 << 10)), Store: store,
			ProjectTempDir: func() (string, error) { return tmp, nil },
		}
	}
	first, _ := newAgent(t, srv, cfg())
	s := first.NewSession()
	prompt(t, s, "read big.txt")
	prompt(t, s, "two") // the read is no longer the latest: masked
	live := srv.Requests()[2]
	if !strings.Contains(toJSON(live.Contents[2]), "tool_output_masked") {
		t.Fatalf("the output was not masked in the request after: %.300s", toJSON(live.Contents[2]))
	}
	var resumed []geminitest.Request
	for _, text := range []string{"three", "four"} {
		a, _ := newAgent(t, srv, cfg())
		rs, err := a.Session(context.Background(), s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := prompt(t, rs, text); res.Err != nil {
			t.Fatal(res.Err)
		}
		reqs := srv.Requests()
		resumed = append(resumed, reqs[len(reqs)-1])
	}
	before := contentsJSON(live)
	for i, r := range resumed {
		after := contentsJSON(r)
		if len(after) != len(before)+2 {
			t.Fatalf("resume %d sent %d contents, want %d", i+1, len(after), len(before)+2)
		}
		for j, c := range before {
			if after[j] != c {
				t.Errorf("resume %d: content %d differs from what the session sent:\n%.300s\n%.300s", i+1, j, c, after[j])
			}
		}
		before = after
	}
	if files := maskedFiles(t, tmp); len(files) != 1 {
		t.Errorf("%d copies of the masked output on disk, want 1: %v", len(files), files)
	}
}

// commonPrefix is how many leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// prefixShares is, for each request after the first, the share of its
// body that repeats the previous request's from the first byte.
func prefixShares(reqs []geminitest.Request) []float64 {
	var shares []float64
	for i := 1; i < len(reqs); i++ {
		shares = append(shares, float64(commonPrefix(reqs[i-1].Body, reqs[i].Body))/float64(len(reqs[i].Body)))
	}
	return shares
}

// The classifier of an auto model reads the history with the big read
// masked: its request never holds the output whole, and stays under
// 2,000 tokens (its instruction included) on every prompt after.
func TestRouterReadsTheMaskedHistory(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	srv.AddRule(geminitest.Rule{Contains: "complexity_score", Turn: geminitest.TextTurn(`{"complexity_reasoning":"simple","complexity_score":10}`)})
	srv.AddRule(geminitest.Rule{Contains: "model_choice", Turn: geminitest.TextTurn(`{"reasoning":"simple","model_choice":"flash"}`)})
	srv.Push(bigReadTurns()...)
	for range 3 {
		srv.Push(geminitest.TextTurn("ok"))
	}
	tmp := t.TempDir()
	a, _ := newAgent(t, srv, agent.Config{
		Model: "auto", Tools: tools.NewRegistry(bigRead(208 << 10)),
		ProjectTempDir: func() (string, error) { return tmp, nil },
	})
	s := a.NewSession()
	for _, text := range []string{"read big.txt", "next", "and next", "last"} {
		if res, _ := prompt(t, s, text); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	routed := 0
	for _, r := range srv.Requests() {
		if r.Rule == nil {
			continue
		}
		routed++
		if tokens := len(r.Body) / 4; tokens > 2000 {
			t.Errorf("routing request %d is %d tokens (a quarter of its %d bytes), over 2,000", r.Seq, tokens, len(r.Body))
		}
		for _, c := range r.Contents {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil && !strings.Contains(toJSON(fr.Response), "tool_output_masked") && len(toJSON(fr.Response)) > 4*1000 {
					t.Errorf("routing request %d holds an output of %d bytes whole", r.Seq, len(toJSON(fr.Response)))
				}
			}
		}
		t.Logf("routing request %d: %d tokens", r.Seq, len(r.Body)/4)
	}
	if routed != 4 {
		t.Errorf("%d routing requests, want one a prompt", routed)
	}
}
