package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// modelLatency is the fake model's fixed answer latency in the completion
// benchmarks: it waits this long before its answer's headers, as a fast
// model's time to first token; COMPLETION_LATENCY_MS changes it.
func modelLatency(b *testing.B) time.Duration {
	if v := os.Getenv("COMPLETION_LATENCY_MS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("COMPLETION_LATENCY_MS=%q: want milliseconds", v)
		}
		return time.Duration(n) * time.Millisecond
	}
	return 150 * time.Millisecond
}

// bigLines is the length of the completion benchmarks' file.
const bigLines = 10000

// bigGoFile is a 10,000-line Go file of small functions, each with a
// blank line (a tab) before its return, and the 0-based numbers of those
// lines. A line "// Typed here." stands alone at line typeAt, followed by
// an empty line: where the typing session writes.
func bigGoFile() (text string, blanks []int) {
	var sb strings.Builder
	line := 0
	emit := func(format string, args ...any) {
		fmt.Fprintf(&sb, format+"\n", args...)
		line++
	}
	emit("package big")
	emit("")
	placed := false
	for f := 0; line < bigLines-12; f++ {
		if !placed && line+10 > typeAt {
			for line < typeAt {
				emit("")
			}
			emit("%s", typedHere)
			emit("")
			placed = true
		}
		emit("// step%d folds its input into one number.", f)
		emit("func step%d(in []int) int {", f)
		emit("\ttotal := 0")
		emit("\tfor i, v := range in {")
		emit("\t\ttotal += v*%d + i", f%97+1)
		emit("\t}")
		blanks = append(blanks, line)
		emit("\t")
		emit("\treturn total %% %d", f%89+7)
		emit("}")
		emit("")
	}
	for line < bigLines {
		emit("// end")
	}
	return sb.String(), blanks
}

// typeAt is the line of "// Typed here." in bigGoFile; the session types
// from the start of the line after it.
const (
	typeAt    = 5000
	typedHere = "// Typed here."
)

// completionModel is the fake Gemini API behind a front that times each
// request from its handler's start (headers read) to its end (answer
// flushed, or the client gone), so the model's share can be taken out of
// the server's time.
type completionModel struct {
	fake *geminitest.Server
	URL  string

	mu    sync.Mutex
	calls []*modelCall
	bySeq map[int]*modelCall
	idle  *sync.Cond // signalled whenever a call ends
	open  int        // calls whose handler has not returned
}

// modelCall is one request the fake answered, as the front saw it.
type modelCall struct {
	Seq        int // the fake's
	Start, End time.Time
	// Typed is what the request's prompt shows typed after "// Typed
	// here." (the replay's), ok false when it shows no such line.
	Typed   string
	TypedOK bool
	// unread: the client went away before the fake read the whole
	// request body (cancelled while sending it).
	unread bool
}

// frontHeader carries the front's number of a request to the fake, which
// sees the header in its Request.
const frontHeader = "X-Bench-Call"

// newCompletionModel starts the fake with answer making each completion
// answer (its delay included) from the request's prompt.
func newCompletionModel(b *testing.B, answer func(prompt string) geminitest.Turn) *completionModel {
	b.Helper()
	m := &completionModel{bySeq: map[int]*modelCall{}}
	m.idle = sync.NewCond(&m.mu)
	fake, err := geminitest.Start(geminitest.Options{
		Rules: []geminitest.Rule{{Contains: "<|cursor|>", Turn: geminitest.Turn{From: func(r geminitest.Request) geminitest.Turn {
			return answer(promptText(r))
		}}}},
		OnRequest: func(r geminitest.Request) {
			n, _ := strconv.Atoi(r.Header.Get(frontHeader))
			typed, ok := typedIn(promptText(r))
			m.mu.Lock()
			c := m.calls[n]
			c.Seq, c.Typed, c.TypedOK = r.Seq, typed, ok
			c.unread = strings.HasPrefix(r.Problem, "reading request body")
			m.bySeq[r.Seq] = c
			m.mu.Unlock()
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &modelCall{Start: time.Now()}
		m.mu.Lock()
		n := len(m.calls)
		m.calls = append(m.calls, c)
		m.open++
		m.mu.Unlock()
		r.Header.Set(frontHeader, strconv.Itoa(n))
		fake.ServeHTTP(w, r)
		end := time.Now()
		m.mu.Lock()
		c.End = end
		m.open--
		m.idle.Broadcast()
		m.mu.Unlock()
	}))
	b.Cleanup(func() {
		front.Close()
		fake.Close()
		// A request whose client went away while sending it is not
		// the fake's problem: a cancellation can come at any time.
		for _, r := range fake.Requests() {
			if r.Problem != "" && !strings.HasPrefix(r.Problem, "reading request body") {
				b.Errorf("fake Gemini server: request %d (%s): %s", r.Seq, r.Method, r.Problem)
			}
		}
	})
	m.fake, m.URL = fake, front.URL
	return m
}

