//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The soak: one server kept busy for a long time, sampled from outside
// as it goes (soak_probe_test.go), to see whether anything grows with use
// rather than with the history of the session at hand. Long, so skipped
// unless GEMINI_LS_SOAK is set; -short runs a smaller one.
//
//	GEMINI_LS_SOAK=1 go test -run '^$' -bench 'Soak' -benchtime 1x -timeout 60m ./bench/
//	GEMINI_LS_SOAK=1 go test -short -run '^$' -bench 'Soak' -benchtime 1x ./bench/

// soakPlan is how long a soak runs and how often it looks.
type soakPlan struct {
	units       int // prompts (LSP) or sessions (ACP)
	perSession  int // LSP: prompts of a session before a new one
	sampleEvery int
	// settle, when set, is how long the server is left idle after the
	// last unit before it is sampled once more.
	settle time.Duration
	// leaveOpen: ACP sessions are not closed, as Zed leaves the sessions
	// of the threads the user moved away from.
	leaveOpen bool
}

// lspSoakPlan is 2,000 prompts (300 with -short), a new session every
// 100 or every $GEMINI_LS_SOAK_SESSION.
func lspSoakPlan(b *testing.B) soakPlan {
	plan := soakPlan{units: 2000, perSession: 100, sampleEvery: 50}
	if testing.Short() {
		plan.units = 300
	}
	if v := os.Getenv("GEMINI_LS_SOAK_SESSION"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < plan.sampleEvery || n%plan.sampleEvery != 0 {
			b.Fatalf("GEMINI_LS_SOAK_SESSION=%q: want a multiple of %d", v, plan.sampleEvery)
		}
		plan.perSession = n
	}
	return plan
}

// acpSoakPlan is 50 sessions (10 with -short); then the server is left
// idle a little longer than the 90 s an idle HTTP connection of Go's
// default transport is kept, to see what goes with them.
func acpSoakPlan() soakPlan {
	if testing.Short() {
		return soakPlan{units: 10, sampleEvery: 2}
	}
	return soakPlan{units: 50, sampleEvery: 5, settle: 95 * time.Second}
}

// acpLeftOpenPlan is 200 sessions (40 with -short) left open.
func acpLeftOpenPlan() soakPlan {
	if testing.Short() {
		return soakPlan{units: 40, sampleEvery: 4, leaveOpen: true}
	}
	return soakPlan{units: 200, sampleEvery: 20, leaveOpen: true}
}

func requireSoak(b *testing.B) {
	if os.Getenv("GEMINI_LS_SOAK") == "" {
		b.Skip("the soak runs only with GEMINI_LS_SOAK=1 (about 15 minutes; with -short, 1)")
	}
}

// soakModel is the fake Gemini API behind a front that can replace it:
// the fake keeps every request it answers, so a long soak starts a new
// one with each session, and the benchmark's own memory stays that of one
// session. It adds up the time the fake spent answering, as timedModel.
type soakModel struct {
	URL string

	answerClock

	mu   sync.Mutex // guards fake
	fake *geminitest.Server
}

func newSoakModel(b *testing.B) *soakModel {
	b.Helper()
	m := &soakModel{}
	if err := m.replace(); err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(http.HandlerFunc(m.serve))
	b.Cleanup(func() {
		front.Close()
		if err := m.replace(); err != nil {
			b.Error(err)
		}
		m.fake.Close()
	})
	m.URL = front.URL
	return m
}

func (m *soakModel) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	fake := m.fake
	m.mu.Unlock()
	start := time.Now()
	fake.ServeHTTP(w, r)
	m.answered(time.Since(start))
}

// replace starts a new fake and closes the old one, failing if the old
// one answered anything it could not answer as scripted.
func (m *soakModel) replace() error {
	fake, err := geminitest.Start(geminitest.Options{})
	if err != nil {
		return fmt.Errorf("starting a fake Gemini API: %w", err)
	}
	m.mu.Lock()
	old := m.fake
	m.fake = fake
	m.mu.Unlock()
	if old == nil {
		return nil
	}
	old.Close()
	if err := old.Err(); err != nil {
		return fmt.Errorf("the fake Gemini API: %w", err)
	}
	return nil
}

func (m *soakModel) push(turns ...geminitest.Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fake.Push(turns...)
}

func (m *soakModel) remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fake.Remaining()
}

