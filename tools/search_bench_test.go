package tools

import (
	"bytes"
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

	"github.com/gemini-ls/gemini-ls/workspace"
)

// The search benchmarks run on $(go env GOROOT)/src and time, in each
// iteration and in turn, ripgrep alone and gemini-ls's tool on the same
// query, so the ratios are taken in one run under the same load. Nothing
// passes or fails on time. Peak heap is the tool's, sampled during its
// query above the heap before it.
//
//	go test -run '^$' -bench 'SearchGoroot' -benchtime 10x ./tools/

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

func BenchmarkSearchGoroot(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed (apt-get install ripgrep)")
	}
	ws, root := gorootWorkspace(b)
	reg := NewRegistry(Builtin(Options{Workspace: ws})...)
	grep, _ := reg.Get(GrepSearchName)
	glob, _ := reg.Get(GlobName)
	for _, q := range []struct {
		name, pattern string
	}{
		{"Literal", "func main"},
		{"Regex", `func \w+Handler\(`},
	} {
		b.Run("Grep"+q.name, func(b *testing.B) {
			var rgTime, autoTime, inTime time.Duration
			var peak uint64
			var rgCount, autoCount, inCount int
			for b.Loop() {
				start := time.Now()
				out, err := exec.Command("rg", "--json", "-i", "-e", q.pattern, root).Output()
				if err != nil {
					b.Fatal(err)
				}
				rgTime += time.Since(start)
				rgCount = bytes.Count(out, []byte(`{"type":"match"`))

				call, err := grep.Build(map[string]any{"pattern": q.pattern})
				if err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				res, err := call.Execute(b.Context(), CallInfo{})
				if err != nil {
					b.Fatal(err)
				}
				autoTime += time.Since(start)
				autoCount = count(b, res)

				call.(*grepCall).engine = inProcessGrep{}
				var inRes Result
				p := peakHeap(func() {
					start = time.Now()
					inRes, err = call.Execute(b.Context(), CallInfo{})
					inTime += time.Since(start)
				})
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, p)
				inCount = count(b, inRes)
			}
			b.ReportMetric(float64(autoTime)/float64(rgTime), "tool/rg")
			b.ReportMetric(float64(inTime)/float64(rgTime), "inprocess/rg")
			b.ReportMetric(float64(rgTime.Milliseconds())/float64(b.N), "rg-ms")
			b.ReportMetric(float64(peak)/(1<<20), "inprocess-peak-heap-MB")
			b.ReportMetric(float64(rgCount), "rg-matches")
			b.ReportMetric(float64(autoCount), "tool-matches")
			b.ReportMetric(float64(inCount), "inprocess-matches")
		})
	}
	b.Run("Glob", func(b *testing.B) {
		var rgTime, globTime time.Duration
		var peak uint64
		var rgCount, globCount int
		for b.Loop() {
			start := time.Now()
			out, err := exec.Command("rg", "--files", "-g", "*.go", root).Output()
			if err != nil {
				b.Fatal(err)
			}
			rgTime += time.Since(start)
			rgCount = bytes.Count(out, []byte("\n"))
			call, err := glob.Build(map[string]any{"pattern": "**/*.go"})
			if err != nil {
				b.Fatal(err)
			}
			var res Result
			peak = max(peak, peakHeap(func() {
				start = time.Now()
				res, err = call.Execute(b.Context(), CallInfo{})
				globTime += time.Since(start)
			}))
			if err != nil {
				b.Fatal(err)
			}
			globCount = count(b, res)
		}
		b.ReportMetric(float64(globTime)/float64(rgTime), "glob/rg")
		b.ReportMetric(float64(rgTime.Milliseconds())/float64(b.N), "rg-ms")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(rgCount), "rg-files")
		b.ReportMetric(float64(globCount), "glob-files")
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
