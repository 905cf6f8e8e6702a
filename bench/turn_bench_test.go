package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// toolCalls is the scripted turn: eight read-only calls, one per model
// answer, as a model surveying a workspace makes them.
var toolCalls = []struct {
	name string
	args map[string]any
}{
	{"list_directory", map[string]any{"path": "."}},
	{"glob", map[string]any{"pattern": "**/*.go"}},
	{"grep_search", map[string]any{"pattern": `func Handle\w+`, "include": "*.go"}},
	{"read_file", map[string]any{"path": "pkg3/file5.go"}},
	{"list_directory", map[string]any{"path": "pkg7"}},
	{"grep_search", map[string]any{"pattern": "TODO"}},
	{"glob", map[string]any{"pattern": "pkg2/*.go"}},
	{"read_file", map[string]any{"path": "README.md"}},
}

// turnScript is the model's side of one prompt: a call per answer, then
// the final text (nine model requests in all).
func turnScript() []geminitest.Turn {
	var turns []geminitest.Turn
	for _, c := range toolCalls {
		turns = append(turns, geminitest.CallTurn(geminitest.Call(c.name, c.args)))
	}
	return append(turns, geminitest.TextTurn("The workspace has ten packages of handlers."))
}

// smallWorkspace is 100 Go files of 40 lines in ten packages, a README and
// a .gitignore.
func smallWorkspace() map[string]string {
	files := map[string]string{
		"README.md":  "# bench\n\nTen packages of handlers.\n",
		".gitignore": "build/\n",
	}
	for p := range 10 {
		for f := range 10 {
			var sb strings.Builder
			fmt.Fprintf(&sb, "package pkg%d\n\nimport \"fmt\"\n\n", p)
			for h := range 6 {
				fmt.Fprintf(&sb, "// Handle%d%d answers request %d.\n", f, h, h)
				fmt.Fprintf(&sb, "func Handle%d%d(n int) string {\n\treturn fmt.Sprint(n * %d) // TODO: cache\n}\n\n", f, h, h+1)
			}
			files[fmt.Sprintf("pkg%d/file%d.go", p, f)] = sb.String()
		}
	}
	return files
}

// turnSample is one prompt's timing.
type turnSample struct {
	total time.Duration // gemini/prompt sent → its result read
	model time.Duration // time the fake model spent answering
	tools time.Duration // sum over calls of toolCall update → toolResult update
}

// runTurn sends the scripted prompt and reads its timing off the wire.
func runTurn(ctx context.Context, s *server, model *timedModel) (turnSample, error) {
	model.Push(turnScript()...)
	spentBefore, callsBefore := model.Spent()
	updatesBefore := len(s.client.Messages("gemini/update"))
	mark := s.wire.mark()
	start := time.Now()
	var res promptResult
	if err := s.client.Call(ctx, "gemini/prompt", map[string]any{"prompt": "Survey the handlers."}, &res); err != nil {
		return turnSample{}, fmt.Errorf("gemini/prompt: %w", err)
	}
	if res.StopReason != "end_turn" || res.Error != "" {
		return turnSample{}, fmt.Errorf("prompt ended %q: %s", res.StopReason, res.Error)
	}
	if left := model.Remaining(); left != 0 {
		return turnSample{}, fmt.Errorf("the prompt ended with %d scripted model turns unused", left)
	}
	spent, err := model.WaitSpent(ctx, callsBefore+len(toolCalls)+1)
	if err != nil {
		return turnSample{}, err
	}
	if _, calls := model.Spent(); calls != callsBefore+len(toolCalls)+1 {
		return turnSample{}, fmt.Errorf("model answered %d requests, want %d", calls-callsBefore, len(toolCalls)+1)
	}
	frames, err := s.wire.since(mark)
	if err != nil {
		return turnSample{}, err
	}
	result, _, ok := first(frames, 0, isResponse(fromServer))
	if !ok {
		return turnSample{}, fmt.Errorf("no gemini/prompt result on the wire")
	}
	sample := turnSample{total: result.At.Sub(start), model: spent - spentBefore}
	from := 0
	for range toolCalls {
		call, i, ok := first(frames, from, isUpdate("toolCall"))
		if !ok {
			return turnSample{}, fmt.Errorf("fewer than %d toolCall updates", len(toolCalls))
		}
		done, j, ok := first(frames, i+1, isUpdate("toolResult"))
		if !ok {
			return turnSample{}, fmt.Errorf("toolCall without a toolResult update")
		}
		sample.tools += done.At.Sub(call.At)
		from = j + 1
	}
	if err := allToolsOK(s.client.Messages("gemini/update")[updatesBefore:]); err != nil {
		return turnSample{}, err
	}
	return sample, nil
}