// count is the number of requests the fake received.
func (m *completionModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// settled waits until no request is being answered and returns them all.
func (m *completionModel) settled(ctx context.Context) ([]modelCall, error) {
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.idle.Broadcast()
		m.mu.Unlock()
	})
	defer stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.open > 0 && ctx.Err() == nil {
		m.idle.Wait()
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("waiting for the fake model's %d open requests: %w", m.open, ctx.Err())
	}
	out := make([]modelCall, len(m.calls))
	for i, c := range m.calls {
		out[i] = *c
	}
	return out, nil
}

// promptText is a request's text parts, the system instruction left out.
func promptText(r geminitest.Request) string {
	var sb strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p != nil {
				sb.WriteString(p.Text)
			}
		}
	}
	return sb.String()
}

// typedIn is what a completion prompt shows between the line after
// "// Typed here." and the cursor.
func typedIn(prompt string) (string, bool) {
	at := strings.Index(prompt, "<|cursor|>")
	if at < 0 {
		return "", false
	}
	before := prompt[:at]
	i := strings.LastIndex(before, typedHere+"\n")
	if i < 0 {
		return "", false
	}
	return before[i+len(typedHere)+1:], true
}

// fixedAnswer is the completion the overhead benchmarks' model gives.
const fixedAnswer = `log.Printf("total %d", total)`

