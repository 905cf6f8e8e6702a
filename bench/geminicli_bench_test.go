package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// The 8-call scenario of the whole-process comparison: the routing
// classifier's answer, seven tool calls (one of each kind a user's turn
// makes: list, read, glob, grep, replace, write, shell), then the answer.
// Both agents get the same script, so both make the same nine requests.
func scenario8() []geminitest.Turn {
	call := func(name string, args map[string]any) geminitest.Turn {
		return geminitest.CallTurn(geminitest.Call(name, args))
	}
	return []geminitest.Turn{
		geminitest.TextTurn(`{"complexity_reasoning": "A small edit.", "complexity_score": 12}`),
		call("list_directory", map[string]any{"dir_path": "."}),
		call("read_file", map[string]any{"file_path": "README.md"}),
		call("glob", map[string]any{"pattern": "**/*.go"}),
		call("grep_search", map[string]any{"pattern": "TODO"}),
		call("replace", map[string]any{"file_path": "README.md", "old_string": "Ten packages of handlers.",
			"new_string": "Ten packages of request handlers.", "instruction": "Say what the handlers handle."}),
		call("write_file", map[string]any{"file_path": "NOTES.md", "content": "# Notes\n\nSurveyed.\n"}),
		call("run_shell_command", map[string]any{"command": "ls pkg0", "description": "List pkg0."}),
		geminitest.TextTurn("Done: the README says what the handlers handle, and NOTES.md is written."),
	}
}

// processCost is one whole process's cost as the kernel accounted it.
type processCost struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // peak resident set, bytes
}

// measured runs commands through testdata/rusage, which reads their cost
// off the kernel as /usr/bin/time does (its doc says why not directly).
type measured struct {
	rusage string // the built testdata/rusage
	out    string // where it writes its line
}

func newMeasured(b *testing.B) measured {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "rusage")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/rusage").CombinedOutput(); err != nil {
		b.Fatalf("building testdata/rusage: %v\n%s", err, out)
	}
	return measured{rusage: bin, out: filepath.Join(dir, "rusage.json")}
}

