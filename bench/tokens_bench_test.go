package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// tokenTask is one of issue 89's scripted sessions: prompts run one
// process each, headless and yolo, every one after the first continuing
// the session with --resume latest.
type tokenTask struct {
	name     string
	files    map[string]string // the workspace
	settings string            // the user's settings.json, beside auth
	prompts  []scriptedPrompt
}

// scriptedPrompt is a prompt and the main agent's answers to it; the
// utility calls (router, compression) are answered by tokenRules.
type scriptedPrompt struct {
	text  string
	turns []geminitest.Turn
}

// bigFile is 208 KB of text in lines both agents' read_file reads whole
// (under 2,000 lines, none over 2,000 characters).
func bigFile(tag string) string {
	var b strings.Builder
	for i := 0; b.Len() < 208<<10; i++ {
		fmt.Fprintf(&b, "%s line %04d: %s\n", tag, i, strings.Repeat("lorem ipsum dolor sit amet ", 7))
	}
	return b.String()
}

func readCall(file string) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": file}))
}

// chatter is n prompts answered with a line each.
func chatter(n int, from int) []scriptedPrompt {
	var out []scriptedPrompt
	for i := range n {
		out = append(out, scriptedPrompt{text: fmt.Sprintf("question %d", from+i), turns: []geminitest.Turn{geminitest.TextTurn(fmt.Sprintf("Answer %d.", from+i))}})
	}
	return out
}

// gemini.md is the memory file of the memory task, about 2 KB.
func geminiMD() string {
	return "# Project rules\n\n" + strings.Repeat("- Keep functions small and names plain; test every behaviour.\n", 32)
}

// tokenTasks are issue 89's tasks.
func tokenTasks() []tokenTask {
	ws := smallWorkspace()
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range ws {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	readThen := func(files ...string) []scriptedPrompt {
		var out []scriptedPrompt
		for i, f := range files {
			out = append(out, scriptedPrompt{text: "read " + f, turns: []geminitest.Turn{readCall(f), geminitest.TextTurn(fmt.Sprintf("Read part %d.", i+1))}})
		}
		return append(out, chatter(10, 1)...)
	}
	edit := scriptedPrompt{text: "add a rule to GEMINI.md", turns: []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("replace", map[string]any{"file_path": "GEMINI.md", "old_string": "# Project rules\n",
			"new_string": "# Project rules\n\n- Say what changed in each commit.\n", "instruction": "Add the commit rule."})),
		geminitest.TextTurn("Added."),
	}}
	return []tokenTask{
		{name: "turn8", files: ws, prompts: []scriptedPrompt{{text: "do the task", turns: scenario8()[1:]}}},
		{name: "resume30", files: ws, prompts: chatter(30, 1)},
		{name: "read208", files: with(map[string]string{"big.txt": bigFile("a")}), prompts: readThen("big.txt")},
		{name: "read208x2", files: with(map[string]string{"big.txt": bigFile("a"), "big2.txt": bigFile("b")}), prompts: readThen("big.txt", "big2.txt")},
		{name: "memory-edit", files: with(map[string]string{"GEMINI.md": geminiMD()}),
			prompts: append(append(chatter(4, 1), edit), chatter(5, 5)...)},
		// 3% of a 1,048,576-token window: the read (about 53k tokens) is
		// over it, so the next prompt compresses.
		{name: "compression", files: with(map[string]string{"big.txt": bigFile("a")}), settings: `"model": {"compressionThreshold": 0.03}`,
			prompts: append([]scriptedPrompt{{text: "read big.txt", turns: []geminitest.Turn{readCall("big.txt"), geminitest.TextTurn("Read.")}}}, chatter(5, 1)...)},
	}
}