// allToolsOK checks that every call of the prompt ran without error, so a
// broken tool cannot pass for a fast one.
func allToolsOK(updates []lsptest.Message) error {
	ok := 0
	for _, m := range updates {
		var u struct {
			Kind, Name, Status, Display string
		}
		if err := json.Unmarshal(m.Params, &u); err != nil {
			return fmt.Errorf("bad gemini/update %s: %w", m.Params, err)
		}
		if u.Kind != "toolResult" {
			continue
		}
		if u.Status != "ok" {
			return fmt.Errorf("%s ended %s: %s", u.Name, u.Status, u.Display)
		}
		ok++
	}
	if ok != len(toolCalls) {
		return fmt.Errorf("%d tool results, want %d", ok, len(toolCalls))
	}
	return nil
}

// turnSamples collects prompt timings and reports them.
type turnSamples struct {
	overheadPerCall, toolPerCall, total, model []time.Duration
}

func (t *turnSamples) add(s turnSample) {
	n := time.Duration(len(toolCalls))
	t.overheadPerCall = append(t.overheadPerCall, (s.total-s.model)/n)
	t.toolPerCall = append(t.toolPerCall, s.tools/n)
	t.total = append(t.total, s.total)
	t.model = append(t.model, s.model)
}

func (t *turnSamples) report(b *testing.B) {
	reportMS(b, "overhead/call", distributionOf(t.overheadPerCall))
	reportMS(b, "tool/call", distributionOf(t.toolPerCall))
	reportMS(b, "turn", distributionOf(t.total))
	b.ReportMetric(ms(distributionOf(t.model).median()), "model-median-ms")
}

func startTurnServer(ctx context.Context, b *testing.B, model *timedModel, root string) *server {
	b.Helper()
	s := spawn(b, env(b, model.URL), lsptest.Plugin())
	if _, err := s.client.Initialize(ctx, []string{root}, nil); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	return s
}

// BenchmarkTurn8ToolCalls is one prompt whose model makes eight tool
// calls (list_directory, glob, grep_search, read_file, twice each) in
// eight answers before its final text, in a server that has run prompts
// before. Each prompt is a new session.
//
// Metrics, per prompt:
//   - overhead/call: (prompt sent → result read − time the fake model
//     spent answering its nine requests) / 8. Everything that is not the
//     model: tools, nine rounds of request encoding and stream decoding,
//     HTTP, LSP notifications. An upper bound on per-call overhead.
//   - tool/call: toolCall update → toolResult update as the editor reads
//     them, averaged over the eight calls: the tools alone.
//   - turn: the whole prompt; model-median-ms: the fake's share.
//   - server-cpu/call-ms: the server's CPU time (user and system, all
//     its threads) over all the prompts, per call.
//   - rss-peak-MB: the process's peak RSS (VmHWM) over all the prompts.
func BenchmarkTurn8ToolCalls(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := newTimedModel(b)
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	s := startTurnServer(ctx, b, model, root)
	// The first prompt pays for the first connection to the model;
	// BenchmarkTurn8ToolCallsFreshProcess measures that case.
	if _, err := runTurn(ctx, s, model); err != nil {
		b.Fatal(err)
	}
	var samples turnSamples
	pid := s.proc.Cmd.Process.Pid
	cpuBefore, cpuErr := cpuTime(pid) // on Linux only
	for b.Loop() {
		sample, err := runTurn(ctx, s, model)
		if err != nil {
			b.Fatal(err)
		}
		samples.add(sample)
	}
	cpuAfter, err := cpuTime(pid)
	cpuErr = cmp.Or(cpuErr, err)
	if err := s.stop(ctx); err != nil {
		b.Fatal(err)
	}
	samples.report(b)
	if calls := len(samples.total) * len(toolCalls); cpuErr == nil {
		// The server's own CPU per call, the tools' included: its work,
		// against the wall-clock overhead that also holds its waits for a
		// CPU on a shared machine.
		b.ReportMetric(ms((cpuAfter-cpuBefore)/time.Duration(calls)), "server-cpu/call-ms")
	}
	if s.peakRSS > 0 {
		b.ReportMetric(mb(s.peakRSS), "rss-peak-MB")
	}
}

