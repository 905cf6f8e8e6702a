package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// agentCalls is an agent's turn: eight calls, one per model answer, in
// its own worktree (paths are relative to its root): a survey, then a
// file of its own written and read back. NAME is the agent's worktree.
var agentCalls = []struct {
	name string
	args map[string]any
}{
	{"list_directory", map[string]any{"path": "."}},
	{"glob", map[string]any{"pattern": "**/*.go"}},
	{"grep_search", map[string]any{"pattern": `func Handle\w+`, "include": "*.go"}},
	{"read_file", map[string]any{"path": "pkg3/file5.go"}},
	{"write_file", map[string]any{"file_path": "agent.txt", "content": "written by NAME\n"}},
	{"read_file", map[string]any{"path": "agent.txt"}},
	{"grep_search", map[string]any{"pattern": "TODO"}},
	{"list_directory", map[string]any{"path": "pkg7"}},
}

// agentDone is every agent's final text.
const agentDone = "Done."

// worktreeInBody finds the agent's worktree name in a request: its
// root, which its system instruction and its tools' results name. The
// benchmarks' names are letters, digits and "-", so a sentence's full
// stop after the path is not taken for part of it.
var worktreeInBody = regexp.MustCompile(`\.gemini/worktrees/([A-Za-z0-9-]+)`)

// agentModelTurn answers any agent's request from the request itself,
// so agents running at once each get their own turn whatever order
// their requests come in: call k of agentCalls once k calls were
// answered (function responses in its contents), then agentDone.
// delay is waited before each answer, as a model's latency.
func agentModelTurn(delay time.Duration) geminitest.Turn {
	return geminitest.Turn{From: func(req geminitest.Request) geminitest.Turn {
		name := "unknown"
		if m := worktreeInBody.FindSubmatch(req.Body); m != nil {
			name = string(m[1])
		}
		answered := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					answered++
				}
			}
		}
		turn := geminitest.TextTurn(agentDone)
		if answered < len(agentCalls) {
			c := agentCalls[answered]
			args := map[string]any{}
			for k, v := range c.args {
				if s, ok := v.(string); ok {
					v = strings.ReplaceAll(s, "NAME", name)
				}
				args[k] = v
			}
			turn = geminitest.CallTurn(geminitest.Call(c.name, args))
		}
		turn.Delay = delay
		return turn
	}}
}

// gitWorkspace is a git repository holding files, committed on main,
// its path real, as a user's workspace is.
func gitWorkspace(b *testing.B, files map[string]string) string {
	b.Helper()
	root := tempRoot(b)
	writeFiles(b, root, files)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "first"}} {
		if out, err := runGit(root, args...); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	return root
}

// runGit runs git in dir with an identity of its own.
func runGit(dir string, args ...string) ([]byte, error) {
	out, err := gitCommand(dir, append([]string{"-c", "user.email=bench@example.com", "-c", "user.name=bench"}, args...)...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), dir, err)
	}
	return out, nil
}

// gitCommand is git with args in dir, reading no system or user
// configuration, as the server's git reads none.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	return cmd
}

// agentsRun is one server's agents, started at once.
type agentsRun struct {
	wall    time.Duration // first gemini/prompt written → last result read
	started time.Duration // first gemini/prompt written → the last agent announced
	cpu     time.Duration // the server's CPU time over them
	peakRSS int64         // the server's VmHWM once shutdown was answered
}

