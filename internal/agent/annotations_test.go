package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// annotatedTool is a tool no list in gemini-ls names, which says what it
// is; its calls need c approved and answer "ran NAME".
type annotatedTool struct {
	fakeTool
	annotations tools.Annotations
}

func (a annotatedTool) Annotations() tools.Annotations { return a.annotations }

func newAnnotatedTool(name string, a tools.Annotations, c *tools.Confirmation) annotatedTool {
	return annotatedTool{fakeTool: fakeTool{name: name, build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: name, kind: dialog.KindOther, confirmation: c, exec: func(context.Context) (tools.Result, error) {
			return tools.Result{Output: "ran " + name}, nil
		}}, nil
	}}, annotations: a}
}

// Plan mode and the approval door decide by what a tool says it is on
// itself, for tools of names they were never told: a read-only one runs
// in plan mode and is listed there, asking first where its call needs
// approval (as an MCP tool's readOnlyHint makes 0.61 ask); one that edits
// files is refused as edits are, one that runs commands as everything
// else is; auto_edit runs a read-only one that reaches the network
// without asking, as it runs web_fetch.
func TestToolsAreJudgedByWhatTheySayTheyAre(t *testing.T) {
	fetchConfirmation := &tools.Confirmation{Kind: "fetch", AllowKeys: []string{"probe_fetch"}}
	registry := func() *tools.Registry {
		return tools.NewRegistry(
			newAnnotatedTool("probe_read", tools.Annotations{ReadOnly: true}, nil),
			newAnnotatedTool("probe_lookup", tools.Annotations{ReadOnly: true}, &tools.Confirmation{Kind: "mcp", AllowKeys: []string{"mcp:srv:probe_lookup"}}),
			newAnnotatedTool("probe_edit", tools.Annotations{EditsFiles: true}, tools.EditConfirmation("/src/main.go")),
			newAnnotatedTool("probe_run", tools.Annotations{RunsCommands: true}, &tools.Confirmation{Kind: "execute", AllowKeys: []string{"make"}}),
			newAnnotatedTool("probe_fetch", tools.Annotations{ReadOnly: true, OpenWorld: true}, fetchConfirmation),
			newAnnotatedTool("probe_silent", tools.Annotations{}, nil),
		)
	}
	calls := geminitest.CallTurn(
		geminitest.Call("probe_read", nil), geminitest.Call("probe_lookup", nil), geminitest.Call("probe_edit", nil),
		geminitest.Call("probe_run", nil), geminitest.Call("probe_silent", nil),
	)

	srv := geminitest.NewTestServer(t, calls, geminitest.TextTurn("ok"))
	conf := always(dialog.ProceedOnce)
	a, _ := newAgent(t, srv, agent.Config{Tools: registry(), ApprovalMode: dialog.ApprovalPlan,
		PlansDir: func(string) (string, error) { return t.TempDir(), nil }})
	if res, _ := (front{confirmer: conf}).prompt(t, a.NewSession(), "plan"); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := srv.Requests()
	if system := reqs[0].SystemInstruction.Parts[0].Text; !strings.Contains(system, "<tool>`probe_read`</tool>") || strings.Contains(system, "`probe_edit`") || strings.Contains(system, "`probe_silent`") {
		t.Errorf("plan mode's instruction does not list the read-only tools alone:\n%s", system)
	}
	want := map[string]string{
		"probe_read":   "output: ran probe_read",
		"probe_lookup": "output: ran probe_lookup",
		"probe_edit":   "error: You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files.",
		"probe_run":    "error: You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked.",
		"probe_silent": "error: You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked.",
	}
	for _, r := range responses(t, reqs[1]) {
		got := "output: " + str(r.Response["output"])
		if e := str(r.Response["error"]); e != "" {
			got = "error: " + e
		}
		if got != want[r.Name] {
			t.Errorf("%s in plan mode: %q, want %q", r.Name, got, want[r.Name])
		}
	}
	if asked := conf.asked(); len(asked) != 1 || asked[0].Tool != "probe_lookup" {
		t.Errorf("asked %+v, want only about probe_lookup, read-only but needing approval", asked)
	}

	srv = geminitest.NewTestServer(t, geminitest.CallTurn(geminitest.Call("probe_fetch", nil)), geminitest.TextTurn("ok"))
	conf = always(dialog.Cancel)
	a, _ = newAgent(t, srv, agent.Config{Tools: registry(), ApprovalMode: dialog.ApprovalAutoEdit})
	if res, _ := (front{confirmer: conf}).prompt(t, a.NewSession(), "fetch"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if r := responses(t, srv.Requests()[1]); len(r) != 1 || str(r[0].Response["output"]) != "ran probe_fetch" || len(conf.asked()) != 0 {
		t.Errorf("auto_edit: %+v, asked %+v; want probe_fetch run unasked", r, conf.asked())
	}
}

func str(v any) string { s, _ := v.(string); return s }