// soakTurn is the model's side of prompt i: two tool calls, each in an
// answer of its own, then the answer. The arguments move with i so that
// no two prompts in a row make the same calls (the loop check would see
// a loop) and the tools meet different files.
func soakTurn(i int) []geminitest.Turn {
	pkg, file := i%10, (i/10)%10
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("grep_search", map[string]any{
			"pattern": fmt.Sprintf(`func Handle%d\d`, file), "include": fmt.Sprintf("pkg%d/*.go", pkg)})),
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": fmt.Sprintf("pkg%d/file%d.go", pkg, file)})),
		geminitest.TextTurn(fmt.Sprintf("Handle%d0 to Handle%d5 are in pkg%d/file%d.go.", file, file, pkg, file)),
	}
}

// soakRequests is how many model requests a soakTurn prompt makes.
const soakRequests = 3

// soakEnv is env's, with the runtime reporting each collection on stderr
// (the live heap) and a SIGQUIT dumping every goroutine.
func soakEnv(b *testing.B, modelURL string) []string {
	return append(env(b, modelURL), "GODEBUG=gctrace=1", "GOTRACEBACK=all")
}

// soakProcess is a server under soak: its process and where its stderr
// goes.
type soakProcess struct {
	proc   *lsptest.Process
	stderr string
}

func startSoakProcess(b *testing.B, modelURL string, args ...string) soakProcess {
	b.Helper()
	log := filepath.Join(b.TempDir(), "gemini-ls")
	return soakProcess{proc: lsptest.StartCommand(b, binary, soakEnv(b, modelURL), log, args...), stderr: log + ".stderr"}
}

func (p soakProcess) pid() int { return p.proc.Cmd.Process.Pid }

// dumpGoroutines sends the server SIGQUIT, which ends it with every
// goroutine's stack on stderr, and reads them.
func (p soakProcess) dumpGoroutines(ctx context.Context) (goroutineDump, error) {
	if err := p.proc.Cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		return goroutineDump{}, fmt.Errorf("sending SIGQUIT: %w", err)
	}
	if _, err := p.proc.Wait(ctx); err != nil {
		return goroutineDump{}, err
	}
	data, err := os.ReadFile(p.stderr)
	if err != nil {
		return goroutineDump{}, fmt.Errorf("reading the goroutine dump: %w", err)
	}
	d := parseGoroutineDump(string(data))
	if d.total == 0 {
		return goroutineDump{}, fmt.Errorf("no goroutine in the server's SIGQUIT dump")
	}
	return d, nil
}

// sampler takes soakSamples of one process.
type sampler struct {
	pid     int
	heap    *heapTrace
	lastCPU time.Duration
}

func newSampler(p soakProcess) (*sampler, error) {
	cpu, err := cpuTime(p.pid())
	if err != nil {
		return nil, err
	}
	return &sampler{pid: p.pid(), heap: newHeapTrace(p.stderr), lastCPU: cpu}, nil
}

// take samples the process after done units; times are the wall times
// of the units since the last sample.
func (s *sampler) take(done, session int, times []time.Duration) (soakSample, error) {
	snap, err := snapshotProcess(s.pid)
	if err != nil {
		return soakSample{}, err
	}
	if err := s.heap.update(); err != nil {
		return soakSample{}, err
	}
	cpu, err := cpuTime(s.pid)
	if err != nil {
		return soakSample{}, err
	}
	files, err := openFiles(s.pid)
	if err != nil {
		return soakSample{}, err
	}
	out := soakSample{done: done, session: session, procSnapshot: snap, heap: s.heap.live, files: files}
	if len(times) > 0 {
		out.each = distributionOf(times).median()
		out.cpu = (cpu - s.lastCPU) / time.Duration(len(times))
	}
	s.lastCPU = cpu
	return out, nil
}

// lspSoak is one LSP server process and its editor.
type lspSoak struct {
	soakProcess
	lspEditor
}

// lspEditor is the editor of an LSP server under soak, and the fake model
// the server talks to.
type lspEditor struct {
	client *lsptest.Client
	model  *soakModel
}

func startLSPSoak(ctx context.Context, b *testing.B, model *soakModel, root string) *lspSoak {
	b.Helper()
	p := startSoakProcess(b, model.URL, "serve")
	s := &lspSoak{soakProcess: p, lspEditor: lspEditor{client: lsptest.New(b, p.proc, lsptest.Plugin()), model: model}}
	if _, err := s.client.Initialize(ctx, []string{root}, nil); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	return s
}