// tokenRules answer the utility calls of both agents, which the main
// agent's script does not hold: the router's classifier, and
// compression's summary and its check (the check's rule first: its
// request holds the summary prompt too).
func tokenRules() []geminitest.Rule {
	return []geminitest.Rule{
		{Contains: `"complexity_score"`, Turn: geminitest.TextTurn(`{"complexity_reasoning": "A small task.", "complexity_score": 12}`)},
		{Contains: "Critically evaluate the <state_snapshot> you just generated", Turn: geminitest.TextTurn("<state_snapshot>The user read big.txt; nothing is pending.</state_snapshot>")},
		{Contains: "distilling chat history into a structured XML", Turn: geminitest.TextTurn("<state_snapshot>The user read big.txt.</state_snapshot>")},
	}
}

// tokenAgent runs one prompt of a task in ws with home, against url.
type tokenAgent struct {
	name string
	run  func(b *testing.B, home, ws, url, prompt string, resume bool) error
}

func geminiLSAgent() tokenAgent {
	return tokenAgent{name: "gemini-ls", run: func(b *testing.B, home, ws, url, prompt string, resume bool) error {
		args := []string{"run", "-C", ws, "-p", prompt, "--approval-mode", "yolo", "--output-format", "json"}
		if resume {
			args = append(args, "--resume", "latest")
		}
		cmd := exec.Command(binary, args...)
		cmd.Env = append(geminicli.Env(home, url), "GEMINI_API_KEY=bench-key")
		return runQuiet(cmd)
	}}
}

func geminiCLIAgent(js string) tokenAgent {
	return tokenAgent{name: "Gemini CLI " + geminicli.Version, run: func(b *testing.B, home, ws, url, prompt string, resume bool) error {
		args := []string{js, "-p", prompt, "--yolo", "--output-format", "json"}
		if resume {
			args = append(args, "--resume", "latest")
		}
		cmd := exec.Command("node", args...)
		cmd.Dir = ws
		cmd.Env = geminicli.Env(home, url)
		return runQuiet(cmd)
	}}
}

// runQuiet runs cmd, its output kept for the error when it fails.
func runQuiet(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", cmd.Args[0], err, out)
	}
	return nil
}

