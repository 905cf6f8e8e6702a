package sessionstore

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// recordingStores are a shared store and an old-directory one, with the
// metadata of a session of each.
func recordingStores(t *testing.T) map[string]func() (*Store, Meta) {
	return map[string]func() (*Store, Meta){
		"shared": func() (*Store, Meta) {
			s, root := sharedStore(t)
			return s, sharedMeta(root, NewID(), 1)
		},
		"old directory": func() (*Store, Meta) {
			return newStore(t), meta("S1", 1)
		},
	}
}

func userText(text string) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: text}}}
}

func callsContent(names ...string) *genai.Content {
	c := &genai.Content{Role: genai.RoleModel}
	for _, n := range names {
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: "id-" + n, Name: n, Args: map[string]any{"n": n}}})
	}
	return c
}

func results(names ...string) *genai.Content {
	c := &genai.Content{Role: genai.RoleUser}
	for _, n := range names {
		c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: "id-" + n, Name: n, Response: map[string]any{"output": "result of " + n}}})
	}
	return c
}

func mustRecord(t *testing.T, r *Recorder, st Step) {
	t.Helper()
	if err := r.Record(st); err != nil {
		t.Fatal(err)
	}
}

// sessionPath is the one file of the session, shared or old.
func sessionPath(t *testing.T, s *Store, m Meta) string {
	t.Helper()
	path, err := s.File(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// A prompt recorded as it happens and never ended (its process killed)
// loads: its input, each answer and each result recorded, a call still
// running answered as interrupted, the input it ended on answered with
// InterruptedNote; its exchange "cancelled" with the answer so far; its
// tokens counted. A torn last line after it changes nothing, and the
// next prompt's save puts the closing on disk, after which the session
// reads as whole.
func TestARecordedPromptOutlivesItsProcess(t *testing.T) {
	for name, open := range recordingStores(t) {
		t.Run(name, func(t *testing.T) {
			s, m := open()
			ctx := context.Background()
			prompt := userText("survey the code")
			r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "survey the code", History: []*genai.Content{prompt}})
			if err != nil {
				t.Fatal(err)
			}
			mustRecord(t, r, Step{Content: callsContent("glob"), Model: "gemini-2.5-pro", Usage: Usage{TotalTokens: 10}})
			mustRecord(t, r, Step{Content: results("glob")})
			answer := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Two files. Reading both."}, {FunctionCall: &genai.FunctionCall{ID: "id-a", Name: "a"}}, {FunctionCall: &genai.FunctionCall{ID: "id-b", Name: "b"}}}}
			mustRecord(t, r, Step{Content: answer, Model: "gemini-2.5-pro", Usage: Usage{TotalTokens: 20}})
			// b ended, a still runs when the process is killed.
			mustRecord(t, r, Step{Content: results("b"), Partial: true})
			s.Wait() // nothing more: as a SIGKILL leaves it
			// What the killed process's exit would do, for the test's
			// directory to be removed where an open file cannot be
			// (Windows).
			killed := r
			t.Cleanup(func() { killed.Close(); s.Wait() })

			want := []*genai.Content{prompt, callsContent("glob"), results("glob"), answer,
				{Role: genai.RoleUser, Parts: append(results("b").Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: "id-a", Name: "a", Response: map[string]any{"error": InterruptedCall}}})},
				{Role: genai.RoleModel, Parts: []*genai.Part{{Text: InterruptedNote}}},
			}
			check := func(when string) Snapshot {
				t.Helper()
				got := mustLoad(t, s, m.ID)
				if !reflect.DeepEqual(got.History, want) {
					t.Fatalf("%s, history\n%s\nwant\n%s", when, jsonOf(t, got.History), jsonOf(t, want))
				}
				if !got.Interrupted || got.Saved != len(want)-1 || got.Usage.TotalTokens != 30 {
					t.Errorf("%s: interrupted %v, saved %d, usage %+v; want true, %d, 30 tokens", when, got.Interrupted, got.Saved, got.Usage, len(want)-1)
				}
				if len(got.Exchanges) != 1 || got.Exchanges[0].Prompt != "survey the code" || got.Exchanges[0].Answer != "Two files. Reading both." || got.Exchanges[0].StopReason != StopInterrupted {
					t.Errorf("%s: exchanges %+v", when, got.Exchanges)
				}
				if got.Meta.Prompts != 1 || got.Meta.Title != m.Title {
					t.Errorf("%s: meta %+v", when, got.Meta)
				}
				return got
			}
			check("killed after four records")

			path := sessionPath(t, s, m)
			appendRaw(t, path, []byte(`{"id":"torn","type":"gemini","content":[{"text":"half a li`))
			snap := check("with a torn last line")

			// The next prompt: the closing first, then its own.
			m2 := m
			m2.Prompts = 2
			next := userText("go on")
			r, err = s.Begin(ctx, Begin{Meta: m2, Prompt: "go on", History: append(snap.History[snap.Saved:], next)})
			if err != nil {
				t.Fatal(err)
			}
			done := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Done."}}}
			mustRecord(t, r, Step{Content: done, Usage: Usage{TotalTokens: 5}})
			if err := r.Commit(ctx, Turn{Meta: m2, Usage: Usage{TotalTokens: 5}, Exchange: &Exchange{Prompt: "go on", Answer: "Done.", StopReason: "end_turn"}}); err != nil {
				t.Fatal(err)
			}
			got := mustLoad(t, s, m.ID)
			if wantAll := append(append([]*genai.Content{}, want...), next, done); !reflect.DeepEqual(got.History, wantAll) {
				t.Fatalf("after the next prompt, history\n%s\nwant\n%s", jsonOf(t, got.History), jsonOf(t, wantAll))
			}
			if got.Interrupted || got.Saved != len(got.History) || got.Usage.TotalTokens != 35 || got.Meta.Prompts != 2 {
				t.Errorf("after the next prompt: interrupted %v, saved %d of %d, usage %+v, meta %+v", got.Interrupted, got.Saved, len(got.History), got.Usage, got.Meta)
			}
			if len(got.Exchanges) != 2 || got.Exchanges[0].StopReason != StopInterrupted || got.Exchanges[1].Answer != "Done." || got.Exchanges[1].StopReason != "end_turn" {
				t.Errorf("after the next prompt: exchanges %+v", got.Exchanges)
			}
			// The torn line was cut off: every line is whole.
			for i, line := range readLines(t, path) {
				if !json.Valid([]byte(line)) {
					t.Fatalf("line %d is not JSON: %.60q", i+1, line)
				}
			}
		})
	}
}