// prompt sends prompt i in session (a new one when ""), checks that it
// ran both calls and ended, and returns its session and its wall time
// less the fake model's.
func (s lspEditor) prompt(ctx context.Context, i int, session string) (string, time.Duration, error) {
	s.model.push(soakTurn(i)...)
	spentBefore, callsBefore := s.model.Spent()
	updatesBefore := len(s.client.Messages("gemini/update"))
	start := time.Now()
	var res promptResult
	params := map[string]any{"prompt": fmt.Sprintf("Where are the handlers of batch %d?", i)}
	if session != "" {
		params["sessionId"] = session
	}
	if err := s.client.Call(ctx, "gemini/prompt", params, &res); err != nil {
		return "", 0, fmt.Errorf("prompt %d: gemini/prompt: %w", i, err)
	}
	took := time.Since(start)
	if res.StopReason != "end_turn" || res.Error != "" {
		return "", 0, fmt.Errorf("prompt %d ended %q: %s", i, res.StopReason, res.Error)
	}
	if left := s.model.remaining(); left != 0 {
		return "", 0, fmt.Errorf("prompt %d ended with %d scripted model turns unused", i, left)
	}
	spent, err := s.model.WaitSpent(ctx, callsBefore+soakRequests)
	if err != nil {
		return "", 0, err
	}
	if _, calls := s.model.Spent(); calls != callsBefore+soakRequests {
		return "", 0, fmt.Errorf("prompt %d: the model answered %d requests, want %d", i, calls-callsBefore, soakRequests)
	}
	if err := toolsRanOK(s.client.Messages("gemini/update")[updatesBefore:], 2); err != nil {
		return "", 0, fmt.Errorf("prompt %d: %w", i, err)
	}
	return res.SessionID, took - (spent - spentBefore), nil
}

