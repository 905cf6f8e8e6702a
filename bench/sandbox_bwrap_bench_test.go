//go:build linux

package bench

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

// BenchmarkSandboxVsBareBwrap is what internal/sandbox adds to
// bubblewrap's own start: each iteration runs `bash -c "echo hi"` in a
// workspace through a bare bwrap (the root bound read-only, /dev and
// /proc, every namespace unshared: the least any bwrap sandbox pays) and
// through internal/sandbox with a session's policy (BenchmarkSandboxedEcho
// says which), in turn, so that both meet the same load. What the
// sandbox adds is its mounts, the files it masks and the look for them.
//
// Metrics: bwrap-median-ms and sandboxed-median-ms, exec to exit, and
// extra-ratio-median, the per-iteration sandboxed / bare bwrap.
func BenchmarkSandboxVsBareBwrap(b *testing.B) {
	if err := probe(context.Background()); err != nil {
		b.Fatal(err)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Fatal(err)
	}
	root, home := b.TempDir(), os.Getenv("HOME")
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "the benchmark"}, func() []string { return []string{root} }, home, "")
	if err != nil {
		b.Fatal(err)
	}
	var bare, boxed []time.Duration
	var ratios []float64
	for b.Loop() {
		w := timeBareBwrap(b, bwrap, root)
		s := timeEcho(b, root, sb)
		bare, boxed = append(bare, w), append(boxed, s)
		ratios = append(ratios, float64(s)/float64(w))
	}
	b.ReportMetric(ms(medianOf(bare)), "bwrap-median-ms")
	b.ReportMetric(ms(medianOf(boxed)), "sandboxed-median-ms")
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "extra-ratio-median")
}

// timeBareBwrap runs echo hi through bash in the barest bwrap sandbox and
// returns how long it took to exit.
func timeBareBwrap(b *testing.B, bwrap, root string) time.Duration {
	cmd := exec.Command(bwrap, "--unshare-all", "--new-session", "--die-with-parent",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--chdir", root, "--", "bash", "-c", "echo hi")
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil || string(out) != "hi\n" {
		b.Fatalf("bwrap echo hi: %v %q", err, out)
	}
	return d
}
