package completion

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// rig is an engine over a workspace on disk, asking the fake model
// through the real genai client.
type rig struct {
	t     *testing.T
	root  string
	docs  *workspace.Documents
	ws    *workspace.Workspace
	e     *Engine
	model *geminitest.Server
}

func newRig(t *testing.T, set settings.InlineCompletion, files map[string]string, turns ...geminitest.Turn) *rig {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{root}, docs)
	if err != nil {
		t.Fatal(err)
	}
	model := geminitest.NewTestServer(t, turns...)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: model.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Workspace: ws, Documents: docs})
	e.SetBackend(Backend{Model: client.Models, Settings: set})
	return &rig{t: t, root: root, docs: docs, ws: ws, e: e, model: model}
}

func (r *rig) path(name string) string { return filepath.Join(r.root, name) }

// open opens name with text, whose | is the cursor; it returns the
// request at the cursor.
func (r *rig) open(name, text string) Request {
	i := strings.Index(text, "|")
	doc := text[:i] + text[i+1:]
	r.docs.Open(workspace.Document{Path: r.path(name), URI: "file://" + r.path(name), LanguageID: "go", Version: 1, Text: doc})
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndexByte(text[:i], '\n') + 1)
	return Request{Path: r.path(name), Position: workspace.Position{Line: line, Character: col}, Encoding: workspace.UTF8, Trigger: Invoked}
}

// change changes name's text to text, as didChange does.
func (r *rig) change(name, text string) {
	r.t.Helper()
	doc, _ := r.docs.Get(r.path(name))
	if err := r.docs.Change(doc.Path, doc.Version+1, []workspace.ContentChange{{Text: text}}, workspace.UTF8); err != nil {
		r.t.Fatal(err)
	}
	r.e.Changed(doc.Path, doc.Text, text)
}

func (r *rig) complete(req Request) string {
	r.t.Helper()
	got, err := r.e.Complete(context.Background(), req)
	if err != nil {
		r.t.Fatal(err)
	}
	if len(got) == 0 {
		return ""
	}
	return got[0].Text
}

func off() *bool { f := false; return &f }

func TestTypingThroughNeedsNoModelCall(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.TextTurn("fmt.Println(total)"))
	req := r.open("a.go", "func f() {\n\t|\n}\n")
	if got := r.complete(req); got != "fmt.Println(total)" {
		t.Fatalf("first answer %q", got)
	}
	// The user types "fmt.Pr" of it.
	r.change("a.go", "func f() {\n\tfmt.Pr\n}\n")
	req.Position.Character += len("fmt.Pr")
	if got := r.complete(req); got != "intln(total)" {
		t.Errorf("typed through: %q, want the rest, intln(total)", got)
	}
	if n := len(r.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: typing through asks nothing", n)
	}
	// Typing something else leaves the cache: the model is asked (and
	// the script has no answer, which the fake reports: push one).
	r.model.Push(geminitest.TextTurn("x"))
	r.change("a.go", "func f() {\n\tfmt.Pz\n}\n")
	if got := r.complete(req); got != "x" {
		t.Errorf("after typing elsewhere: %q", got)
	}
	if st := r.e.Stats(); st.CacheHits != 1 || st.ModelCalls != 2 || st.Requests != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestRecentAnswersAreReused(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.TextTurn("return err"))
	req := r.open("a.go", "if err != nil {\n\t|\n}\n")
	r.complete(req)
	r.change("a.go", "if err != nil {\n\tr\n}\n") // typed, then undone
	r.change("a.go", "if err != nil {\n\t\n}\n")
	if got := r.complete(req); got != "return err" {
		t.Errorf("after an undo: %q", got)
	}
	if n := len(r.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}

func TestStaleAnswersAreDropped(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.Turn{Delay: 200 * time.Millisecond, Chunks: []geminitest.Chunk{{Text: "old"}}})
	req := r.open("a.go", "x := |\n")
	done := make(chan string)
	go func() { done <- r.complete(req) }()
	if _, err := r.model.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	r.change("a.go", "x := 1\n") // the user typed on meanwhile
	if got := <-done; got != "" {
		t.Errorf("a stale answer was given: %q", got)
	}
	if st := r.e.Stats(); st.Stale != 1 {
		t.Errorf("stale %d, want 1", st.Stale)
	}
}

func TestANewRequestAbortsTheOneBefore(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil,
		geminitest.Turn{Hang: true, Chunks: []geminitest.Chunk{{Text: "slow"}}},
		geminitest.TextTurn("fast"))
	req := r.open("a.go", "x := |\n")
	first := make(chan string)
	go func() { first <- r.complete(req) }()
	if _, err := r.model.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	second := req
	second.Trigger = Invoked
	r.model.Push() // the second request takes the second turn
	if got := r.complete(second); got != "fast" {
		t.Errorf("second: %q", got)
	}
	if got := <-first; got != "" {
		t.Errorf("the superseded request answered %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	aborts, err := r.model.WaitAborts(ctx, 1)
	if err != nil || aborts[0].Seq != 1 {
		t.Errorf("the first upstream request was not aborted: %v %+v", err, aborts)
	}
}

// slowModel holds every request until its context ends, counting them.
type slowModel struct {
	mu      sync.Mutex
	running int
	most    int
	calls   int
}

func (m *slowModel) GenerateContentStream(ctx context.Context, _ string, _ []*genai.Content, _ *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.mu.Lock()
		m.running++
		m.calls++
		m.most = max(m.most, m.running)
		m.mu.Unlock()
		<-ctx.Done()
		time.Sleep(5 * time.Millisecond) // unwinding takes a while
		m.mu.Lock()
		m.running--
		m.mu.Unlock()
		yield(nil, ctx.Err())
	}
}

