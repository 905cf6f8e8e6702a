package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

const todoGo = "package a\n\n// TODO: localise the greeting.\nfunc greet() string { return \"Hello\" }\n\nfunc A() int { return 1 }\n"

type wireCodeAction struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
}

func (h *harness) codeActions(params map[string]any) []wireCodeAction {
	h.t.Helper()
	var actions []wireCodeAction
	if err := h.client.Call(h.ctx, "textDocument/codeAction", params, &actions); err != nil {
		h.t.Fatalf("textDocument/codeAction: %v", err)
	}
	return actions
}

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
}

// Helix has no plugins: code actions titled from the diagnostics,
// selection and TODO at hand run gemini.prompt through executeCommand.
func TestHelixCodeActions(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"a.go": todoGo}}, geminitest.TextTurn("Fixed."))
	h.open("a.go")
	uri := "file://" + h.path("a.go")
	diag := map[string]any{"range": rng(5, 5, 5, 6), "severity": 1, "message": "A redeclared in this block", "source": "compiler"}

	t.Run("titles", func(t *testing.T) {
		// Helix's block cursor covers one character: not a selection.
		cursorOnTODO := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(2, 4, 2, 5), "context": map[string]any{"diagnostics": []any{}}})
		if len(cursorOnTODO) != 1 || cursorOnTODO[0].Title != "Gemini: implement the TODO “localise the greeting.” (a.go)" || cursorOnTODO[0].Kind != "refactor.rewrite" {
			t.Errorf("actions on the TODO line = %+v", cursorOnTODO)
		}
		// eglot sends the word at point: not a selection either.
		word := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 5, 3, 10), "context": map[string]any{"diagnostics": []any{}}})
		if len(word) != 0 {
			t.Errorf("actions on the word at point = %+v", word)
		}
		selection := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 0, 5, 10), "context": map[string]any{"diagnostics": []any{diag}}})
		var titles []string
		for _, a := range selection {
			titles = append(titles, a.Kind+"|"+a.Title)
			if a.Command.Command != "gemini.prompt" {
				t.Errorf("action %q runs %q", a.Title, a.Command.Command)
			}
		}
		want := "quickfix|Gemini: fix “A redeclared in this block” (a.go, lines 4–6),|Gemini: explain the selected code (a.go, lines 4–6)"
		if strings.Join(titles, ",") != want {
			t.Errorf("titles = %q, want %q", titles, want)
		}
		none := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(0, 0, 0, 0), "context": map[string]any{"diagnostics": []any{}}})
		if len(none) != 0 {
			t.Errorf("actions with nothing at hand = %+v", none)
		}
		only := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 0, 5, 10), "context": map[string]any{"diagnostics": []any{diag}, "only": []string{"quickfix"}}})
		if len(only) != 1 || only[0].Kind != "quickfix" {
			t.Errorf("only quickfix = %+v", only)
		}
	})

	t.Run("running the fix", func(t *testing.T) {
		fix := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(5, 0, 5, 0), "context": map[string]any{"diagnostics": []any{diag}}})[0]
		var arg map[string]any
		if err := json.Unmarshal(fix.Command.Arguments[0], &arg); err != nil {
			t.Fatal(err)
		}
		if _, msg := h.command(arg); msg != "Gemini: Fixed." {
			t.Errorf("answer = %q", msg)
		}
		got, rest := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
		contains(t, "editor context", got, `"activeFile":{"path":"`+h.path("a.go")+`"`)
		contains(t, "editor context", got, `{"line":6,"character":6,"severity":"error","message":"A redeclared in this block","source":"compiler"}`)
		contains(t, "prompt", strings.Join(rest, "\n"), "Fix the diagnostics the editor shows here in a.go.")
		if n := len(h.client.Messages("$/progress")); n < 2 {
			t.Errorf("%d progress messages", n)
		}
	})

	t.Run("bad params", func(t *testing.T) {
		err := h.client.Call(h.ctx, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}}, nil)
		if err == nil || !strings.Contains(err.Error(), `"range"`) {
			t.Errorf("codeAction without range: %v", err)
		}
	})
}

