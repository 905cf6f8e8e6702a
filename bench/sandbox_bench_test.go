//go:build linux

package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
	door "github.com/gemini-ls/gemini-ls/internal/spawn"
)

// BenchmarkSandboxedEcho is what the bubblewrap sandbox adds to a shell
// command's start: each iteration runs `bash -c "echo hi"` as
// run_shell_command's LocalRunner does, unsandboxed, through
// internal/sandbox with a bwrap per command (Wrap), and through the
// session's persistent sandbox (Session.Run, gemini-ls's supervisor
// inside), all under the same policy (workspace writable, home read-only,
// secrets hidden, private /tmp, network off), and bwrap's own start
// (`true` wrapped), in turn, so that all meet the same load.
//
// Metrics: plain-, sandboxed-, session- and bwrap-true-median-ms are the
// wall times to exit; ratio-median is the per-iteration sandboxed / plain
// ratio; extra-median-ms and session-extra-median-ms are the
// per-iteration differences to plain; session-extra-per-bwrap is the
// latter over bwrap-true's median (the goal: at most 0.3).
func BenchmarkSandboxedEcho(b *testing.B) {
	ctx := context.Background()
	if err := probe(ctx); err != nil {
		b.Fatal(err)
	}
	root, home, state := b.TempDir(), os.Getenv("HOME"), b.TempDir()
	// The records setup gives a session's sandbox, so that each command
	// pays what a user's does.
	cfg := sandbox.Config{Command: sandbox.Bubblewrap, Why: "the benchmark",
		WatchDir: filepath.Join(state, "sandbox-watch"), Trail: sandboxtrail.At(filepath.Join(state, "sandbox-trail"))}
	sb, err := sandbox.New(cfg, func() []string { return []string{root} }, home, "")
	if err != nil {
		b.Fatal(err)
	}
	se, err := sb.NewSession(binary, sandbox.SupervisorArg)
	if err != nil {
		b.Fatal(err)
	}
	defer se.Close()
	timeSession(b, se, root) // the sandbox's start, once per session
	var plain, boxed, session, bare, extra, sessionExtra []time.Duration
	var ratios []float64
	for b.Loop() {
		p := timeEcho(b, root, nil)
		s := timeEcho(b, root, sb)
		r := timeSession(b, se, root)
		t := timeTrue(b, root, sb)
		plain, boxed, session, bare = append(plain, p), append(boxed, s), append(session, r), append(bare, t)
		extra, sessionExtra = append(extra, s-p), append(sessionExtra, r-p)
		ratios = append(ratios, float64(s)/float64(p))
	}
	b.ReportMetric(ms(medianOf(plain)), "plain-median-ms")
	b.ReportMetric(ms(medianOf(boxed)), "sandboxed-median-ms")
	b.ReportMetric(ms(medianOf(session)), "session-median-ms")
	b.ReportMetric(ms(medianOf(bare)), "bwrap-true-median-ms")
	b.ReportMetric(ms(medianOf(extra)), "extra-median-ms")
	b.ReportMetric(ms(medianOf(sessionExtra)), "session-extra-median-ms")
	b.ReportMetric(float64(medianOf(sessionExtra))/float64(medianOf(bare)), "session-extra-per-bwrap")
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
	cmd := confined(b, root, sb, "bash", "-c", "echo hi")
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

// timeSession runs echo hi through bash in root in the session's sandbox
// and returns how long it took to exit.
func timeSession(b *testing.B, se *sandbox.Session, root string) time.Duration {
	var out bytes.Buffer
	start := time.Now()
	exit, err := se.Run(context.Background(), sandbox.Command{Args: []string{"bash", "-c", "echo hi"}, Dir: root, Stdout: &out})
	d := time.Since(start)
	if err != nil || exit.Code != 0 || out.String() != "hi\n" {
		b.Fatalf("echo hi in the session: %v %+v %q", err, exit, out.String())
	}
	return d
}

// confined is argv in root, confined in sb by the door before any clock
// starts, as it was when the sandbox rewrote the command itself.
func confined(b *testing.B, root string, sb *sandbox.Sandbox, argv ...string) *door.Cmd {
	cmd := door.NewDoor(door.Rules{Sandbox: sb}).Command(b.Context(), door.UserCommand{What: "a benchmark"}, argv[0], argv[1:]...)
	cmd.Dir = root
	if _, err := cmd.Ready(); err != nil {
		b.Fatal(err)
	}
	return cmd
}

// timeTrue is bubblewrap's own start: `true` in sb, exec to exit.
func timeTrue(b *testing.B, root string, sb *sandbox.Sandbox) time.Duration {
	cmd := confined(b, root, sb, "true")
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("true: %v", err)
	}
	return d
}
