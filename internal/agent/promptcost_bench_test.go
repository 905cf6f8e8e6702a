//go:build unix

package agent_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// fakePromptsEnv makes the test binary serve the fake Gemini API for
// BenchmarkPromptSevenToolTurns instead of running tests: its value is how
// many scripted prompts to serve. The fake runs in its own process so that
// the benchmark's getrusage and allocation counts are the agent's alone.
const fakePromptsEnv = "GEMINI_LS_BENCH_FAKE_PROMPTS"

func TestMain(m *testing.M) {
	if n := os.Getenv(fakePromptsEnv); n != "" {
		os.Exit(serveFakeGemini(n))
	}
	os.Exit(m.Run())
}

// sevenToolCalls is the scripted prompt's model side: one read-only or
// thinking call per answer over the small workspace of benchWorkspace.
var sevenToolCalls = []struct {
	name string
	args map[string]any
}{
	{tools.ListDirectoryName, map[string]any{"path": "."}},
	{tools.ReadFileName, map[string]any{"path": "main.go"}},
	{tools.GlobName, map[string]any{"pattern": "**/*.go"}},
	{tools.GrepSearchName, map[string]any{"pattern": "TODO"}},
	{tools.ReadFileName, map[string]any{"path": "pkg/util.go"}},
	{tools.WriteTodosName, map[string]any{"todos": []any{
		map[string]any{"description": "Read the handlers", "status": "completed"},
		map[string]any{"description": "Answer", "status": "in_progress"},
	}}},
	{tools.ListDirectoryName, map[string]any{"path": "pkg"}},
}

// sevenToolTurns is one prompt's answers: seven calls, then the text.
func sevenToolTurns() []geminitest.Turn {
	var turns []geminitest.Turn
	for _, c := range sevenToolCalls {
		turns = append(turns, geminitest.CallTurn(geminitest.Call(c.name, c.args)))
	}
	return append(turns, geminitest.TextTurn("main calls the helper in pkg."))
}

// serveFakeGemini serves prompts scripted prompts, says where on its
// first line of output and serves until its input closes. It returns the
// exit status: 1 when a request could not be answered as scripted.
func serveFakeGemini(prompts string) int {
	n, err := strconv.Atoi(prompts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: %v\n", fakePromptsEnv, prompts, err)
		return 2
	}
	var turns []geminitest.Turn
	for range n {
		turns = append(turns, sevenToolTurns()...)
	}
	srv, err := geminitest.Start(geminitest.Options{}, turns...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	srv.Close()
	if err := srv.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// fakeProcess is the fake Gemini API running in a child process.
type fakeProcess struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func startFakeProcess(b *testing.B, prompts int) *fakeProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fakePromptsEnv+"="+strconv.Itoa(prompts))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting the fake Gemini process: %v", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatalf("reading the fake Gemini process's URL: %v", err)
	}
	f := &fakeProcess{URL: strings.TrimSpace(line), cmd: cmd, stdin: stdin}
	b.Cleanup(func() {
		if cmd.ProcessState == nil { // not stopped: the benchmark failed
			_, _ = f.stop()
		}
	})
	return f
}

// stop ends the fake and returns the CPU time it spent.
func (f *fakeProcess) stop() (time.Duration, error) {
	f.stdin.Close()
	if err := f.cmd.Wait(); err != nil {
		return 0, fmt.Errorf("the fake Gemini process: %w", err)
	}
	ru, ok := f.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no rusage for the fake Gemini process")
	}
	return cpuTime(ru), nil
}

func cpuTime(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return cpuTime(&ru)
}

// gcCPU reads the Go runtime's estimate of the CPU its collector used and
// of the CPU the process's Go code and runtime used (total less idle).
func gcCPU() (gc, busy float64) {
	s := []metrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
	}
	metrics.Read(s)
	return s[0].Value.Float64(), s[1].Value.Float64() - s[2].Value.Float64()
}