// BenchmarkInlineCompletionOverhead is textDocument/inlineCompletion
// against the real server (spawned over stdio) with a 10,000-line Go file
// open and three other Go buffers and a few recent edits for the
// prompt's context. Each request is Invoked (no debounce), at another
// blank line of the file (so no cache answers), and makes one model call,
// which the fake answers after its fixed latency.
//
// Metrics, per request:
//   - overhead: (request written → answer read) − the fake's handler time
//     for its model call (headers read → answer flushed): the server's
//     own time, both its LSP and its HTTP sides.
//   - total: request written → answer read; model-median-ms: the fake's.
//
// Sub-benchmarks: server=process, the gemini-ls binary spawned over stdio
// (the figures); server=in-process, the same server (lsp.Serve) on pipes
// in the benchmark's process, so that `go test -cpuprofile` profiles it.
func BenchmarkInlineCompletionOverhead(b *testing.B) {
	b.Run("server=process", func(b *testing.B) {
		benchmarkOverhead(b, func(ctx context.Context, modelURL, root string, files map[string]string) (*rawEditor, func() error) {
			e, s := startTypist(ctx, b, modelURL, root, files)
			pid := s.proc.Cmd.Process.Pid
			overheadPID = pid
			return e, func() error { return stopTypist(ctx, e, s) }
		})
	})
	b.Run("server=in-process", func(b *testing.B) {
		benchmarkOverhead(b, func(ctx context.Context, modelURL, root string, files map[string]string) (*rawEditor, func() error) {
			environ := map[string]string{}
			for _, kv := range env(b, modelURL) {
				k, v, _ := strings.Cut(kv, "=")
				environ[k] = v
			}
			conn, exit := lsptest.StartInProcess(b, lsp.Options{
				Getenv:   func(k string) string { return environ[k] },
				StateDir: b.TempDir(),
			})
			e := newRawEditor(conn)
			if err := openTypist(ctx, e, root, files); err != nil {
				b.Fatal(err)
			}
			return e, func() error {
				if err := e.shutdown(ctx); err != nil {
					return err
				}
				select {
				case <-exit:
					return conn.Close()
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
	})
}

// overheadPID is the spawned server's process id in
// server=process, for its CPU time; 0 in process.
var overheadPID int

func benchmarkOverhead(b *testing.B, start func(ctx context.Context, modelURL, root string, files map[string]string) (*rawEditor, func() error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	latency := modelLatency(b)
	model := newCompletionModel(b, func(string) geminitest.Turn {
		t := geminitest.TextTurn(fixedAnswer)
		t.Delay = latency
		return t
	})
	text, blanks := bigGoFile()
	root := tempRoot(b)
	files := relatedBuffers()
	files["big.go"] = text
	writeFiles(b, root, files)
	e, stop := start(ctx, model.URL, root, files)
	big := filepath.Join(root, "big.go")
	if err := recentEdits(e, big, text, blanks); err != nil {
		b.Fatal(err)
	}

	ask := func(i int) (total, spent time.Duration, err error) {
		line := blankFor(blanks, i)
		before := model.count()
		_, sent, ch, err := e.send("textDocument/inlineCompletion", inlineParams(big, line, 1, int(completion.Invoked)))
		if err != nil {
			return 0, 0, err
		}
		r, err := wait(ctx, "textDocument/inlineCompletion", ch)
		if err != nil {
			return 0, 0, err
		}
		if r.Error != nil {
			return 0, 0, fmt.Errorf("inlineCompletion at line %d: %v", line, r.Error)
		}
		var got inlineItems
		if err := jsonUnmarshal(r.Result, &got); err != nil {
			return 0, 0, err
		}
		if len(got.Items) != 1 || got.Items[0].InsertText != fixedAnswer {
			return 0, 0, fmt.Errorf("inlineCompletion at line %d answered %s, want %q", line, r.Result, fixedAnswer)
		}
		calls, err := model.settled(ctx)
		if err != nil {
			return 0, 0, err
		}
		if len(calls) != before+1 {
			return 0, 0, fmt.Errorf("inlineCompletion at line %d made %d model calls, want 1", line, len(calls)-before)
		}
		c := calls[before]
		return r.At.Sub(sent), c.End.Sub(c.Start), nil
	}
	// The first requests pay for the first connection to the model and
	// the first privacy and ignore checks.
	for i := range 5 {
		if _, _, err := ask(-1 - i); err != nil {
			b.Fatal(err)
		}
	}
	var overhead, totals, spent []time.Duration
	pid := overheadPID
	overheadPID = 0
	var cpuBefore time.Duration
	if pid != 0 {
		var err error
		if cpuBefore, err = cpuTime(pid); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		total, model, err := ask(i)
		if err != nil {
			b.Fatal(err)
		}
		i++
		overhead = append(overhead, total-model)
		totals = append(totals, total)
		spent = append(spent, model)
	}
	if pid != 0 {
		// The server's CPU time per request: its work, against the
		// wall-clock overhead that also holds its waits for a CPU.
		cpuAfter, err := cpuTime(pid)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(ms((cpuAfter-cpuBefore)/time.Duration(len(overhead))), "server-cpu/request-ms")
	}
	if err := stop(); err != nil {
		b.Fatal(err)
	}
	d := distributionOf(overhead)
	b.ReportMetric(ms(d.median()), "overhead-p50-ms")
	b.ReportMetric(ms(d.quantile(0.9)), "overhead-p90-ms")
	b.ReportMetric(ms(d.quantile(0.99)), "overhead-p99-ms")
	b.ReportMetric(ms(d.max()), "overhead-max-ms")
	reportMS(b, "total", distributionOf(totals))
	b.ReportMetric(ms(distributionOf(spent).median()), "model-median-ms")
}

// relatedBuffers are three small Go files open beside the big one, which
// the prompts take snippets of.
func relatedBuffers() map[string]string {
	files := map[string]string{}
	for i := range 3 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package big\n\n")
		for f := range 40 {
			fmt.Fprintf(&sb, "// helper%d_%d scales n.\nfunc helper%d_%d(n int) int {\n\treturn n * %d\n}\n\n", i, f, i, f, f+2)
		}
		files[fmt.Sprintf("helper%d.go", i)] = sb.String()
	}
	return files
}

// recentEdits makes three small edits in the big file and undoes them,
// as a user who was editing before asking; the prompts then hold recent
// edits.
func recentEdits(e *rawEditor, path, text string, blanks []int) error {
	version := 1
	for _, line := range blanks[10:13] {
		for _, change := range []map[string]any{
			{"range": lspRange(line, 1, line, 1), "text": "x++"},
			{"range": lspRange(line, 1, line, 4), "text": ""},
		} {
			version++
			if _, err := e.notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": fileURI(path), "version": version},
				"contentChanges": []map[string]any{change},
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func lspRange(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{
		"start": map[string]any{"line": l1, "character": c1},
		"end":   map[string]any{"line": l2, "character": c2},
	}
}

// startTypist spawns gemini-ls with the raw editor attached, initializes
// it over root and opens files (relative to root).
func startTypist(ctx context.Context, b *testing.B, modelURL, root string, files map[string]string) (*rawEditor, *server) {
	b.Helper()
	return startTypistWith(ctx, b, modelURL, root, files, "")
}

// startTypistWith is startTypist with settingsJSON, when not empty, as
// the user's settings file (~/.gemini/settings.json).
func startTypistWith(ctx context.Context, b *testing.B, modelURL, root string, files map[string]string, settingsJSON string) (*rawEditor, *server) {
	b.Helper()
	environ := env(b, modelURL)
	if settingsJSON != "" {
		for _, kv := range environ {
			if home, ok := strings.CutPrefix(kv, "HOME="); ok {
				writeFiles(b, home, map[string]string{".gemini/settings.json": settingsJSON})
			}
		}
	}
	var e *rawEditor
	s := spawnEditor(b, environ, func(rwc io.ReadWriteCloser) editor {
		e = newRawEditor(rwc)
		return nil
	})
	if err := openTypist(ctx, e, root, files); err != nil {
		b.Fatal(err)
	}
	return e, s
}

// openTypist initializes the server over root and opens files (relative
// to root).
func openTypist(ctx context.Context, e *rawEditor, root string, files map[string]string) error {
	if err := e.initialize(ctx, []string{root}); err != nil {
		return err
	}
	for name, text := range files {
		if err := e.open(filepath.Join(root, name), text); err != nil {
			return err
		}
	}
	return nil
}

// stopTypist shuts the server down and waits for its exit.
func stopTypist(ctx context.Context, e *rawEditor, s *server) error {
	if err := e.shutdown(ctx); err != nil {
		return err
	}
	_ = s.proc.Close()
	code, err := s.proc.Wait(ctx)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("gemini-ls exited with status %d after shutdown and exit", code)
	}
	return nil
}

// instantModel answers every completion at once with fixedAnswer, in
// process: what is left of a request's time is the engine's.
type instantModel struct{}

func (instantModel) GenerateContentStream(ctx context.Context, _ string, _ []*genai.Content, _ *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
			Content:      genai.NewContentFromText(fixedAnswer, genai.RoleModel),
			FinishReason: genai.FinishReasonStop,
		}}}, nil)
	}
}

// BenchmarkCompletionContextAssembly is package completion's engine in
// process (its exported API: completion.New, SetBackend, Changed,
// Complete) over the same 10,000-line file, three related buffers and
// recent edits, with a model that answers at once. Each iteration is one
// Invoked request at another blank line, so each assembles a prompt.
//
// Metrics:
//   - assembly: the engine's own count of each request's assembly
//     (Engine.Stats' AssemblyTotal after the request minus before it):
//     request start → prompt assembled; stats-assembly-longest-ms is
//     Stats().Assembly at the end, the five warm-up requests included.
//   - complete: Complete's whole time with the instant model (assembly,
//     the call, post-processing, the cache).
func BenchmarkCompletionContextAssembly(b *testing.B) {
	ctx := context.Background()
	text, blanks := bigGoFile()
	engine, _, big := inProcessEngine(b, text)
	// Recent edits, as in the end-to-end benchmark.
	lines := strings.SplitAfter(text, "\n")
	for _, line := range blanks[10:13] {
		edited := strings.Join(lines[:line], "") + "\tx++\n" + strings.Join(lines[line+1:], "")
		engine.Changed(big, text, edited)
		engine.Changed(big, edited, text)
	}
	ask := func(i int) error {
		line := blankFor(blanks, i)
		got, err := engine.Complete(ctx, completion.Request{
			Path: big, Position: workspace.Position{Line: line, Character: 1},
			Encoding: workspace.UTF16, Trigger: completion.Invoked,
		})
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].Text != fixedAnswer {
			return fmt.Errorf("line %d: suggestions %+v, want %q", line, got, fixedAnswer)
		}
		return nil
	}
	for i := range 5 {
		if err := ask(-1 - i); err != nil {
			b.Fatal(err)
		}
	}
	var assembly, complete []time.Duration
	i := 0
	for b.Loop() {
		before := engine.Stats()
		start := time.Now()
		if err := ask(i); err != nil {
			b.Fatal(err)
		}
		complete = append(complete, time.Since(start))
		after := engine.Stats()
		if after.ModelCalls != before.ModelCalls+1 {
			b.Fatalf("request %d made %d model calls, want 1 (answered from the cache?)", i, after.ModelCalls-before.ModelCalls)
		}
		assembly = append(assembly, after.AssemblyTotal-before.AssemblyTotal)
		i++
	}
	st := engine.Stats()
	d := distributionOf(assembly)
	b.ReportMetric(ms(d.median()), "assembly-p50-ms")
	b.ReportMetric(ms(d.quantile(0.99)), "assembly-p99-ms")
	b.ReportMetric(ms(d.max()), "assembly-max-ms")
	// The engine's own longest, the first requests' included.
	b.ReportMetric(ms(st.Assembly), "stats-assembly-longest-ms")
	d = distributionOf(complete)
	b.ReportMetric(ms(d.median()), "complete-p50-ms")
	b.ReportMetric(ms(d.quantile(0.99)), "complete-p99-ms")
	b.ReportMetric(ms(d.max()), "complete-max-ms")
}

