//go:build linux

package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// BenchmarkSoakLSPHeap is BenchmarkSoakLSP's prompts and sessions with the
// server in the benchmark's own process (lsp.Serve on pipes, as
// BenchmarkInlineCompletionOverhead's server=in-process), so that what
// the server holds can be seen in a heap profile: after the last prompt,
// and a collection, the profile is written beside the soak's report
// (soak-heap.pprof). The benchmark's own share (the fake model's requests
// of the last session, the editor's messages) is in it too, most of it:
// look at the server's with
//
//	go tool pprof -top -sample_index=inuse_space -focus 'gemini-ls/internal/(agent|conversation|lsp|tools|workspace|auth)\.' FILE
//
// Skipped unless GEMINI_LS_SOAK is set.
//
// Metrics: heap-inuse-MB (runtime.MemStats.HeapInuse after the
// collection) and heap-inuse-first-session-MB, the same after the first
// session, for the growth between.
func BenchmarkSoakLSPHeap(b *testing.B) {
	requireSoak(b)
	plan := lspSoakPlan(b)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	// The server's share is a few MB among the fake's hundred: sample
	// every 4 KB allocated rather than every 512 KB.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 4096
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	model := newSoakModel(b)
	e := startInProcessSoak(ctx, b, model, root)

	session := ""
	var first uint64
	for i := range plan.units {
		if i%plan.perSession == 0 {
			if err := model.replace(); err != nil {
				b.Fatal(err)
			}
			session = ""
		}
		var err error
		if session, _, err = e.prompt(ctx, i, session); err != nil {
			b.Fatal(err)
		}
		if i+1 == plan.perSession {
			first = heapInuse()
			if err := writeHeapProfile(heapProfilePath("heap-first")); err != nil {
				b.Fatal(err)
			}
		}
	}
	last := heapInuse()
	path := heapProfilePath("heap")
	if err := writeHeapProfile(path); err != nil {
		b.Fatal(err)
	}
	b.Logf("heap profiles after %d prompts and after the first session's %d: %s, %s", plan.units, plan.perSession, path, heapProfilePath("heap-first"))
	b.ReportMetric(float64(first)/(1<<20), "heap-inuse-first-session-MB")
	b.ReportMetric(float64(last)/(1<<20), "heap-inuse-MB")
}

// startInProcessSoak serves LSP in this process, in the environment a
// spawned server gets, and initializes it.
func startInProcessSoak(ctx context.Context, b *testing.B, model *soakModel, root string) lspEditor {
	b.Helper()
	environ := map[string]string{}
	for _, kv := range env(b, model.URL) {
		k, v, _ := strings.Cut(kv, "=")
		environ[k] = v
	}
	conn, exit := lsptest.StartInProcess(b, lsp.Options{
		Getenv:   func(k string) string { return environ[k] },
		StateDir: b.TempDir(),
	})
	e := lspEditor{client: lsptest.New(b, conn, lsptest.Plugin()), model: model}
	if _, err := e.client.Initialize(ctx, []string{root}, nil); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	b.Cleanup(func() {
		// ctx, the benchmark's, has ended by now.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := e.client.Call(ctx, "shutdown", nil, nil); err != nil {
			b.Errorf("shutdown: %v", err)
			return
		}
		_ = e.client.Notify(ctx, "exit", nil)
		select {
		case <-exit:
		case <-ctx.Done():
			b.Errorf("the server did not end after exit: %v", ctx.Err())
		}
	})
	return e
}

// heapProfilePath is where the heap profile name goes, beside the
// soak's report.
func heapProfilePath(name string) string {
	return strings.TrimSuffix(reportPath(os.Getenv("GEMINI_LS_SOAK_REPORT"), name), ".md") + ".pprof"
}

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("writing the heap profile: %w", err)
	}
	return f.Close()
}
