package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The million-file benchmarks (issue 22) run each search over the tree
// bench/milliontree builds, in a child process of its own (this test
// binary again, running TestMillionChild), so that the child's peak RSS
// is that one search's alone, the binary's own baseline included.
const (
	// millionTreeEnv names the tree; without it the benchmarks skip.
	millionTreeEnv = "GEMINI_LS_MILLION_TREE"
	// millionChildEnv tells a child which case to run and how:
	// "CASE" runs it to its end, "CASE@300ms" cancels it after 300 ms.
	millionChildEnv = "GEMINI_LS_MILLION_CHILD"
	// millionResultPrefix starts the child's one line of result.
	millionResultPrefix = "million-result: "
)

// millionCase is one search over the tree.
type millionCase struct {
	name string
	// rg: run with rg on PATH; otherwise with a PATH where nothing is,
	// so grep_search searches in-process.
	rg  bool
	run func(ctx context.Context, ws *workspace.Workspace) (string, error)
}

// millionCases are the searches measured, by name.
var millionCases = []millionCase{
	// baseline: the child's own memory (test binary, workspace), no search.
	{name: "baseline", run: func(context.Context, *workspace.Workspace) (string, error) { return "nothing searched", nil }},
	{name: "glob-all", run: toolRun(tools.GlobName, map[string]any{"pattern": "**/*"})},
	{name: "glob-narrow", run: toolRun(tools.GlobName, map[string]any{"pattern": "t42/**/*.md"})},
	{name: "grep-needle", run: toolRun(tools.GrepSearchName, map[string]any{"pattern": "zebra-needle-7391"})},
	{name: "grep-needle-rg", rg: true, run: toolRun(tools.GrepSearchName, map[string]any{"pattern": "zebra-needle-7391"})},
	// No literal of 3 bytes or more: with rg installed, rg searches.
	{name: "grep-regex", run: toolRun(tools.GrepSearchName, map[string]any{"pattern": `[a-z]{5}-[a-z]{6}-[0-9]{4}`})},
	{name: "grep-regex-rg", rg: true, run: toolRun(tools.GrepSearchName, map[string]any{"pattern": `[a-z]{5}-[a-z]{6}-[0-9]{4}`})},
	{name: "grep-common", run: toolRun(tools.GrepSearchName, map[string]any{"pattern": "lazy dog"})},
	{name: "grep-common-rg", rg: true, run: toolRun(tools.GrepSearchName, map[string]any{"pattern": "lazy dog"})},
	{name: "atpath-glob", run: atPathRun("what does @.go hold?")},
	{name: "atpath-root", run: atPathRun("summarise @./ please")},
}

// toolRun runs a built-in tool with args; the result is its output.
func toolRun(name string, args map[string]any) func(context.Context, *workspace.Workspace) (string, error) {
	return func(ctx context.Context, ws *workspace.Workspace) (string, error) {
		builtin := tools.Builtin(tools.Options{Workspace: ws})
		i := slices.IndexFunc(builtin, func(t tools.Tool) bool { return t.Name() == name })
		if i < 0 {
			return "", fmt.Errorf("no tool %s", name)
		}
		call, err := builtin[i].Build(args)
		if err != nil {
			return "", fmt.Errorf("building %s: %w", name, err)
		}
		res, err := call.Execute(ctx, tools.CallInfo{})
		return res.Output, err
	}
}

// atPathRun expands the @path references of prompt as every front end
// does; the result is the text sent to the model.
func atPathRun(prompt string) func(context.Context, *workspace.Workspace) (string, error) {
	return func(ctx context.Context, ws *workspace.Workspace) (string, error) {
		parts, err := agent.ExpandReferences(ctx, ws, prompt)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String(), err
	}
}

// millionResult is what a child reports.
type millionResult struct {
	Wall time.Duration
	// Latency is from the cancel to Execute's return; zero when the
	// search ended before the cancel (Finished).
	Latency  time.Duration
	Finished bool
	PeakRSS  int64
	Err      string
	// Summary is the result's first line and those telling what was
	// left out, and Bytes its length.
	Summary string
	Bytes   int
}