// BenchmarkTurn8ToolCallsFreshProcess is the same prompt as the first and
// only one of a new process (spawned and initialized untimed), so it
// includes the first connection to the model and everything lazily set up.
// rss-{median,max}-MB is each process's peak RSS (VmHWM), read once it
// answered shutdown.
func BenchmarkTurn8ToolCallsFreshProcess(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := newTimedModel(b)
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	var samples turnSamples
	var rss []int64
	for b.Loop() {
		b.StopTimer()
		s := startTurnServer(ctx, b, model, root)
		b.StartTimer()
		sample, err := runTurn(ctx, s, model)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		samples.add(sample)
		if err := s.stop(ctx); err != nil {
			b.Fatal(err)
		}
		if s.peakRSS > 0 {
			rss = append(rss, s.peakRSS)
		}
		b.StartTimer()
	}
	samples.report(b)
	if len(rss) > 0 {
		d := distributionOf(rss)
		b.ReportMetric(mb(d.median()), "rss-median-MB")
		b.ReportMetric(mb(d.max()), "rss-max-MB")
	}
}

// BenchmarkHeadlessRun8ToolCalls is the same turn through `gemini-ls run
// -p`, timed as a whole process from exec to exit: what the Gemini CLI
// figure for its 8-turn headless scenario measures (docs/benchmarks.md).
// Metrics: run-{median,p90,max}-ms, and the fake model's share.
func BenchmarkHeadlessRun8ToolCalls(b *testing.B) {
	model := newTimedModel(b)
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	environ := env(b, model.URL)
	var runs, spent []time.Duration
	for b.Loop() {
		model.Push(turnScript()...)
		spentBefore, callsBefore := model.Spent()
		cmd := exec.Command(binary, "run", "-p", "Survey the handlers.", "-C", root)
		cmd.Env = environ
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("gemini-ls run: %v\n%s", err, stderr.String())
		}
		if want := "The workspace has ten packages of handlers."; !strings.Contains(string(out), want) {
			b.Fatalf("gemini-ls run printed %q, want %q", out, want)
		}
		if left := model.Remaining(); left != 0 {
			b.Fatalf("the run ended with %d scripted model turns unused", left)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		total, err := model.WaitSpent(ctx, callsBefore+len(toolCalls)+1)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, took)
		spent = append(spent, total-spentBefore)
	}
	reportMS(b, "run", distributionOf(runs))
	b.ReportMetric(ms(distributionOf(spent).median()), "model-median-ms")
}

// BenchmarkTurn8ToolCallsVsBaseline is BenchmarkTurn8ToolCalls's prompt
// sent in turn to this build's server and to a baseline build's
// (GEMINI_LS_BASELINE names its binary: another commit's, built as
// lsptest builds this one), each with its own fake model, in one run:
// what a change costs a tool turn shows as the ratio of the two, which
// the load of a shared machine cancels out of.
//
// Metrics: overhead/call for each (this build's, and base-overhead/call-*
// for the baseline's), and overhead-ratio-median, the median over the
// prompts of this build's overhead per call over the baseline's in the
// prompt next to it.
func BenchmarkTurn8ToolCallsVsBaseline(b *testing.B) {
	base := os.Getenv("GEMINI_LS_BASELINE")
	if base == "" {
		b.Skip("GEMINI_LS_BASELINE names no baseline binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	model, baseModel := newTimedModel(b), newTimedModel(b)
	s := startTurnServer(ctx, b, model, root)
	bs := spawnBinary(b, base, env(b, baseModel.URL), lsptest.Plugin())
	if _, err := bs.client.Initialize(ctx, []string{root}, nil); err != nil {
		b.Fatalf("initialize the baseline: %v", err)
	}
	for _, warm := range []struct {
		s *server
		m *timedModel
	}{{s, model}, {bs, baseModel}} {
		if _, err := runTurn(ctx, warm.s, warm.m); err != nil {
			b.Fatal(err)
		}
	}
	var samples, baseSamples turnSamples
	var ratios []float64
	for i := 0; b.Loop(); i++ {
		// Each goes first in every other pair.
		first, second := s, bs
		firstModel, secondModel := model, baseModel
		if i%2 == 1 {
			first, second, firstModel, secondModel = bs, s, baseModel, model
		}
		a, err := runTurn(ctx, first, firstModel)
		if err != nil {
			b.Fatal(err)
		}
		c, err := runTurn(ctx, second, secondModel)
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 1 {
			a, c = c, a
		}
		samples.add(a)
		baseSamples.add(c)
		ratios = append(ratios, float64(a.total-a.model)/float64(c.total-c.model))
	}
	for _, srv := range []*server{s, bs} {
		if err := srv.stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportMS(b, "overhead/call", distributionOf(samples.overheadPerCall))
	reportMS(b, "base-overhead/call", distributionOf(baseSamples.overheadPerCall))
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "overhead-ratio-median")
}
