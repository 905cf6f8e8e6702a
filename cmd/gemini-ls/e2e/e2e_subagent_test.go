package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// homeOf is the HOME the headless run sees.
func (h *headless) homeOf() string {
	for _, kv := range h.env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok {
			return home
		}
	}
	h.t.Fatal("no HOME")
	return ""
}

// declaredNames are the functions request i declared, in order.
func declaredNames(r geminitest.Request) []string {
	var names []string
	for _, tool := range r.Tools {
		for _, d := range tool.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// Headless: the main agent hands a question to the built-in
// codebase_investigator. The subagent's requests carry its own system
// instruction, only its read-only tools and complete_task, and none of
// the main conversation but the prompt it was given; its report is the
// main agent's function response, and the main history holds the call
// and the report, not the subagent's reads.
func TestRunCodebaseInvestigator(t *testing.T) {
	h := newHeadless(t, map[string]string{"auth.go": "package auth // TOKEN_CHECK\n"},
		call("invoke_agent", map[string]any{"agent_name": "codebase_investigator", "prompt": "How does auth work?"}),
		call("read_file", map[string]any{"file_path": "auth.go"}),
		call("complete_task", map[string]any{"report": map[string]any{
			"SummaryOfFindings": "auth.go checks the token",
			"ExplorationTrace":  []any{"read auth.go"},
			"RelevantLocations": []any{map[string]any{"FilePath": "auth.go", "Reasoning": "the check", "KeySymbols": []any{"TOKEN_CHECK"}}},
		}}),
		geminitest.TextTurn("Auth checks a token."),
	)
	res := h.run("run", "-p", "explain the auth system")
	res.wantExit(t, 0)
	reqs := h.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !slices.Contains(declaredNames(reqs[0]), "invoke_agent") || !strings.Contains(systemText(t, reqs, 0), "codebase_investigator") {
		t.Errorf("the main agent was not offered codebase_investigator: %v", declaredNames(reqs[0]))
	}
	sub := reqs[1]
	contains(t, "the subagent's system instruction", systemText(t, reqs, 1), "You are **Codebase Investigator**")
	// 0.61's four, and navigate_code where a language server on PATH
	// (rust-analyzer from rustup, say) has the main agent offered it.
	want := []string{"list_directory", "read_file", "glob", "grep_search", "complete_task"}
	if slices.Contains(declaredNames(reqs[0]), "navigate_code") {
		want = slices.Insert(want, 4, "navigate_code")
	}
	if got := declaredNames(sub); !slices.Equal(got, want) {
		t.Errorf("the subagent's tools: %v", got)
	}
	if len(sub.Contents) != 1 || strings.Contains(sub.Contents[0].Parts[0].Text, "explain the auth system") ||
		!strings.Contains(sub.Contents[0].Parts[0].Text, "How does auth work?") {
		t.Errorf("the subagent's first request holds more than its prompt: %d contents, %q", len(sub.Contents), sub.Contents[0].Parts[0].Text)
	}
	fr := h.responses(3)
	if len(fr) != 1 || fr[0].Name != "invoke_agent" || !strings.Contains(responseOutput(fr[0]), `"SummaryOfFindings": "auth.go checks the token"`) {
		t.Fatalf("the main agent's function response: %+v", fr)
	}
	last := reqs[3]
	if len(last.Contents) != 3 {
		t.Errorf("the main history has %d contents, want the prompt, the call and the report", len(last.Contents))
	}
	for _, c := range last.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name != "invoke_agent" || strings.Contains(p.Text, "TOKEN_CHECK") && p.FunctionResponse == nil {
				t.Errorf("the main history holds the subagent's work: %+v", p)
			}
		}
	}
	contains(t, "stdout", res.stdout, "Auth checks a token.")
}

