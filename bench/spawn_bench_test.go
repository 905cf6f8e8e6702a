package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// BenchmarkSpawnToInitialize is what an editor waits for before the agent
// is usable: from exec of `gemini-ls serve` to the initialize result read
// back over stdio. Shutdown and exit follow each spawn, untimed.
//
// Each iteration spawns, in turn, gemini-ls, the trivial Go LSP server of
// testdata/trivialserver, and two floors: the same trivial server built to
// link genai without using it, and built to link every dependency
// gemini-ls imports (testdata/trivialserver/deps.go), each started and
// initialized the same way. The ratio of gemini-ls to the trivial server
// is the figure that survives a noisy machine: the runs of one iteration
// meet the same load, and the trivial server's time is what any Go
// program pays to be exec'd, start its runtime and answer a frame. The
// floors show how much of gemini-ls's start, and of its memory, is
// linking genai, and the chosen dependencies, before any of its own work.
//
// Metrics: init-{median,p90,max}-ms are gemini-ls's times (ns/op is their
// mean, plus the editor's decoding of the result); trivial-init-median-ms
// the trivial server's; init-ratio-{median,p90} the per-iteration ratios
// gemini-ls / trivial; genai-floor-ratio-median and deps-floor-ratio-median
// the floors' / trivial; rss-median-MB the idle server's peak RSS after
// initialize, and trivial-, genai-floor- and deps-floor-rss-median-MB the
// others'.
func BenchmarkSpawnToInitialize(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := newTimedModel(b) // never called: initialize does not reach the model
	root := tempRoot(b)
	writeFiles(b, root, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	environ := env(b, model.URL)
	trivial := buildTrivialServer(b, "trivialserver")
	floor := buildTrivialServer(b, "trivialserver-genai", "-tags", "linkgenai")
	deps := buildTrivialServer(b, "trivialserver-deps", "-tags", "linkdeps")

	// Each iteration spawns them all in this order; only gemini-ls's
	// spawn is timed. One untimed round first: the binaries' pages are
	// then in the page cache for every timed one, as they are for an
	// editor's usual start.
	bins := []string{binary, trivial, floor, deps}
	for _, bin := range bins {
		s, _, err := spawnToInitialize(ctx, b, bin, environ, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.stop(ctx); err != nil {
			b.Fatal(err)
		}
	}

	times := make([][]time.Duration, len(bins))
	rss := make([][]int64, len(bins))
	for b.Loop() {
		for i, bin := range bins {
			s, d, err := spawnToInitialize(ctx, b, bin, environ, root)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if err := s.stop(ctx); err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], d)
			if s.peakRSS > 0 {
				rss[i] = append(rss[i], s.peakRSS)
			}
		}
		b.StartTimer()
	}
	if _, n := model.Spent(); n != 0 {
		b.Fatalf("initialize called the model %d times", n)
	}
	// ratio is, per iteration, the spawn of bins[i] over the trivial
	// server's in the same iteration.
	ratio := func(i int) distribution[float64] {
		var r []float64
		for k, t := range times[1] {
			r = append(r, float64(times[i][k])/float64(t))
		}
		return distributionOf(r)
	}
	reportMS(b, "init", distributionOf(times[0]))
	b.ReportMetric(ms(distributionOf(times[1]).median()), "trivial-init-median-ms")
	b.ReportMetric(ratio(0).median(), "init-ratio-median")
	b.ReportMetric(ratio(0).quantile(0.9), "init-ratio-p90")
	b.ReportMetric(ratio(2).median(), "genai-floor-ratio-median")
	b.ReportMetric(ratio(3).median(), "deps-floor-ratio-median")
	for i, name := range []string{"rss-median-MB", "trivial-rss-median-MB", "genai-floor-rss-median-MB", "deps-floor-rss-median-MB"} {
		if len(rss[i]) > 0 {
			b.ReportMetric(mb(distributionOf(rss[i]).median()), name)
		}
	}
}

// spawnToInitialize execs `bin serve`, sends initialize as our plugin
// does, and returns the running server and the time from just before the
// exec to the last byte of the result read (not the editor's decoding of
// it, nor its initialized notification).
func spawnToInitialize(ctx context.Context, b *testing.B, bin string, environ []string, root string) (*server, time.Duration, error) {
	name := filepath.Base(bin)
	start := time.Now()
	s := spawnBinary(b, bin, environ, lsptest.Plugin())
	res, err := s.client.Initialize(ctx, []string{root}, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: initialize: %w", name, err)
	}
	frames, err := s.wire.since(0)
	result, _, ok := first(frames, 0, isResponse(fromServer))
	if err != nil || !ok {
		return nil, 0, fmt.Errorf("%s: no initialize result on the wire (%v)", name, err)
	}
	if _, ok := res["capabilities"].(map[string]any); !ok {
		return nil, 0, fmt.Errorf("%s: initialize result without capabilities: %v", name, res)
	}
	return s, result.At.Sub(start), nil
}

// buildTrivialServer builds testdata/trivialserver as gemini-ls is built
// (go build, static, here with flags) into name and returns its path.
func buildTrivialServer(b *testing.B, name string, flags ...string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), name)
	args := append(append([]string{"build", "-o", bin}, flags...), "./testdata/trivialserver")
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as lsptest builds gemini-ls: not linked to libc
	out, err := build.CombinedOutput()
	if err != nil {
		b.Fatalf("building the trivial server: %v\n%s", err, out)
	}
	return bin
}
