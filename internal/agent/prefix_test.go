package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// The classifier reads the conversation, not the scene: neither the
// session context nor the memory, first given or changed, reaches a
// routing request, while the main requests carry both. 0.61 sends them
// whenever they are among the last contents: its early routing requests
// held the workspace's tree, and those after a GEMINI.md edit the whole
// new memory.
func TestRouterReadsNeitherTheSessionContextNorTheMemory(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	srv := geminitest.NewTestServer(t)
	srv.AddRule(geminitest.Rule{Contains: "complexity_score", Turn: geminitest.TextTurn(`{"complexity_reasoning":"simple","complexity_score":10}`)})
	for range 3 {
		srv.Push(geminitest.TextTurn("done"))
	}
	cfg, _ := contextConfig(t, &now, t.TempDir())
	mem := &memory{text: "# Contextual Instructions (GEMINI.md)\n<loaded_context>\nUse tabs.\n</loaded_context>"}
	cfg.Model, cfg.Memory = "auto", mem
	a, _ := newAgent(t, srv, cfg)
	s := a.NewSession()
	prompt(t, s, "one")
	mem.set("# Contextual Instructions (GEMINI.md)\n<loaded_context>\nUse spaces.\n</loaded_context>")
	prompt(t, s, "two")
	prompt(t, s, "three")

	routed, main := 0, 0
	for _, r := range srv.Requests() {
		contents := toJSON(r.Contents)
		if r.Rule == nil {
			main++
			if !strings.Contains(contents, "session_context") || !strings.Contains(contents, "Use tabs.") || main > 1 && !strings.Contains(contents, "Use spaces.") {
				t.Errorf("main request %d lacks the session context or the memory", r.Seq)
			}
			continue
		}
		routed++
		for _, scene := range []string{"session_context", "context_files", "Use tabs.", "Use spaces."} {
			if strings.Contains(contents, scene) {
				t.Errorf("routing request %d holds %q: %.300s", r.Seq, scene, contents)
			}
		}
		if !strings.Contains(contents, "one") {
			t.Errorf("routing request %d lacks the conversation: %s", r.Seq, contents)
		}
	}
	if routed != 3 || main != 3 {
		t.Errorf("%d routing and %d main requests, want 3 and 3", routed, main)
	}
}

// memory is a MemorySource whose memory the test edits.
type memory struct {
	mu   sync.Mutex
	text string
}

func (m *memory) SystemMemory(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text, nil
}
func (m *memory) set(text string) {
	m.mu.Lock()
	m.text = text
	m.mu.Unlock()
}
func (*memory) PrivateIndex() string { return "" }
func (*memory) GlobalFile() string   { return "" }

// modelOrder is a request as the model reads it, and its cache keeps its
// prefix: the system instruction, the tools, then the contents (the
// body's JSON puts the contents first).
func modelOrder(r geminitest.Request) []byte {
	return []byte(toJSON(r.SystemInstruction) + toJSON(r.Tools) + toJSON(r.Contents))
}

// Every request that adds only a turn repeats the one before it, in the
// model's order, for at least 99% of its bytes: within a session, after
// GEMINI.md was edited (the system instruction and the tools stay byte
// for byte, the new memory comes with the next prompt) and after the
// session is resumed. The memory is in the first user content, as
// 0.61 puts the project's GEMINI.md, never in the system instruction.
func TestEveryRequestRepeatsThePrevious(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	tmp := t.TempDir()
	mem := &memory{text: "# Contextual Instructions (GEMINI.md)\n<loaded_context>\nUse tabs.\n</loaded_context>"}
	store := newStore(t)
	srv := geminitest.NewTestServer(t)
	for range 5 {
		srv.Push(geminitest.TextTurn("done"))
	}
	base, _ := contextConfig(t, &now, tmp)
	base.Memory, base.Store = mem, store
	cfg := func() agent.Config { return base }
	a, _ := newAgent(t, srv, cfg())
	s := a.NewSession()
	prompt(t, s, "one")
	prompt(t, s, "two")
	mem.set("# Contextual Instructions (GEMINI.md)\n<loaded_context>\nUse tabs. Name tests for what they hold.\n</loaded_context>")
	prompt(t, s, "three")
	now = now.Add(time.Hour)
	prompt(t, s, "four")
	b, _ := newAgent(t, srv, cfg())
	resumed, err := b.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, resumed, "five")

	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, r := range reqs {
		if strings.Contains(toJSON(r.SystemInstruction), "Use tabs") {
			t.Errorf("request %d: the memory is in the system instruction", i+1)
		}
		if i > 0 && (toJSON(r.SystemInstruction) != toJSON(reqs[0].SystemInstruction) || toJSON(r.Tools) != toJSON(reqs[0].Tools)) {
			t.Errorf("request %d: the system instruction or the tools changed", i+1)
		}
	}
	if first := toJSON(reqs[0].Contents[0]); !strings.Contains(first, "Use tabs.") || !strings.Contains(first, "session_context") {
		t.Errorf("the first user content lacks the session context or the memory: %.300s", first)
	}
	if last := reqs[2].Contents[len(reqs[2].Contents)-1]; !strings.Contains(toJSON(last), "Name tests for what they hold") {
		t.Errorf("the prompt after the edit does not bring the new memory: %s", toJSON(last))
	}
	for i := 1; i < len(reqs); i++ {
		prev, next := modelOrder(reqs[i-1]), modelOrder(reqs[i])
		common := commonPrefix(prev, next)
		share := float64(common) / float64(len(next))
		t.Logf("request %d repeats %.2f%% of its %d bytes from request %d", i+1, 100*share, len(next), i)
		// All of the previous request but the contents' closing bracket.
		if common < len(prev)-1 {
			t.Errorf("request %d changes request %d from byte %d of %d on", i+1, i, common, len(prev))
		}
		// The request after the edit brings the whole memory anew as
		// well as a turn; every other one adds a turn only.
		if i != 2 && share < 0.99 {
			t.Errorf("request %d repeats %.2f%% of its bytes from the one before, want at least 99%%", i+1, 100*share)
		}
	}
}