// The transcript of a Helix conversation is named for it, records each
// question's answer once, after the line of the call that asked, and a
// subagent's report as prose; its lines are never cut short for the
// window, which wraps them (editors/helix/languages.toml).
func TestHelixTranscriptRecordsTheConversation(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"auth.go": "package auth // TOKEN_CHECK\n"}},
		call("run_shell_command", map[string]any{"command": "touch marker"}),
		askDatabase(false),
		call("invoke_agent", map[string]any{"agent_name": "codebase_investigator", "prompt": "How does auth work?"}),
		call("read_file", map[string]any{"file_path": "auth.go"}),
		call("complete_task", map[string]any{"report": map[string]any{
			"SummaryOfFindings": "auth.go checks the token.",
			"ExplorationTrace":  []any{"Read auth.go."},
			"RelevantLocations": []any{map[string]any{"FilePath": "auth.go", "Reasoning": "The check.", "KeySymbols": []any{"TOKEN_CHECK"}}},
		}}),
		geminitest.TextTurn("SQLite, and auth.go checks the token."),
	)
	var asked []string
	h.client.OnShowMessageRequest = func(msg string, actions []string) string {
		asked = append(asked, msg)
		switch {
		case strings.HasPrefix(msg, "Allow shell command?"):
			return "Reject"
		case slices.Contains(actions, "SQLite"):
			return "SQLite"
		}
		t.Errorf("unexpected question %q %q", msg, actions)
		return ""
	}
	started, _ := h.command("Set up the service's database, then explain the auth system")
	if len(asked) != 2 {
		t.Errorf("asked %q, want the command, then the database", asked)
	}
	if _, err := h.client.WaitMessage(h.ctx, "window/showDocument", nil); err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(h.shownDocuments()[0].URI, "file://")
	name := filepath.Base(path)
	if want := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-set-up-the-service-s-database-` + started.SessionID[:8] + `\.md$`); !want.MatchString(name) {
		t.Errorf("transcript %s, want one named %s", name, want)
	}
	transcript := readFile(path)
	for _, want := range []string{
		"- **Shell touch marker** — ",
		"\n  → declined\n",
		"- **Asking user: Which database?** — ok\n  → SQLite\n",
		// The report's fields in the order the agent gives them.
		"- **Delegating to agent 'codebase_investigator'** — ok\n  - **ReadFile auth.go** — ok\n  - **Completing task and submitting results.** — ok\n\n" +
			"  auth.go checks the token.\n\n  Details:\n  - Exploration trace:\n    - Read auth.go.\n" +
			"  - Relevant locations:\n    - File path: auth.go\n      Key symbols:\n        - TOKEN_CHECK\n      Reasoning: The check.\n\n",
		"SQLite, and auth.go checks the token.",
	} {
		contains(t, "transcript", transcript, want)
	}
	for _, once := range []string{"declined", "SQLite\n"} {
		if n := strings.Count(transcript, once); n != 1 {
			t.Errorf("transcript has %q %d times:\n%s", once, n, transcript)
		}
	}
	for _, leak := range []string{"```", "{", "SummaryOfFindings", "run_shell_command", "ask_user", "invoke_agent"} {
		if strings.Contains(transcript, leak) {
			t.Errorf("transcript shows %q:\n%s", leak, transcript)
		}
	}
}

// A plan's approval in Helix: the plan opens in the editor, so the
// question names it rather than repeating it in a popup over it; the
// transcript records the answer under the call and the switches of
// approval mode in Gemini CLI 0.61's words.
func TestHelixPlanApproval(t *testing.T) {
	home := t.TempDir()
	plan := "# Plan\n\n1. Add the flag.\n2. Document it.\n"
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"main.go": "package main\n"}, env: append(trustTheWorkspace(), "HOME="+home)},
		call("enter_plan_mode", map[string]any{"reason": "Design the flag first"}),
		planWrite("flag.md", plan),
		call("exit_plan_mode", map[string]any{"plan_filename": "flag.md"}),
		geminitest.TextTurn("Implementing the plan."),
	)
	var asked []string
	h.client.OnShowMessageRequest = func(msg string, actions []string) string {
		asked = append(asked, msg)
		if slices.Contains(actions, "Yes, manually accept edits") {
			return "Yes, manually accept edits"
		}
		return "Allow Once"
	}
	started, _ := h.command("Plan a new flag")
	if len(asked) != 2 {
		t.Fatalf("asked %q, want entering plan mode, then the plan's approval", asked)
	}
	if approval := asked[1]; !strings.Contains(approval, "Approve the plan in flag.md, open in the editor?") || strings.Contains(approval, "Document it.") {
		t.Errorf("the plan's approval reads %q: want it to name the open plan, not repeat it", approval)
	}
	planPath := sessionPlan(t, home, started.SessionID, "flag.md")
	var transcript string
	for _, d := range h.shownDocuments() {
		switch path := strings.TrimPrefix(d.URI, "file://"); path {
		case planPath:
		default:
			transcript = readFile(path)
		}
	}
	for _, want := range []string{
		"- **Design the flag first** — ok\n  → Allow Once\n",
		"> Approval mode: plan\n",
		"- **Requesting plan approval for: " + planPath + "** — ok\n  → Yes, manually accept edits\n",
		"> Approval mode: manual\n",
		"Implementing the plan.",
	} {
		contains(t, "transcript", transcript, want)
	}
	if strings.Contains(transcript, "Document it.") {
		t.Errorf("the transcript repeats the plan:\n%s", transcript)
	}
}
