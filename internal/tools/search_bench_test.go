package tools

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The search benchmarks run on $(go env GOROOT)/src and time, in each
// iteration and in turn, ripgrep and gemini-ls's tool on the same query,
// so the ratios are taken in one run under the same load. Each query runs
// on one core (GOMAXPROCS=1 against rg -j1: the work per file) and on
// every core (the scaling). CPU time is the process's user+system time
// (for the tool, this process's and that of any program it ran). Nothing
// passes or fails on time. Peak heap is the tool's, sampled during one
// extra, untimed query above the heap before it.
//
//	go test -run '^$' -bench 'SearchGoroot' -benchtime 10x ./internal/tools/

func gorootWorkspace(b *testing.B) (*workspace.Workspace, string) {
	b.Helper()
	root, err := filepath.EvalSymlinks(filepath.Join(goroot(b), "src"))
	if err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return ws, root
}

var foundCount = regexp.MustCompile(`^Found (\d+) (match|file)`)

// peakHeap runs fn and returns the highest heap in use while it ran,
// above the heap before it, sampled every 2 ms (runtime/metrics: no
// stopping the world).
func peakHeap(fn func()) (peak uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := heap()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if h := heap(); h > base && h-base > peak {
				peak = h - base
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	return peak
}

// timing sums one side's wall and CPU time over the iterations.
type timing struct{ wall, cpu time.Duration }

func (t *timing) measure(fn func()) {
	start, cpu := time.Now(), cpuTime()
	fn()
	t.wall += time.Since(start)
	t.cpu += cpuTime() - cpu
}

// report gives t's times per iteration, and as ratios to rg's.
func (t timing) report(b *testing.B, name string, rg timing) {
	if name != "rg" {
		b.ReportMetric(float64(t.wall)/float64(rg.wall), name+"/rg-wall")
		b.ReportMetric(float64(t.cpu)/float64(rg.cpu), name+"/rg-cpu")
	}
	b.ReportMetric(float64(t.wall.Microseconds())/1000/float64(b.N), name+"-ms")
	b.ReportMetric(float64(t.cpu.Microseconds())/1000/float64(b.N), name+"-cpu-ms")
}

// runRg runs rg with args and returns its output; its CPU time is this
// process's children's.
func runRg(b *testing.B, args ...string) []byte {
	out, err := exec.Command("rg", args...).Output()
	if err != nil {
		b.Fatalf("rg %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// onCores runs fn as sub-benchmarks P1 (GOMAXPROCS=1, rg -j1) and PN (every core).
func onCores(b *testing.B, fn func(b *testing.B, procs int)) {
	for _, procs := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("P%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			fn(b, procs)
		})
	}
}

func BenchmarkSearchGoroot(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed (apt-get install ripgrep)")
	}
	ws, root := gorootWorkspace(b)
	reg := NewRegistry(Builtin(Options{Workspace: ws})...)
	grep, _ := reg.Get(GrepSearchName)
	glob, _ := reg.Get(GlobName)
	execute := func(b *testing.B, tool Tool, params map[string]any, engine grepEngine) Result {
		call, err := tool.Build(params)
		if err != nil {
			b.Fatal(err)
		}
		if engine != nil {
			call.(*grepCall).engine = engine
		}
		res, err := call.Execute(b.Context(), CallInfo{})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	for _, q := range []struct{ name, pattern string }{
		{"Literal", "func main"},
		{"Regex", `func \w+Handler\(`},
		// No literal of more than a byte that every match holds.
		{"NoLiteral", `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
	} {
		b.Run("Grep"+q.name, func(b *testing.B) {
			params := map[string]any{"pattern": q.pattern}
			onCores(b, func(b *testing.B, procs int) {
				var rg, tool, inProcess timing
				var rgCount, toolCount, inCount int
				for b.Loop() {
					rg.measure(func() {
						out := runRg(b, "-j", strconv.Itoa(procs), "--json", "-i", "-e", q.pattern, root)
						rgCount = bytes.Count(out, []byte(`{"type":"match"`))
					})
					tool.measure(func() { toolCount = count(b, execute(b, grep, params, nil)) })
					inProcess.measure(func() { inCount = count(b, execute(b, grep, params, inProcessGrep{})) })
				}
				rg.report(b, "rg", rg)
				tool.report(b, "tool", rg)
				inProcess.report(b, "inprocess", rg)
				peak := peakHeap(func() { execute(b, grep, params, nil) })
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(rgCount), "rg-matches")
				b.ReportMetric(float64(toolCount), "tool-matches")
				b.ReportMetric(float64(inCount), "inprocess-matches")
			})
		})
	}
	b.Run("Glob", func(b *testing.B) {
		params := map[string]any{"pattern": "**/*.go"}
		onCores(b, func(b *testing.B, procs int) {
			var rg, tool timing
			var rgCount, globCount int
			for b.Loop() {
				rg.measure(func() {
					rgCount = bytes.Count(runRg(b, "-j", strconv.Itoa(procs), "--files", "-g", "*.go", root), []byte("\n"))
				})
				tool.measure(func() { globCount = count(b, execute(b, glob, params, nil)) })
			}
			rg.report(b, "rg", rg)
			tool.report(b, "glob", rg)
			peak := peakHeap(func() { execute(b, glob, params, nil) })
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(rgCount), "rg-files")
			b.ReportMetric(float64(globCount), "glob-files")
		})
	})
}

func count(b *testing.B, res Result) int {
	m := foundCount.FindStringSubmatch(res.Output)
	if m == nil {
		b.Fatalf("no count in %.200q", res.Output)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// goroot is the GOROOT of the go command on PATH, whose tree is searched.
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