// Headless: the user's reviewer, limited to read_file and grep_search,
// is hired with @reviewer; its write is refused and nothing is written.
func TestRunUserAgentIsHeldToItsTools(t *testing.T) {
	h := newHeadless(t, map[string]string{
		"a.txt": "alpha\n",
	},
		call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "review a.txt"}),
		call("write_file", map[string]any{"file_path": "a.txt", "content": "rewritten\n"}),
		call("complete_task", map[string]any{"result": "a.txt is fine"}),
		geminitest.TextTurn("Reviewed."),
	)
	home := h.homeOf()
	if err := os.MkdirAll(filepath.Join(home, ".gemini", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "agents", "reviewer.md"),
		[]byte("---\nname: reviewer\ndescription: Reviews files.\ntools: [read_file, grep_search]\n---\nYou review files.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := h.run("run", "--approval-mode", "yolo", "-p", "@reviewer look at a.txt")
	res.wantExit(t, 0)
	reqs := h.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	var prompt strings.Builder
	for _, p := range reqs[0].Contents[len(reqs[0].Contents)-1].Parts {
		prompt.WriteString(p.Text)
	}
	contains(t, "the prompt", prompt.String(), "The user has explicitly selected the following agent(s): reviewer.")
	main := systemText(t, reqs, 0)
	if !strings.Contains(main, "reviewer") {
		t.Errorf("the agents offered (reviewer):\n%s", main)
	}
	if got := declaredNames(reqs[1]); !slices.Equal(got, []string{"read_file", "grep_search", "complete_task"}) {
		t.Errorf("the reviewer's tools: %v", got)
	}
	if fr := h.responses(2); len(fr) != 1 || !strings.Contains(fr[0].Response["error"].(string), "Unauthorized tool call: 'write_file'") {
		t.Errorf("the reviewer's write: %+v", fr)
	}
	if got := h.disk("a.txt"); got != "alpha\n" {
		t.Errorf("a.txt = %q: the refused write happened", got)
	}
}

// generalistEdits: the main agent hires the generalist, which edits a.go
// and reports; then the main agent is done.
func generalistEdits() []geminitest.Turn {
	return []geminitest.Turn{
		call("invoke_agent", map[string]any{"agent_name": "generalist", "prompt": "make A return 2"}),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}),
		call("complete_task", map[string]any{"result": map[string]any{"response": "A returns 2"}}),
		geminitest.TextTurn("done"),
	}
}

// Over LSP, a subagent's replace is previewed and confirmed like the
// main agent's: one workspace/applyEdit, the buffer changed, the
// subagent told the truth; its updates name the invoke_agent call.
func TestLSPSubagentEditIsConfirmedInTheEditor(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo}}, generalistEdits()...)
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "make A return 2"})
	h.wantOutput(2, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
	h.wantBuffer("a.go", "package a\n\nfunc A() int { return 2 }\n")
	h.wantDisk("a.go", aGo)
	h.wantStrategy(false, 1)
	var invoke string
	for _, u := range h.updates("toolCall") {
		switch u.Name {
		case "invoke_agent":
			invoke = u.CallID
		case "replace":
			if u.ParentCallID == "" || u.ParentCallID != invoke || u.AgentName != "generalist" {
				t.Errorf("the subagent's replace update names %q/%q, want the invoke_agent call %q and generalist", u.ParentCallID, u.AgentName, invoke)
			}
		}
	}
	if out := h.toolOutputs(3); len(out) != 1 || !strings.Contains(out[0], "A returns 2") {
		t.Errorf("the report = %q", out)
	}
}

// Headless in the default mode, a subagent's replace is refused, as the
// main agent's is, and the file is unchanged.
func TestRunSubagentEditRefusedByDefault(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.go": aGo}, generalistEdits()...)
	res := h.run("run", "-p", "make A return 2")
	res.wantExit(t, 0)
	if fr := h.responses(2); len(fr) != 1 || fr[0].Response["error"] == nil {
		t.Errorf("the subagent's replace was not refused: %+v", fr)
	}
	if got := h.disk("a.go"); got != aGo {
		t.Errorf("a.go = %q", got)
	}
}