// run runs cmd to its end and returns its cost and its stdout, or an error
// naming its stderr when it failed.
func (m measured) run(cmd *exec.Cmd) (processCost, string, error) {
	cmd.Args = append([]string{m.rusage, m.out, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = m.rusage
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return processCost{}, "", fmt.Errorf("%s: %v\n%s", cmd.Args[2], err, stderr.String())
	}
	data, err := os.ReadFile(m.out)
	if err != nil {
		return processCost{}, "", err
	}
	var ru struct {
		User   int64 `json:"user_ns"`
		Sys    int64 `json:"sys_ns"`
		MaxRSS int64 `json:"maxrss_kb"`
	}
	if err := json.Unmarshal(data, &ru); err != nil {
		return processCost{}, "", fmt.Errorf("reading %s: %w", m.out, err)
	}
	return processCost{wall: wall, cpu: time.Duration(ru.User + ru.Sys), rss: ru.MaxRSS * 1024}, stdout.String(), nil
}

// BenchmarkHeadlessVsGeminiCLI runs the 8-call scenario headless, yolo, as
// a whole process, gemini-ls and Gemini CLI 0.61 in turn (one pair an
// iteration, so both meet the same load), each in a fresh copy of one
// workspace with the same user settings (API-key auth, the default model
// `auto`, the workspace trusted) against the same fake model. Gemini CLI
// runs as its users run it, `gemini -p … --yolo`, relaunch included.
//
// Metrics: each program's wall, cpu and peak RSS medians, the time the
// fake model spent answering gemini-ls's nine requests (model-median-ms:
// part of its wall, and of Gemini CLI's), and the medians of
// the pair ratios gemini-ls ÷ Gemini CLI (wall-ratio, cpu-ratio).
// `make gemini-cli` installs 0.61; without it the benchmark is skipped
// (failed under CI).
func BenchmarkHeadlessVsGeminiCLI(b *testing.B) {
	js := geminicli.JS(b)
	model := newTimedModel(b)
	measure := newMeasured(b)
	home := b.TempDir()
	template := tempRoot(b)
	writeFiles(b, template, smallWorkspace())
	writeFiles(b, home, map[string]string{
		".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}}`,
	})
	parent := tempRoot(b)
	ws := filepath.Join(parent, "ws")
	writeFiles(b, home, map[string]string{".gemini/trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, ws)})

	fresh := func() {
		if err := os.RemoveAll(ws); err != nil {
			b.Fatal(err)
		}
		if err := os.CopyFS(ws, os.DirFS(template)); err != nil {
			b.Fatal(err)
		}
	}
	check := func(name, out string) {
		if left := model.Remaining(); left != 0 {
			b.Fatalf("%s left %d scripted model turns unused:\n%s", name, left, out)
		}
		notes, err := os.ReadFile(filepath.Join(ws, "NOTES.md"))
		if err != nil || !strings.Contains(string(notes), "Surveyed.") {
			b.Fatalf("%s did not write NOTES.md (%v):\n%s", name, err, out)
		}
		readme, _ := os.ReadFile(filepath.Join(ws, "README.md"))
		if !strings.Contains(string(readme), "request handlers") {
			b.Fatalf("%s did not edit README.md:\n%s", name, out)
		}
	}
	var modelTime []time.Duration // the fake model's answering, per gemini-ls run
	ours := func() processCost {
		fresh()
		model.Push(scenario8()...)
		spent, _ := model.Spent()
		cmd := exec.Command(binary, "run", "-C", ws, "-p", "do the task", "--approval-mode", "yolo", "--output-format", "json")
		cmd.Env = append(geminicli.Env(home, model.URL), "GEMINI_API_KEY=bench-key")
		cost, out, err := measure.run(cmd)
		if err != nil {
			b.Fatal(err)
		}
		check("gemini-ls", out)
		after, _ := model.Spent()
		modelTime = append(modelTime, after-spent)
		return cost
	}
	theirs := func() processCost {
		fresh()
		model.Push(scenario8()...)
		node, err := exec.LookPath("node")
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(node, js, "-p", "do the task", "--yolo", "--output-format", "json")
		cmd.Dir = ws
		// As a user runs it: the relaunch with a bigger heap left on.
		var env []string
		for _, kv := range geminicli.Env(home, model.URL) {
			if !strings.HasPrefix(kv, "GEMINI_CLI_NO_RELAUNCH=") {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		cost, out, err := measure.run(cmd)
		if err != nil {
			b.Fatal(err)
		}
		check("Gemini CLI", out)
		return cost
	}

	// One untimed pair: page cache, Node's compile cache.
	ours()
	theirs()
	var wall, cpu, rss, theirWall, theirCPU, theirRSS []time.Duration
	var wallRatio, cpuRatio []float64
	for b.Loop() {
		a := ours()
		g := theirs()
		wall, cpu, rss = append(wall, a.wall), append(cpu, a.cpu), append(rss, time.Duration(a.rss))
		theirWall, theirCPU, theirRSS = append(theirWall, g.wall), append(theirCPU, g.cpu), append(theirRSS, time.Duration(g.rss))
		wallRatio = append(wallRatio, float64(a.wall)/float64(g.wall))
		cpuRatio = append(cpuRatio, float64(a.cpu)/float64(g.cpu))
	}
	b.ReportMetric(ms(distributionOf(wall).median()), "wall-median-ms")
	b.ReportMetric(ms(distributionOf(cpu).median()), "cpu-median-ms")
	b.ReportMetric(ms(distributionOf(modelTime).median()), "model-median-ms")
	b.ReportMetric(mb(int64(distributionOf(rss).max())), "rss-max-MiB")
	b.ReportMetric(mb(int64(distributionOf(rss).median())), "rss-median-MiB")
	b.ReportMetric(ms(distributionOf(theirWall).median()), "gcli-wall-median-ms")
	b.ReportMetric(ms(distributionOf(theirCPU).median()), "gcli-cpu-median-ms")
	b.ReportMetric(mb(int64(distributionOf(theirRSS).median())), "gcli-rss-median-MiB")
	b.ReportMetric(distributionOf(wallRatio).median(), "wall-ratio-median")
	b.ReportMetric(distributionOf(cpuRatio).median(), "cpu-ratio-median")
}