// runTokenTask runs task with agent in a home and workspace of its own,
// against a fake model of its own, and returns what its requests cost.
func runTokenTask(b *testing.B, task tokenTask, agent tokenAgent) tokenBill {
	model := geminitest.NewTestServer(b)
	for _, r := range tokenRules() {
		model.AddRule(r)
	}
	home, parent := tempRoot(b), tempRoot(b)
	ws := filepath.Join(parent, "ws")
	writeFiles(b, ws, task.files)
	settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}`
	if task.settings != "" {
		settings += ", " + task.settings
	}
	writeFiles(b, home, map[string]string{
		".gemini/settings.json":       settings + "}",
		".gemini/trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, ws),
	})
	for i, p := range task.prompts {
		model.Push(p.turns...)
		if err := agent.run(b, home, ws, model.URL, p.text, i > 0); err != nil {
			b.Fatalf("%s, %s, prompt %d: %v", task.name, agent.name, i+1, err)
		}
		if left := model.Remaining(); left != 0 {
			b.Fatalf("%s, %s, prompt %d left %d scripted turns unused", task.name, agent.name, i+1, left)
		}
	}
	writeTokenBodies(b, task.name, agent.name, model.Requests())
	return billOf(model.Requests())
}

// writeTokenBodies writes each request's body to
// $TOKENS_BODIES/TASK/AGENT/NNN-MODEL.json, when set, to read what a
// request held.
func writeTokenBodies(b *testing.B, task, agent string, reqs []geminitest.Request) {
	root := os.Getenv("TOKENS_BODIES")
	if root == "" {
		return
	}
	dir := filepath.Join(root, task, strings.ReplaceAll(agent, " ", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i, r := range reqs {
		name := fmt.Sprintf("%03d-%s-%s.json", i+1, r.Method, r.Model)
		if err := os.WriteFile(filepath.Join(dir, name), r.Body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokens runs issue 89's tasks with gemini-ls and with Gemini
// CLI 0.61 (skipped without it; TOKENS_GEMINI_CLI=0 runs gemini-ls
// alone), each against a fake model of its own, and reports per task what
// their requests cost (docs/benchmarks.md, "What a session costs in
// tokens"): input-tokens (every request's JSON body, characters / 4,
// utility calls included), cost-tokens (the same with input repeated from
// an earlier request to the same model billed at a quarter, as implicit
// caching bills it), requests, and the cached-prefix share of the
// requests after the first (prefix-share-median, -min), and
// explicit-cost-tokens (the cost had the system instruction and tools
// been put in an explicit cache kept an hour); gcli-* the same
// for 0.61, and the ratios gemini-ls ÷ 0.61. The figures do not depend
// on the machine: make bench-check flags a task whose tokens grew more
// than 5%. TOKENS_REPORT names a file for each request's figures,
// TOKENS_BODIES a directory for each request's body.
func BenchmarkTokens(b *testing.B) {
	agents := []tokenAgent{geminiLSAgent()}
	if os.Getenv("TOKENS_GEMINI_CLI") != "0" {
		agents = append(agents, geminiCLIAgent(geminicli.JS(b)))
	}
	// The testing package runs a sub-benchmark twice even at
	// -benchtime 1x; the figures do not change, so each task runs once.
	ran := map[string][]tokenBill{}
	for _, task := range tokenTasks() {
		b.Run(task.name, func(b *testing.B) {
			bills, done := ran[task.name]
			if !done {
				for _, a := range agents {
					bills = append(bills, runTokenTask(b, task, a))
				}
				ran[task.name] = bills
				writeTokenReport(b, task.name, bills)
			}
			for b.Loop() {
			}
			for i, prefix := range []string{"", "gcli-"}[:len(bills)] {
				reportBill(b, prefix, bills[i])
			}
			if len(bills) == 2 {
				b.ReportMetric(bills[0].Input()/bills[1].Input(), "input-ratio")
				b.ReportMetric(bills[0].Cost()/bills[1].Cost(), "cost-ratio")
			}
		})
	}
}

// reportBill reports one agent's bill, its metrics' names after prefix.
func reportBill(b *testing.B, prefix string, bill tokenBill) {
	b.ReportMetric(bill.Input(), prefix+"input-tokens")
	b.ReportMetric(bill.Cost(), prefix+"cost-tokens")
	// What the same requests would cost with the system instruction and
	// tools in explicit caches: made, then kept the API's default hour.
	b.ReportMetric(bill.ExplicitCost(cacheTTLHours), prefix+"explicit-cost-tokens")
	b.ReportMetric(float64(len(bill)), prefix+"requests")
	// How many of the agent's requests do not begin with the whole of the
	// one before (a masked or compressed history), and the least part.
	if r := bill.AgentRepeats(); len(r) > 0 {
		below := 0
		for _, v := range r {
			if v < 0.99 {
				below++
			}
		}
		b.ReportMetric(float64(below), prefix+"agent-repeat-below-99")
		b.ReportMetric(r[0], prefix+"agent-repeat-min")
	}
	if s := bill.Shares(); len(s) > 0 {
		b.ReportMetric(s[len(s)/2], prefix+"prefix-share-median")
		b.ReportMetric(s[0], prefix+"prefix-share-min")
	}
}

// writeTokenReport appends each request's model, tokens and share to
// $TOKENS_REPORT, when set.
func writeTokenReport(b *testing.B, task string, bills []tokenBill) {
	path := os.Getenv("TOKENS_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for i, bill := range bills {
		agent := [...]string{"gemini-ls", "0.61"}[i]
		for n, r := range bill {
			fmt.Fprintf(f, "%s\t%s\t%d\t%s\t%.0f\t%.3f\t%v\t%.0f\t%.0f\t%.0f\t%d\n", task, agent, n+1, r.Model, r.Tokens, r.Share, r.First,
				r.System, r.Tools, r.Contents, r.Turns)
		}
	}
}
