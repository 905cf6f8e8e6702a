package bench

import (
	"context"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/lsp/lsptest"
)

// BenchmarkSpawnToInitialize is what an editor waits for before the agent
// is usable: from exec of `gemini-ls serve` to the initialize result read
// back over stdio (the server creates its workspace and Gemini client in
// initialize). Shutdown and exit follow each spawn, untimed.
//
// Metrics: init-{median,p90,max}-ms over the iterations (ns/op is their
// mean, plus the editor's decoding of the result); rss-median-MB is the
// idle server's peak RSS after initialize.
func BenchmarkSpawnToInitialize(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := newTimedModel(b) // never called: initialize does not reach the model
	root := tempRoot(b)
	writeFiles(b, root, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	environ := env(b, model.URL)

	var samples []time.Duration
	var rss []int64
	for b.Loop() {
		start := time.Now()
		s := spawn(b, environ, lsptest.Plugin())
		res, err := s.client.Initialize(ctx, []string{root}, nil)
		b.StopTimer()
		if err != nil {
			b.Fatalf("initialize: %v", err)
		}
		if _, ok := res["capabilities"].(map[string]any); !ok {
			b.Fatalf("initialize result without capabilities: %v", res)
		}
		// The clock stops when the result's last byte was read, before
		// the editor decodes it and sends initialized.
		frames, err := s.wire.since(0)
		result, _, ok := first(frames, 0, isResponse(fromServer))
		if err != nil || !ok {
			b.Fatalf("no initialize result on the wire (%v)", err)
		}
		samples = append(samples, result.At.Sub(start))
		if err := s.stop(ctx); err != nil {
			b.Fatal(err)
		}
		if s.peakRSS > 0 {
			rss = append(rss, s.peakRSS)
		}
		b.StartTimer()
	}
	if _, n := model.Spent(); n != 0 {
		b.Fatalf("initialize called the model %d times", n)
	}
	reportMS(b, "init", distributionOf(samples))
	if len(rss) > 0 {
		b.ReportMetric(mb(distributionOf(rss).median()), "rss-median-MB")
	}
}