// BenchmarkMillionFiles runs each case of millionCases over the tree named
// by GEMINI_LS_MILLION_TREE: to its end, then cancelled after 300 ms and
// after 1 s, each in a fresh child. See docs/benchmarks.md.
func BenchmarkMillionFiles(b *testing.B) {
	tree := os.Getenv(millionTreeEnv)
	if tree == "" {
		b.Skipf("%s names no tree: build one with bench/milliontree.sh", millionTreeEnv)
	}
	_, rgErr := exec.LookPath("rg")
	for _, c := range millionCases {
		b.Run(c.name, func(b *testing.B) {
			if c.rg && rgErr != nil {
				b.Skipf("rg is not installed: %v", rgErr)
			}
			var full millionResult
			for range b.N {
				full = runMillionChild(b, tree, c, "")
			}
			b.StopTimer()
			b.ReportMetric(float64(full.Wall.Milliseconds()), "wall-ms")
			b.ReportMetric(float64(full.PeakRSS)/(1<<20), "peak-MB")
			b.Logf("%s: %s, %d bytes: %s", c.name, full.Wall.Round(time.Millisecond), full.Bytes, full.Summary)
			for _, after := range []time.Duration{300 * time.Millisecond, time.Second} {
				cut := runMillionChild(b, tree, c, after.String())
				metric := "cancel-" + after.String() + "-ms"
				if cut.Finished {
					b.Logf("%s ended in %s, before the cancel at %s", c.name, cut.Wall.Round(time.Millisecond), after)
					b.ReportMetric(0, metric)
					continue
				}
				b.ReportMetric(float64(cut.Latency.Microseconds())/1000, metric)
			}
		})
	}
}

// runMillionChild runs case c in a child, cancelled after cancelAfter
// when not "", and returns what it reports.
func runMillionChild(b *testing.B, tree string, c millionCase, cancelAfter string) millionResult {
	b.Helper()
	spec := c.name
	if cancelAfter != "" {
		spec += "@" + cancelAfter
	}
	cmd := exec.CommandContext(b.Context(), os.Args[0], "-test.run=^TestMillionChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), millionTreeEnv+"="+tree, millionChildEnv+"="+spec)
	if !c.rg {
		cmd.Env = append(cmd.Env, "PATH="+b.TempDir())
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child %s: %v\n%s%s", spec, err, out, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), millionResultPrefix); ok {
			var r millionResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				b.Fatalf("child %s: reading %q: %v", spec, line, err)
			}
			if r.Err != "" {
				b.Fatalf("child %s failed: %s", spec, r.Err)
			}
			return r
		}
	}
	b.Fatalf("child %s reported nothing:\n%s%s", spec, out, stderr.Bytes())
	return millionResult{}
}

// TestMillionChild is a child of BenchmarkMillionFiles; it runs only
// there.
func TestMillionChild(t *testing.T) {
	spec := os.Getenv(millionChildEnv)
	if spec == "" {
		t.Skip("run by BenchmarkMillionFiles")
	}
	name, after, cancels := strings.Cut(spec, "@")
	i := slices.IndexFunc(millionCases, func(c millionCase) bool { return c.name == name })
	if i < 0 {
		t.Fatalf("no case %q", name)
	}
	var cancelAfter time.Duration
	if cancels {
		var err error
		if cancelAfter, err = time.ParseDuration(after); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{os.Getenv(millionTreeEnv)}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	r := runMillionCase(t.Context(), ws, millionCases[i], cancelAfter)
	if r.PeakRSS, _, err = peakRSS(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(millionResultPrefix + string(line))
}

// runMillionCase runs c to its end or, when cancelAfter is not zero,
// cancels it then and times how long it takes to return.
func runMillionCase(ctx context.Context, ws *workspace.Workspace, c millionCase, cancelAfter time.Duration) millionResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var cancelledAt atomic.Pointer[time.Time]
	if cancelAfter > 0 {
		timer := time.AfterFunc(cancelAfter, func() {
			now := time.Now()
			cancelledAt.Store(&now)
			cancel()
		})
		defer timer.Stop()
	}
	start := time.Now()
	out, err := c.run(ctx, ws)
	end := time.Now()
	r := millionResult{Wall: end.Sub(start), Bytes: len(out), Summary: summary(out)}
	at := cancelledAt.Load()
	switch {
	case at == nil || err == nil: // ended before the cancel took
		r.Finished = true
		if err != nil {
			r.Err = err.Error()
		}
	case errors.Is(err, context.Canceled):
		r.Latency = end.Sub(*at)
	default:
		r.Err = fmt.Sprintf("cancelled, yet it returned %v", err)
	}
	return r
}

// summary is out's first line and those telling what was left out.
func summary(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	told := []string{lines[0]}
	for _, line := range lines[1:] {
		if strings.Contains(line, "(Reason: ") || strings.HasPrefix(line, "(") {
			told = append(told, line)
		}
	}
	return strings.Join(told, " … ")
}
