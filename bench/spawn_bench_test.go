package bench

import (
	"context"
	"fmt"
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
// testdata/trivialserver, and the same trivial server built to link genai
// without using it, each started and initialized the same way. The ratio
// of gemini-ls to the trivial server is the figure that survives a noisy
// machine: the runs of one iteration meet the same load, and the trivial
// server's time is what any Go program pays to be exec'd, start its
// runtime and answer a frame. The third shows how much of gemini-ls's
// start is linking genai and what it imports.
//
// Metrics: init-{median,p90,max}-ms are gemini-ls's times (ns/op is their
// mean, plus the editor's decoding of the result); trivial-init-median-ms
// the trivial server's; init-ratio-{median,p90} the per-iteration ratios
// gemini-ls / trivial; genai-floor-ratio-median trivial-with-genai /
// trivial; rss-median-MB the idle server's peak RSS after initialize.
func BenchmarkSpawnToInitialize(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := newTimedModel(b) // never called: initialize does not reach the model
	root := tempRoot(b)
	writeFiles(b, root, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	environ := env(b, model.URL)
	trivial := buildTrivialServer(b, "trivialserver")
	floor := buildTrivialServer(b, "trivialserver-genai", "-tags", "linkgenai")

	// One untimed round first: the binaries' pages are then in the page
	// cache for every timed one, as they are for an editor's usual start.
	for _, bin := range []string{binary, trivial, floor} {
		s, _, err := spawnToInitialize(ctx, b, bin, environ, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.stop(ctx); err != nil {
			b.Fatal(err)
		}
	}

	var samples, trivialSamples []time.Duration
	var ratios, floorRatios []float64
	var rss []int64
	for b.Loop() {
		s, d, err := spawnToInitialize(ctx, b, binary, environ, root)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.stop(ctx); err != nil {
			b.Fatal(err)
		}
		if s.peakRSS > 0 {
			rss = append(rss, s.peakRSS)
		}
		t, dt, err := spawnToInitialize(ctx, b, trivial, environ, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := t.stop(ctx); err != nil {
			b.Fatal(err)
		}
		f, df, err := spawnToInitialize(ctx, b, floor, environ, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.stop(ctx); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, d)
		trivialSamples = append(trivialSamples, dt)
		ratios = append(ratios, float64(d)/float64(dt))
		floorRatios = append(floorRatios, float64(df)/float64(dt))
		b.StartTimer()
	}
	if _, n := model.Spent(); n != 0 {
		b.Fatalf("initialize called the model %d times", n)
	}
	reportMS(b, "init", distributionOf(samples))
	b.ReportMetric(ms(distributionOf(trivialSamples).median()), "trivial-init-median-ms")
	r := distributionOf(ratios)
	b.ReportMetric(r.median(), "init-ratio-median")
	b.ReportMetric(r.quantile(0.9), "init-ratio-p90")
	b.ReportMetric(distributionOf(floorRatios).median(), "genai-floor-ratio-median")
	if len(rss) > 0 {
		b.ReportMetric(mb(distributionOf(rss).median()), "rss-median-MB")
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
// (go build, here with flags) into name and returns its path.
func buildTrivialServer(b *testing.B, name string, flags ...string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), name)
	args := append(append([]string{"build", "-o", bin}, flags...), "./testdata/trivialserver")
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		b.Fatalf("building the trivial server: %v\n%s", err, out)
	}
	return bin
}
