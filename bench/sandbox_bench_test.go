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

// BenchmarkSandboxedEcho is what the bubblewrap sandbox adds to a shell
// command's start: each iteration runs `bash -c "echo hi"` as
// run_shell_command's LocalRunner does, once unsandboxed and once through
// internal/sandbox (the policy of a session: workspace writable, home
// read-only, secrets hidden, private /tmp, network off), in turn, so that
// both meet the same load.
//
// Metrics: plain-median-ms and sandboxed-median-ms are the two wall times
// to exit; ratio-median is the per-iteration sandboxed / plain ratio.
func BenchmarkSandboxedEcho(b *testing.B) {
	ctx := context.Background()
	if err := probe(ctx); err != nil {
		b.Fatal(err)
	}
	root, home := b.TempDir(), os.Getenv("HOME")
	cfg := sandbox.Config{Command: sandbox.Bubblewrap, Why: "the benchmark"}
	sb, err := sandbox.New(cfg, func() []string { return []string{root} }, home, "")
	if err != nil {
		b.Fatal(err)
	}
	var plain, boxed []time.Duration
	var ratios []float64
	for b.Loop() {
		p := timeEcho(b, root, nil)
		s := timeEcho(b, root, sb)
		plain, boxed = append(plain, p), append(boxed, s)
		ratios = append(ratios, float64(s)/float64(p))
	}
	b.ReportMetric(ms(medianOf(plain)), "plain-median-ms")
	b.ReportMetric(ms(medianOf(boxed)), "sandboxed-median-ms")
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "ratio-median")
}

// probe fails unless bubblewrap can make a sandbox here.
func probe(ctx context.Context) error {
	_, err := sandbox.Resolve(ctx, sandbox.Request{Getenv: func(k string) string {
		if k == "GEMINI_SANDBOX" {
			return "bwrap"
		}
		return ""
	}}, sandbox.HostEnv())
	return err
}

// timeEcho runs echo hi through bash in root, in sb (nil: unsandboxed),
// and returns how long it took to exit.
func timeEcho(b *testing.B, root string, sb *sandbox.Sandbox) time.Duration {
	cmd := exec.Command("bash", "-c", "echo hi")
	cmd.Dir = root
	if err := sb.Wrap(cmd); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil || string(out) != "hi\n" {
		b.Fatalf("echo hi: %v %q", err, out)
	}
	return d
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