// runAgents starts a server on a new repository, sends n gemini/prompt
// with a worktree each at once, and checks that every agent ended its
// turn with its eight tools run and its own file in its own worktree,
// and the main tree untouched. The server is stopped after.
func runAgents(ctx context.Context, b *testing.B, model *timedModel, n int, delay time.Duration) agentsRun {
	b.Helper()
	root := gitWorkspace(b, smallWorkspace())
	s := startTurnServer(ctx, b, model, root)
	for range n * (len(agentCalls) + 1) {
		model.Push(agentModelTurn(delay))
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("agent-%d", i+1)
	}
	pid := s.proc.Cmd.Process.Pid
	cpuBefore, cpuErr := cpuTime(pid)
	agentsBefore := len(s.client.Messages("gemini/agent"))
	mark := s.wire.mark()
	results := make([]promptResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			errs[i] = s.client.Call(ctx, "gemini/prompt", map[string]any{"prompt": "Survey the handlers, then note who you are in agent.txt.", "worktree": name}, &results[i])
		})
	}
	wg.Wait()
	cpuAfter, err := cpuTime(pid)
	if cpuErr == nil {
		cpuErr = err
	}
	for i, name := range names {
		if errs[i] != nil || results[i].StopReason != "end_turn" || results[i].Text != agentDone {
			b.Fatalf("agent %s of %d ended %+v, %v", name, n, results[i], errs[i])
		}
	}
	if left := model.Remaining(); left != 0 {
		b.Fatalf("%d agents ended with %d scripted model turns unused", n, left)
	}
	if err := checkAgents(root, names, results, s.client.Messages("gemini/update")); err != nil {
		b.Fatal(err)
	}
	frames, err := s.wire.since(mark)
	if err != nil {
		b.Fatal(err)
	}
	sent, _, ok := first(frames, 0, isRequest("gemini/prompt", toServer))
	if !ok {
		b.Fatal("no gemini/prompt on the wire")
	}
	// The prompts are the editor's only requests meanwhile: the nth
	// answer from the server is the last agent's result.
	var last frame
	answers := 0
	for _, f := range frames {
		if isResponse(fromServer)(f) {
			last = f
			answers++
		}
	}
	if answers != n {
		b.Fatalf("%d answers from the server on the wire, want %d", answers, n)
	}
	announced := announcedAt(frames, s.client.Messages("gemini/agent")[agentsBefore:])
	var started time.Time
	for _, name := range names {
		at, ok := announced[name]
		if !ok {
			b.Fatalf("agent %s was never announced (gemini/agent)", name)
		}
		if at.After(started) {
			started = at
		}
	}
	if err := s.stop(ctx); err != nil {
		b.Fatal(err)
	}
	run := agentsRun{wall: last.At.Sub(sent.At), started: started.Sub(sent.At), peakRSS: s.peakRSS}
	if cpuErr == nil {
		run.cpu = cpuAfter - cpuBefore
	}
	return run
}

// announcedAt is when each agent (by its worktree's name) was first
// told of by a gemini/agent notification: its worktree made, its agent
// built, its session open. frames are the wire's since the messages
// began; messages are the editor's gemini/agent notifications, in the
// order it read them, as the wire has them.
func announcedAt(frames []frame, messages []lsptest.Message) map[string]time.Time {
	at := map[string]time.Time{}
	i := 0
	for _, f := range frames {
		if !isRequest("gemini/agent", fromServer)(f) {
			continue
		}
		if i == len(messages) {
			break
		}
		var a struct {
			Worktree struct {
				Name string `json:"name"`
			} `json:"worktree"`
		}
		if json.Unmarshal(messages[i].Params, &a) == nil {
			if _, seen := at[a.Worktree.Name]; !seen {
				at[a.Worktree.Name] = f.At
			}
		}
		i++
	}
	return at
}