// Each record is on disk when Record returns, before the prompt ends:
// a second store (another process) reads it.
func TestEachRecordIsWrittenBeforeRecordReturns(t *testing.T) {
	for name, open := range recordingStores(t) {
		t.Run(name, func(t *testing.T) {
			s, m := open()
			ctx := context.Background()
			r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "hi", History: []*genai.Content{userText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// Another store on the same directories, as another process.
			other, err := Open(Options{Dir: s.dir, GeminiDir: s.gemini, Root: s.root})
			if err != nil {
				t.Fatal(err)
			}
			if got := mustLoad(t, other, m.ID); len(got.History) != 2 || got.Exchanges[0].Prompt != "hi" {
				t.Fatalf("after Begin, another reader loads %s", jsonOf(t, got))
			}
			for i := range 3 {
				mustRecord(t, r, Step{Content: callsContent("glob")})
				mustRecord(t, r, Step{Content: results("glob")})
				if got := mustLoad(t, other, m.ID); len(got.History) != 3+2*i+1 {
					t.Fatalf("after %d calls, another reader loads %d contents", i+1, len(got.History))
				}
			}
		})
	}
}

// A session rewritten during a prompt (compressed) and then cut off
// still reads as that prompt interrupted, with the answer it had before
// and after.
func TestAPromptInterruptedAfterAReplace(t *testing.T) {
	for name, open := range recordingStores(t) {
		t.Run(name, func(t *testing.T) {
			s, m := open()
			ctx := context.Background()
			r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "long task", History: []*genai.Content{userText("long task")}})
			if err != nil {
				t.Fatal(err)
			}
			mustRecord(t, r, Step{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Step one."}, {FunctionCall: &genai.FunctionCall{ID: "id-x", Name: "x"}}}}})
			summary := []*genai.Content{userText("<state_snapshot>one step</state_snapshot>"), {Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Got it."}}}}
			if err := r.Replace(ctx, Snapshot{Meta: m, History: summary}); err != nil {
				t.Fatal(err)
			}
			mustRecord(t, r, Step{Content: results("x")})
			mustRecord(t, r, Step{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Step two."}}}})
			r.Close()
			got := mustLoad(t, s, m.ID)
			if len(got.Exchanges) != 1 || got.Exchanges[0].Prompt != "long task" || got.Exchanges[0].Answer != "Step one.\n\nStep two." || !got.Interrupted {
				t.Fatalf("exchanges %+v, interrupted %v", got.Exchanges, got.Interrupted)
			}
			if len(got.History) != 4 || got.Saved != 4 {
				t.Errorf("history %s, saved %d", jsonOf(t, got.History), got.Saved)
			}
		})
	}
}

// What a recorded prompt writes in a shared file is what Gemini CLI 0.61
// reads: each line a message (its id a string), or metadata (sessionId
// and projectHash), the prompt's messages in order.
func TestRecordedLinesAre061Records(t *testing.T) {
	s, root := sharedStore(t)
	m := sharedMeta(root, NewID(), 1)
	ctx := context.Background()
	r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "hi", History: []*genai.Content{userText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, r, Step{Content: callsContent("a", "b"), Model: "gemini-2.5-pro", Usage: Usage{PromptTokens: 3, TotalTokens: 4}})
	mustRecord(t, r, Step{Content: results("a"), Partial: true})
	mustRecord(t, r, Step{Content: results("a", "b")})
	if err := r.Commit(ctx, Turn{Meta: m, Exchange: &Exchange{Prompt: "hi"}}); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, sessionPath(t, s, m))
	var kinds []string
	ids := map[string]int{}
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		id, isMsg := rec["id"].(string)
		_, sid := rec["sessionId"].(string)
		_, hash := rec["projectHash"].(string)
		switch {
		case isMsg:
			kinds = append(kinds, rec["type"].(string))
			ids[id]++
		case sid && hash:
			kinds = append(kinds, "metadata")
		default:
			t.Errorf("a line 0.61 ignores: %s", line)
		}
	}
	if got := strings.Join(kinds, " "); got != "metadata metadata gemini user user metadata" {
		t.Errorf("lines %q; want the header, the prompt's, the answer, the results twice (one id), the end", got)
	}
	if len(ids) != 2 {
		t.Errorf("message ids %v: the partial results and the whole are one message", ids)
	}
	if b, _ := os.ReadFile(sessionPath(t, s, m)); !strings.Contains(string(b), `"tokens":{"input":3,"output":0,"cached":0,"thoughts":0,"tool":0,"total":4}`) {
		t.Errorf("the answer's message lacks its tokens:\n%s", b)
	}
}

// An interrupted session of the old directory moved to the shared place
// by its next save keeps what closes its prompt once.
func TestAnInterruptedOldSessionMovesWhole(t *testing.T) {
	shared, root := sharedStore(t)
	old, err := New(shared.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sharedMeta(root, NewID(), 1)
	ctx := context.Background()
	r, err := old.Begin(ctx, Begin{Meta: m, Prompt: "hi", History: []*genai.Content{userText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, r, Step{Content: callsContent("glob")})
	r.Close()
	old.Wait()
	snap := mustLoad(t, shared, m.ID) // from the old directory
	if len(snap.History) != 4 || snap.Saved != 2 {
		t.Fatalf("the old session loads %d contents, %d saved", len(snap.History), snap.Saved)
	}
	m.Prompts = 2
	mustAppend(t, shared, Turn{Meta: m, History: append(snap.History[snap.Saved:], userText("again"), &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "ok"}}}), Exchange: &Exchange{Prompt: "again", Answer: "ok"}})
	got := mustLoad(t, shared, m.ID)
	if !got.Meta.Shared || len(got.History) != 6 || got.Interrupted || len(got.Exchanges) != 2 || got.Exchanges[0].StopReason != StopInterrupted {
		t.Fatalf("moved: shared %v, %d contents, interrupted %v, exchanges %+v\n%s", got.Meta.Shared, len(got.History), got.Interrupted, got.Exchanges, jsonOf(t, got.History))
	}
}