func fileURI(path string) uri.URI { return uri.File(path) }

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// blankFor is the blank line request i completes at: the warm-up
// requests (i < 0) take the last five, the others go through the rest in
// order, so that no answer is in the cache (of 128) when it is asked again.
func blankFor(blanks []int, i int) int {
	if i < 0 {
		return blanks[len(blanks)+i]
	}
	return blanks[i%(len(blanks)-5)]
}

// BenchmarkCompletionLiveHeap types the replay's session into the
// 10,000-line file in process, at once (no timing), each key a document
// change the engine is told of (Engine.Changed, as the server's
// didChange does) and an Invoked completion with the instant model, and
// measures the live heap after a GC: once with completion (engine fed),
// once with the documents alone. Metrics: heap-added-MB for each, and
// completion-heap-MB, their difference: what completion keeps.
func BenchmarkCompletionLiveHeap(b *testing.B) {
	for _, withCompletion := range []bool{false, true} {
		b.Run(fmt.Sprintf("completion=%v", withCompletion), func(b *testing.B) {
			var added []int64
			for b.Loop() {
				added = append(added, typeInProcess(b, withCompletion))
			}
			b.ReportMetric(mb(distributionOf(added).median()), "heap-added-MB")
		})
	}
}

// inProcessEngine is an engine over a workspace holding the big file
// (text) and the related buffers, all open, answered by the instant
// model; it returns the big file's path.
func inProcessEngine(b *testing.B, text string) (*completion.Engine, *workspace.Documents, string) {
	root := tempRoot(b)
	files := relatedBuffers()
	files["big.go"] = text
	writeFiles(b, root, files)
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{root}, docs)
	if err != nil {
		b.Fatal(err)
	}
	for name, t := range files {
		docs.Open(workspace.Document{Path: filepath.Join(root, name), URI: string(fileURI(filepath.Join(root, name))), LanguageID: "go", Version: 1, Text: t})
	}
	engine := completion.New(completion.Config{Workspace: ws, Documents: docs})
	engine.SetBackend(completion.Backend{Model: instantModel{}})
	return engine, docs, filepath.Join(root, "big.go")
}