// checkAgents checks each agent's work: its eight tool calls all ran,
// its worktree (on its branch) holds agent.txt naming it, and the main
// tree has none.
func checkAgents(root string, names []string, results []promptResult, updates []lsptest.Message) error {
	toolResults := map[string]int{}
	for _, m := range updates {
		var u struct {
			SessionID, Kind, Name, Status, Display string
		}
		if err := json.Unmarshal(m.Params, &u); err != nil {
			return fmt.Errorf("bad gemini/update %s: %w", m.Params, err)
		}
		if u.Kind != "toolResult" {
			continue
		}
		if u.Status != "ok" {
			return fmt.Errorf("an agent's %s ended %s: %s", u.Name, u.Status, u.Display)
		}
		toolResults[u.SessionID]++
	}
	for i, name := range names {
		if got := toolResults[results[i].SessionID]; got != len(agentCalls) {
			return fmt.Errorf("agent %s had %d tool results, want %d", name, got, len(agentCalls))
		}
		wt := filepath.Join(root, filepath.FromSlash(worktree.Dir), name)
		got, err := os.ReadFile(filepath.Join(wt, "agent.txt"))
		if want := "written by " + name + "\n"; err != nil || string(got) != want {
			return fmt.Errorf("agent %s's worktree holds agent.txt %q (%v), want %q", name, got, err, want)
		}
		branch, err := runGit(wt, "branch", "--show-current")
		if err != nil || strings.TrimSpace(string(branch)) != worktree.BranchPrefix+name {
			return fmt.Errorf("agent %s's worktree is on %q (%v)", name, branch, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "agent.txt")); !os.IsNotExist(err) {
		return fmt.Errorf("the main tree has agent.txt (%v): an agent's edit reached it", err)
	}
	return nil
}

// BenchmarkAgents8AtOnce is issue 97's fleet: eight agents started at
// once over one connection to one server (gemini/prompt with a worktree
// each), each an eight-tool turn (agentCalls) in its own worktree of a
// git repository of 102 files, against one agent alone doing the same.
// Each iteration spawns two servers on new repositories, one for each
// case, in turn (each first in every other iteration), so both see the
// same machine; a process each, so each one's peak RSS is its own.
// It fails unless every agent ends its turn with its eight tools run
// and its own file in its own worktree.
//
// Sub-benchmarks: model=instant answers at once (the server's own work,
// competing for two cores with the benchmark process); model=200ms
// waits 200 ms before each answer, as a model does, so the agents'
// turns overlap as they would with a real one.
//
// Metrics:
//   - wall-1, wall-8: the first gemini/prompt written → the last result
//     read (the worktrees' creation included).
//   - started-1, started-8: the first gemini/prompt written → the last
//     agent announced (gemini/agent): worktrees made, agents built,
//     sessions open; median.
//   - wall-ratio: the median over iterations of wall-8 / wall-1 (8
//     would be no better than one after another).
//   - cpu-1-ms, cpu-8-ms: the server's CPU time over the prompts,
//     median.
//   - rss-1, rss-8: the server's peak RSS (VmHWM after shutdown is
//     answered), median and max.
func BenchmarkAgents8AtOnce(b *testing.B) {
	for _, c := range []struct {
		name  string
		delay time.Duration
	}{{"model=instant", 0}, {"model=200ms", 200 * time.Millisecond}} {
		b.Run(c.name, func(b *testing.B) { benchmarkAgentsAtOnce(b, 8, c.delay) })
	}
}

func benchmarkAgentsAtOnce(b *testing.B, n int, delay time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	model := newTimedModel(b)
	var wall1, wall8, started1, started8, cpu1, cpu8 []time.Duration
	var rss1, rss8 []int64
	var ratios []float64
	for i := 0; b.Loop(); i++ {
		var one, many agentsRun
		if i%2 == 0 {
			one = runAgents(ctx, b, model, 1, delay)
			many = runAgents(ctx, b, model, n, delay)
		} else {
			many = runAgents(ctx, b, model, n, delay)
			one = runAgents(ctx, b, model, 1, delay)
		}
		wall1, wall8 = append(wall1, one.wall), append(wall8, many.wall)
		started1, started8 = append(started1, one.started), append(started8, many.started)
		cpu1, cpu8 = append(cpu1, one.cpu), append(cpu8, many.cpu)
		if one.peakRSS > 0 && many.peakRSS > 0 {
			rss1, rss8 = append(rss1, one.peakRSS), append(rss8, many.peakRSS)
		}
		ratios = append(ratios, float64(many.wall)/float64(one.wall))
	}
	reportMS(b, "wall-1", distributionOf(wall1))
	reportMS(b, fmt.Sprintf("wall-%d", n), distributionOf(wall8))
	b.ReportMetric(distributionOf(ratios).median(), "wall-ratio-median")
	b.ReportMetric(ms(distributionOf(started1).median()), "started-1-median-ms")
	b.ReportMetric(ms(distributionOf(started8).median()), fmt.Sprintf("started-%d-median-ms", n))
	b.ReportMetric(ms(distributionOf(cpu1).median()), "cpu-1-median-ms")
	b.ReportMetric(ms(distributionOf(cpu8).median()), fmt.Sprintf("cpu-%d-median-ms", n))
	if len(rss1) > 0 {
		b.ReportMetric(mb(distributionOf(rss1).median()), "rss-1-median-MB")
		b.ReportMetric(mb(distributionOf(rss1).max()), "rss-1-max-MB")
		b.ReportMetric(mb(distributionOf(rss8).median()), fmt.Sprintf("rss-%d-median-MB", n))
		b.ReportMetric(mb(distributionOf(rss8).max()), fmt.Sprintf("rss-%d-max-MB", n))
	}
}

// BenchmarkAgentWorktreeVsGitWorktreeAdd is what starting an agent costs
// against the git command at its heart, on one repository of 102 files
// and one server, three ways in turn in each iteration (the order
// rotating):
//
//   - git: `git worktree add -b worktree-NAME -- .gemini/worktrees/NAME`
//     run directly, exec to exit.
//   - create: worktree.Create in the benchmark's process, the server's
//     first step: its name checked, then four git processes (rev-parse
//     --git-common-dir for the project's root, check-ref-format --branch,
//     rev-parse HEAD for the base, and the worktree add).
//   - start: gemini/prompt with a worktree written → the agent announced
//     (gemini/agent): create, then the agent built for the worktree (its
//     workspace, settings, memory, tools, sandbox policy, as initialize
//     builds the user's) and its session opened.
//   - prompt: the same gemini/prompt → its result read, minus the time
//     the fake model spent on its one answer ("Done."): start, then the
//     turn, and the worktree's work read with git (diff and ls-files)
//     for the agents view.
//
// Each worktree is removed untimed after (git's and create's with git,
// the agent's with gemini/discardAgent), so every iteration meets the
// same repository. Metrics: each one's median/p90/max, and the medians
// of the per-iteration ratios over git (create-ratio-median,
// start-ratio-median, prompt-ratio-median).
func BenchmarkAgentWorktreeVsGitWorktreeAdd(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	model := newTimedModel(b)
	root := gitWorkspace(b, smallWorkspace())
	s := startTurnServer(ctx, b, model, root)
	// The first agent pays for the first connection to the model and
	// whatever the server sets up once.
	if _, _, err := startAgentOnce(ctx, s, model, root, "warm-up"); err != nil {
		b.Fatal(err)
	}
	if err := discardAgent(ctx, s, "warm-up"); err != nil {
		b.Fatal(err)
	}
	var gits, creates, starts, prompts []time.Duration
	var createRatios, startRatios, promptRatios []float64
	for i := 0; b.Loop(); i++ {
		var git, create, start, prompt time.Duration
		steps := []func(){
			func() {
				name := fmt.Sprintf("git-%d", i)
				path := filepath.Join(root, filepath.FromSlash(worktree.Dir), name)
				cmd := gitCommand(root, "worktree", "add", "-b", worktree.BranchPrefix+name, "--", path)
				t0 := time.Now()
				out, err := cmd.CombinedOutput()
				git = time.Since(t0)
				if err != nil {
					b.Fatalf("git worktree add: %v\n%s", err, out)
				}
				removeWorktree(b, root, path, worktree.BranchPrefix+name)
			},
			func() {
				t0 := time.Now()
				wt, err := worktree.Create(ctx, root, fmt.Sprintf("create-%d", i), time.Now())
				create = time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				removeWorktree(b, root, wt.Path, wt.Branch)
			},
			func() {
				name := fmt.Sprintf("agent-%d", i)
				var err error
				start, prompt, err = startAgentOnce(ctx, s, model, root, name)
				if err != nil {
					b.Fatal(err)
				}
				if err := discardAgent(ctx, s, name); err != nil {
					b.Fatal(err)
				}
			},
		}
		for k := range steps {
			steps[(i+k)%len(steps)]()
		}
		gits, creates, starts, prompts = append(gits, git), append(creates, create), append(starts, start), append(prompts, prompt)
		createRatios = append(createRatios, float64(create)/float64(git))
		startRatios = append(startRatios, float64(start)/float64(git))
		promptRatios = append(promptRatios, float64(prompt)/float64(git))
	}
	if err := s.stop(ctx); err != nil {
		b.Fatal(err)
	}
	reportMS(b, "git", distributionOf(gits))
	reportMS(b, "create", distributionOf(creates))
	reportMS(b, "start", distributionOf(starts))
	reportMS(b, "prompt", distributionOf(prompts))
	b.ReportMetric(distributionOf(createRatios).median(), "create-ratio-median")
	b.ReportMetric(distributionOf(startRatios).median(), "start-ratio-median")
	b.ReportMetric(distributionOf(promptRatios).median(), "prompt-ratio-median")
}

// startAgentOnce starts the agent name in the repository at root with a prompt the model answers
// at once, and reads off the wire how long until it was announced
// (start) and until its result less the model's time (prompt). It
// checks the agent ended its turn in its worktree, on its branch.
func startAgentOnce(ctx context.Context, s *server, model *timedModel, root, name string) (start, prompt time.Duration, err error) {
	model.Push(geminitest.TextTurn(agentDone))
	spentBefore, callsBefore := model.Spent()
	agentsBefore := len(s.client.Messages("gemini/agent"))
	mark := s.wire.mark()
	var res promptResult
	if err := s.client.Call(ctx, "gemini/prompt", map[string]any{"prompt": "Say done.", "worktree": name}, &res); err != nil {
		return 0, 0, fmt.Errorf("gemini/prompt of agent %s: %w", name, err)
	}
	if res.StopReason != "end_turn" || res.Text != agentDone {
		return 0, 0, fmt.Errorf("agent %s ended %+v", name, res)
	}
	spent, err := model.WaitSpent(ctx, callsBefore+1)
	if err != nil {
		return 0, 0, err
	}
	frames, err := s.wire.since(mark)
	if err != nil {
		return 0, 0, err
	}
	sent, _, ok := first(frames, 0, isRequest("gemini/prompt", toServer))
	if !ok {
		return 0, 0, fmt.Errorf("no gemini/prompt on the wire")
	}
	result, _, ok := first(frames, 0, isResponse(fromServer))
	if !ok {
		return 0, 0, fmt.Errorf("no gemini/prompt result on the wire")
	}
	announced, ok := announcedAt(frames, s.client.Messages("gemini/agent")[agentsBefore:])[name]
	if !ok {
		return 0, 0, fmt.Errorf("agent %s was never announced (gemini/agent)", name)
	}
	wt := filepath.Join(root, filepath.FromSlash(worktree.Dir), name)
	if branch, err := runGit(wt, "branch", "--show-current"); err != nil || strings.TrimSpace(string(branch)) != worktree.BranchPrefix+name {
		return 0, 0, fmt.Errorf("agent %s's worktree %s is on %q (%v)", name, wt, branch, err)
	}
	return announced.Sub(sent.At), result.At.Sub(sent.At) - (spent - spentBefore), nil
}

// discardAgent discards the agent name (the editor's default answer to
// the question is its first action, Discard) and waits until the editor
// was told, so no notification of it falls in the next one's interval.
func discardAgent(ctx context.Context, s *server, name string) error {
	var res struct {
		Discarded bool `json:"discarded"`
	}
	if err := s.client.Call(ctx, "gemini/discardAgent", map[string]any{"worktree": name}, &res); err != nil || !res.Discarded {
		return fmt.Errorf("discarding agent %s: %+v, %v", name, res, err)
	}
	_, err := s.client.WaitMessage(ctx, "gemini/agent", func(p json.RawMessage) bool {
		var a struct {
			State    string `json:"state"`
			Worktree struct {
				Name string `json:"name"`
			} `json:"worktree"`
		}
		return json.Unmarshal(p, &a) == nil && a.State == "discarded" && a.Worktree.Name == name
	})
	return err
}

// removeWorktree removes a worktree and its branch with git.
func removeWorktree(b *testing.B, root, path, branch string) {
	b.Helper()
	for _, args := range [][]string{{"worktree", "remove", "--force", "--", path}, {"branch", "-D", "--", branch}} {
		if out, err := runGit(root, args...); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}