// toolsRanOK checks that want tool calls ended ok among updates.
func toolsRanOK(updates []lsptest.Message, want int) error {
	ok := 0
	for _, m := range updates {
		var u struct{ Kind, Name, Status, Display string }
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
	if ok != want {
		return fmt.Errorf("%d tool results, want %d", ok, want)
	}
	return nil
}

// BenchmarkSoakLSP is one `gemini-ls serve` taking 2,000 prompts of two
// tool calls each (grep_search, read_file), a new session every 100, as
// an editor sends them; every 50 prompts the server's RSS, live heap,
// open files, threads, and its median non-model time and CPU per prompt
// are sampled. At the end its goroutines are dumped (SIGQUIT) and
// compared with those of a second server that ran the first session's
// 100 prompts alone.
//
// Metrics: {rss,heap,fds,threads,prompt,cpu}-growth, the last sample
// over the one after the first session (prompt 100: both sit at the end
// of a session, so the history they carry is alike); goroutines and
// control-goroutines.
func BenchmarkSoakLSP(b *testing.B) {
	requireSoak(b)
	plan := lspSoakPlan(b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())

	samples, soakDump := runLSPSoak(ctx, b, root, plan)
	controlDump := lspControl(ctx, b, root, plan.perSession)

	var rep soakReport
	rep.printf("LSP soak: %d prompts of 2 tool calls, a new session every %d\n\n%s\n", plan.units, plan.perSession, soakTable("prompts", samples))
	reportGrowth(b, &rep, samples, plan.perSession/plan.sampleEvery)
	b.ReportMetric(float64(soakDump.total), "goroutines")
	b.ReportMetric(float64(controlDump.total), "control-goroutines")
	rep.printf("goroutines after %d prompts: %d; after %d prompts in a fresh server: %d%s\n", plan.units, soakDump.total, plan.perSession, controlDump.total, grownText(soakDump, controlDump))
	rep.write(b, "lsp")
}

// runLSPSoak runs plan's prompts in one server and returns its samples
// (the first right after initialize) and its goroutines at the end.
func runLSPSoak(ctx context.Context, b *testing.B, root string, plan soakPlan) ([]soakSample, goroutineDump) {
	model := newSoakModel(b)
	s := startLSPSoak(ctx, b, model, root)
	smp, err := newSampler(s.soakProcess)
	if err != nil {
		b.Fatal(err)
	}
	first, err := smp.take(0, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	samples := []soakSample{first}
	session, sessions := "", 0
	var times []time.Duration
	for i := range plan.units {
		if i%plan.perSession == 0 {
			// The fake of the last session goes with it.
			if err := model.replace(); err != nil {
				b.Fatal(err)
			}
			session = ""
			sessions++
		}
		var took time.Duration
		session, took, err = s.prompt(ctx, i, session)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, took)
		if (i+1)%plan.sampleEvery == 0 {
			sample, err := smp.take(i+1, sessions, times)
			if err != nil {
				b.Fatal(err)
			}
			samples = append(samples, sample)
			times = times[:0]
		}
	}
	dump, err := s.dumpGoroutines(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return samples, dump
}

// lspControl runs one session of n prompts in a fresh server and
// returns its goroutines then.
func lspControl(ctx context.Context, b *testing.B, root string, n int) goroutineDump {
	s := startLSPSoak(ctx, b, newSoakModel(b), root)
	session := ""
	for i := range n {
		var err error
		if session, _, err = s.prompt(ctx, i, session); err != nil {
			b.Fatal(err)
		}
	}
	dump, err := s.dumpGoroutines(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return dump
}

// soakReport is a soak's table and findings. A benchmark's log is cut
// to ten lines, and what it prints to stdout lands inside its result
// line, so the report goes to a file: $GEMINI_LS_SOAK_REPORT with the
// server's name before its extension, else one in the temporary directory.
type soakReport struct{ strings.Builder }

func (r *soakReport) printf(format string, args ...any) { fmt.Fprintf(r, format, args...) }

// write saves the report of server ("lsp", "acp") and logs where.
func (r *soakReport) write(b *testing.B, server string) {
	path := reportPath(os.Getenv("GEMINI_LS_SOAK_REPORT"), server)
	if err := os.WriteFile(path, []byte(r.String()), 0o644); err != nil {
		b.Fatalf("writing the soak's report: %v", err)
	}
	b.Logf("the soak's table and findings: %s", path)
}

// reportPath is where the report of server goes: named by the pattern
// ("soak.md" gives "soak-lsp.md"), else in the temporary directory.
func reportPath(pattern, server string) string {
	if pattern == "" {
		pattern = filepath.Join(os.TempDir(), "gemini-ls-soak.md")
	}
	ext := filepath.Ext(pattern)
	return strings.TrimSuffix(pattern, ext) + "-" + server + ext
}

// reportGrowth reports each figure's last sample over samples[base].
func reportGrowth(b *testing.B, rep *soakReport, samples []soakSample, base int) {
	if base >= len(samples) {
		b.Fatalf("%d samples, none at %d to compare with", len(samples), base)
	}
	figures := []struct {
		name   string
		metric func(soakSample) float64
	}{
		{"rss", func(s soakSample) float64 { return float64(s.rss) }},
		{"heap", func(s soakSample) float64 { return float64(s.heap) }},
		{"fds", func(s soakSample) float64 { return float64(s.fds) }},
		{"threads", func(s soakSample) float64 { return float64(s.threads) }},
		{"time", func(s soakSample) float64 { return float64(s.each) }},
		{"cpu", func(s soakSample) float64 { return float64(s.cpu) }},
	}
	verdicts := ""
	for _, f := range figures {
		g := growth(samples, base, f.metric)
		b.ReportMetric(g, f.name+"-growth")
		verdicts += fmt.Sprintf(" %s %.2f (%s);", f.name, g, flatWithin(g))
	}
	rep.printf("last sample / sample at %d:%s\n", samples[base].done, verdicts)
	if grown := grownFiles(samples[len(samples)-1].files, samples[base].files); len(grown) > 0 {
		rep.printf("open files since the sample at %d: %s\n", samples[base].done, strings.Join(grown, ", "))
	}
}

// grownText lists the functions that started more goroutines in after
// than in base.
func grownText(after, base goroutineDump) string {
	grown := grownCreators(after, base)
	if len(grown) == 0 {
		return "; no function started more"
	}
	out := "; more started by:"
	for _, g := range grown[:min(len(grown), 8)] {
		out += fmt.Sprintf("\n\t%s: %d (was %d)", g.creator, g.after, g.base)
	}
	return out
}