// benchWorkspace is a small Go module with a skill, whose root is
// returned with the workspace over it.
func benchWorkspace(b *testing.B) (string, *workspace.Workspace) {
	b.Helper()
	root := b.TempDir()
	files := map[string]string{
		"go.mod":                         "module example.com/bench\n\ngo 1.26\n",
		"main.go":                        "package main\n\nimport \"example.com/bench/pkg\"\n\nfunc main() { pkg.Helper() } // TODO: flags\n",
		"pkg/util.go":                    "package pkg\n\n// Helper helps.\nfunc Helper() {} // TODO: help\n",
		"README.md":                      "# bench\n",
		".gemini/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews a change.\n---\nRead the diff first.\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return root, ws
}

// BenchmarkPromptSevenToolTurns is one prompt whose model makes seven tool
// calls (list_directory, read_file, glob, grep_search, read_file,
// write_todos, list_directory) in seven answers before its final text:
// eight model requests through the real genai client, each declaring the
// built-in tools as setup offers them by default (plan mode's and
// activate_skill included) and invoke_agent with the three built-in
// subagents. Each prompt is a new session.
//
// The fake Gemini API runs in a child process (this test binary again),
// so everything measured here is the agent's: the turn loop, the tools'
// work, genai's encoding of the requests and decoding of the answers, HTTP.
//
// Metrics, per prompt (op) unless named otherwise:
//   - cpu-ms/tool-turn: this process's user+system CPU (getrusage
//     RUSAGE_SELF) over the prompts, / 7.
//   - fake-cpu-ms/tool-turn: the fake's CPU likewise, to show it is out.
//   - gc-%-of-cpu: the collector's share of the CPU the Go code and runtime
//     used (runtime/metrics: gc/total over total less idle).
//   - B/op, allocs/op: b.ReportAllocs, per prompt.
func BenchmarkPromptSevenToolTurns(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	fake := startFakeProcess(b, b.N+1) // one warm-up prompt
	root, ws := benchWorkspace(b)
	catalog, problems := skills.Discover(skills.Config{Roots: []string{root}, Trusted: func(string) bool { return true }})
	if len(problems) > 0 || len(catalog.Enabled()) != 1 {
		b.Fatalf("skills: %v, %d enabled", problems, len(catalog.Enabled()))
	}
	// The built-in subagents, offered as setup offers them by default:
	// invoke_agent declared, the agents listed in the system prompt.
	subagents, errs := subagents.Load(ctx, subagents.Options{BuiltIn: subagents.BuiltInContext{MainModel: "gemini-2.5-pro"}})
	if len(errs) > 0 || len(subagents.Active()) != 3 {
		b.Fatalf("subagents: %v, %d active", errs, len(subagents.Active()))
	}
	a := agent.New(agent.Config{
		Generator: auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Version: "bench", Config: genai.ClientConfig{
			APIKey: "bench-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: fake.URL},
		}}),
		Agents:    subagents,
		Model:     "gemini-2.5-pro",
		Workspace: ws,
		Tools: tools.NewRegistry(tools.Builtin(tools.Options{
			Workspace: ws, Skills: catalog, Plan: tools.PlanOptions{Enabled: true},
		})...),
	})
	onePrompt := func() {
		s := a.NewSession()
		res, err := s.Prompt(ctx, dialog.Input{Text: "What does main call?"}, front{}.port(func(dialog.Event) {}))
		if err != nil || res.StopReason != dialog.StopEndTurn || res.Err != nil || res.ToolCalls != len(sevenToolCalls) {
			b.Fatalf("prompt: %v; result %+v", err, res)
		}
		a.EndSession(s.ID())
	}
	onePrompt() // the first connection, and what is set up lazily

	b.ReportAllocs()
	b.ResetTimer()
	cpuBefore := selfCPU(b)
	gcBefore, busyBefore := gcCPU()
	for range b.N {
		onePrompt()
	}
	gcAfter, busyAfter := gcCPU()
	cpu := selfCPU(b) - cpuBefore
	b.StopTimer()

	fakeCPU, err := fake.stop()
	if err != nil {
		b.Fatal(err)
	}
	toolTurns := float64(b.N * len(sevenToolCalls))
	b.ReportMetric(float64(cpu.Microseconds())/1000/toolTurns, "cpu-ms/tool-turn")
	// The fake served the warm-up prompt too.
	b.ReportMetric(float64(fakeCPU.Microseconds())/1000/(toolTurns+float64(len(sevenToolCalls))), "fake-cpu-ms/tool-turn")
	if busy := busyAfter - busyBefore; busy > 0 {
		b.ReportMetric(100*(gcAfter-gcBefore)/busy, "gc-%-of-cpu")
	}
}