func TestAtMostTwoInFlightPerDocument(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil)
	m := &slowModel{}
	r.e.SetBackend(Backend{Model: m})
	req := r.open("a.go", "x := |\n")
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := req
			q.Position.Character = i % 5 // different contexts, no cache
			_, _ = r.e.Complete(ctx, q)
		}()
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	if m.most > perDocument {
		t.Errorf("%d requests of one document were in flight at once, want at most %d", m.most, perDocument)
	}
}

func TestAutomaticRequestsWaitTheDebounce(t *testing.T) {
	debounce := 10_000 // long enough that only a superseding request ends it
	r := newRig(t, settings.InlineCompletion{DebounceMs: &debounce}, nil, geminitest.TextTurn("b"))
	req := r.open("a.go", "x := |\n")
	auto := req
	auto.Trigger = Automatic
	first := make(chan string)
	go func() { first <- r.complete(auto) }()
	for !r.e.flights.busy(r.path("a.go")) {
		time.Sleep(time.Millisecond) // until the automatic request waits its debounce
	}
	if got := r.complete(req); got != "b" { // Invoked: no debounce
		t.Errorf("invoked: %q", got)
	}
	if got := <-first; got != "" {
		t.Errorf("the debounced request answered %q", got)
	}
	if n := len(r.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the debounced one never asked", n)
	}
}

func TestSettingsTurnCompletionOff(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{Enabled: off()}, nil)
	if got := r.complete(r.open("a.go", "x := |\n")); got != "" {
		t.Errorf("completion off answered %q", got)
	}
	r.e.SetBackend(Backend{Model: r.e.currentBackend().Model, Settings: settings.InlineCompletion{Languages: map[string]bool{"go": false, "*": true}}})
	if got := r.complete(r.open("a.go", "x := |\n")); got != "" {
		t.Errorf("completion off for go answered %q", got)
	}
	if n := len(r.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

func TestARequestForAVersionThatMovedOnAsksNothing(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil)
	req := r.open("a.go", "x := |\n")
	r.change("a.go", "x := 1\n")
	v := int32(1)
	req.Version = &v // made before the change, handled after it
	if got := r.complete(req); got != "" || len(r.model.Requests()) != 0 {
		t.Errorf("answered %q with %d model requests, want nothing asked", got, len(r.model.Requests()))
	}
}

func TestACacheAnswerSupersedesTheRequestInFlight(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil,
		geminitest.TextTurn("answer()"),
		geminitest.Turn{Hang: true, Chunks: []geminitest.Chunk{{Text: "slow"}}})
	req := r.open("a.go", "x := |\n")
	r.complete(req) // the context's answer, kept
	r.change("a.go", "x := q\n")
	typed := req
	typed.Position.Character++
	slow := make(chan string)
	go func() { slow <- r.complete(typed) }()
	if _, err := r.model.WaitRequests(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	r.change("a.go", "x := \n") // undone: the kept answer fits again
	if got := r.complete(req); got != "answer()" {
		t.Errorf("from the cache: %q", got)
	}
	if got := <-slow; got != "" {
		t.Errorf("the superseded request answered %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if aborts, err := r.model.WaitAborts(ctx, 1); err != nil || aborts[0].Seq != 2 {
		t.Errorf("the request in flight was not aborted: %v %+v", err, aborts)
	}
}

func TestTheDebounceFollowsTheTypingRhythm(t *testing.T) {
	var r rhythm
	if d := r.debounce(); d != shortDebounce {
		t.Errorf("before any key: %v", d)
	}
	at := time.Unix(0, 0)
	for i := range 12 {
		at = at.Add(time.Duration(80+i%3*10) * time.Millisecond) // 80, 90, 100 ms apart
		r.key(at)
	}
	if d := r.debounce(); d != 135*time.Millisecond {
		t.Errorf("typing a key every 80-100 ms: %v, want 1.5 × 90 ms", d)
	}
	r.key(at.Add(3 * time.Second)) // a pause is not the rhythm
	if d := r.debounce(); d != 135*time.Millisecond {
		t.Errorf("after a pause: %v", d)
	}
	for range 8 {
		at = at.Add(300 * time.Millisecond) // slow typing
		r.key(at)
	}
	if d := r.debounce(); d != longDebounce {
		t.Errorf("typing slowly: %v, want the bound %v", d, longDebounce)
	}
}