// typeInProcess types the session as BenchmarkCompletionLiveHeap says
// and returns the live heap it added.
func typeInProcess(b *testing.B, withCompletion bool) int64 {
	ctx := context.Background()
	text, _ := bigGoFile()
	engine, docs, big := inProcessEngine(b, text)
	before := liveHeap()
	line, col, version := typeAt+1, 0, int32(1)
	for _, k := range typingSession(sessionSeed, sessionTarget) {
		r := workspace.Range{Start: workspace.Position{Line: line, Character: col - k.Del}, End: workspace.Position{Line: line, Character: col}}
		col -= k.Del
		if nl := strings.LastIndexByte(k.Text, '\n'); nl >= 0 {
			line += strings.Count(k.Text, "\n")
			col = len(k.Text) - nl - 1
		} else {
			col += len(k.Text)
		}
		old, _ := docs.Get(big)
		version++
		if err := docs.Change(big, version, []workspace.ContentChange{{Range: &r, Text: k.Text}}, workspace.UTF16); err != nil {
			b.Fatal(err)
		}
		if !withCompletion {
			continue
		}
		now, _ := docs.Get(big)
		engine.Changed(big, old.Text, now.Text)
		if _, err := engine.Complete(ctx, completion.Request{Path: big, Position: workspace.Position{Line: line, Character: col}, Encoding: workspace.UTF16, Trigger: completion.Invoked}); err != nil {
			b.Fatal(err)
		}
	}
	after := liveHeap()
	runtime.KeepAlive(engine)
	runtime.KeepAlive(docs)
	return after - before
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
