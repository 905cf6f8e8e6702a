package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A user's hooks and policies are written for Gemini CLI 0.61: a
// BeforeTool hook reads tool_input.file_path, a rule's argsPattern
// matches "file_path". They see a call the same whether the model used
// 0.61's argument names or those gemini-ls declared before (path,
// offset/limit): the hook is handed the arguments as 0.61 would have had
// them, and the rule matches them. As in 0.61, the hook hears the calls
// the rule then denies.
func TestRunHooksAndPoliciesSeeGeminiCLI061Arguments(t *testing.T) {
	files := map[string]string{
		".gemini/settings.json": `{"hooks": {"BeforeTool": [{"matcher": "read_file", "hooks": [
			{"type": "command", "name": "record", "command": "sh $GEMINI_PROJECT_DIR/.gemini/hooks/record.sh"}]}]}}`,
		// One append of the whole line: the calls' hooks run at once.
		".gemini/hooks/record.sh": `input=$(cat); printf '%s\n' "$input" >> "$GEMINI_PROJECT_DIR/hook-inputs.txt"` + "\n",
		"a.txt":                   "one\ntwo\nthree\nfour\n",
		"secret.txt":              "the secret\n",
	}
	h := newHeadless(t, files,
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "a.txt", "offset": 1, "limit": 2}),
			geminitest.Call("read_file", map[string]any{"file_path": "a.txt", "start_line": 2, "end_line": 3}),
			geminitest.Call("read_file", map[string]any{"path": "secret.txt"}),
			geminitest.Call("read_file", map[string]any{"file_path": "secret.txt"}),
		),
		geminitest.TextTurn("Read."),
	)
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/policies/secrets.toml": `
[[rule]]
toolName = "read_file"
argsPattern = '"file_path":"secret\.txt"'
decision = "deny"
priority = 100
deny_message = "Secrets stay secret."
`})
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "read them")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 4 {
		t.Fatalf("function responses = %+v", fr)
	}
	for i, want := range []string{"two\nthree\n", "two\nthree\n"} {
		contains(t, "read_file's response", responseOutput(fr[i]), want)
	}
	for _, denied := range fr[2:] {
		if e := responseError(denied); e != "Tool execution denied by policy. Secrets stay secret." {
			t.Errorf("secret.txt's read = %+v, want it denied by the rule", denied.Response)
		}
	}
	// The hook heard all four calls, as 0.61 names their arguments: the
	// denied ones too, as 0.61 runs BeforeTool hooks before its policy
	// check.
	lines := strings.Split(strings.TrimSpace(h.disk("hook-inputs.txt")), "\n")
	var heard []string
	for i, line := range lines {
		var input struct {
			ToolInput map[string]any `json:"tool_input"`
		}
		if err := json.Unmarshal([]byte(line), &input); err != nil {
			t.Fatalf("hook input %d: %v (%s)", i, err, line)
		}
		b, err := json.Marshal(input.ToolInput)
		if err != nil {
			t.Fatal(err)
		}
		heard = append(heard, string(b))
	}
	slices.Sort(heard) // the calls' hooks run at once
	want := []string{`{"end_line":3,"file_path":"a.txt","start_line":2}`, `{"end_line":3,"file_path":"a.txt","start_line":2}`, `{"file_path":"secret.txt"}`, `{"file_path":"secret.txt"}`}
	if !slices.Equal(heard, want) {
		t.Errorf("the hook heard tool_inputs %q, want %q", heard, want)
	}
	// The history keeps the model's calls as it made them.
	reqs := h.model.Requests()
	last := reqs[1].Contents[len(reqs[1].Contents)-2]
	if args := last.Parts[0].FunctionCall.Args; args["path"] != "a.txt" || args["offset"] != 1.0 {
		t.Errorf("the first call, as sent back = %v", args)
	}
}

// MCP tools are named as Gemini CLI 0.61 names them, mcp_SERVER_TOOL:
// two servers' echo are two tools, and the user's tools.allowed and
// policy rules written for 0.61 name them so. Headless, in the default
// mode, one's echo runs because tools.allowed names it; two's is denied
// by the rule naming it, and so not declared either (as in 0.61); the
// others, which nothing allows and nobody can be asked about, are not
// declared (as in 0.61, whose headless default decision is deny).
func TestRunMCPToolsHaveGeminiCLI061Names(t *testing.T) {
	bin := mcpServerBinary(t)
	settings, err := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"one": map[string]any{"command": bin}, "two": map[string]any{"command": bin}},
		"tools":      map[string]any{"allowed": []string{"mcp_one_echo"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := newHeadless(t, map[string]string{".gemini/settings.json": string(settings)},
		geminitest.CallTurn(
			geminitest.Call("mcp_one_echo", map[string]any{"message": "from one"}),
			geminitest.Call("mcp_two_echo", map[string]any{"message": "from two"}),
		),
		geminitest.TextTurn("Echoed."),
	)
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/policies/mcp.toml": `
[[rule]]
toolName = "mcp_two_echo"
decision = "deny"
priority = 100
deny_message = "Not server two."
`})
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "echo twice")
	r.wantExit(t, 0)
	reqs := h.model.Requests()
	if !slices.Contains(declared(reqs, 0), "mcp_one_echo") {
		t.Errorf("mcp_one_echo is not declared: %v", declared(reqs, 0))
	}
	for _, name := range []string{"mcp_two_echo", "mcp_one_add", "mcp_two_add"} {
		if slices.Contains(declared(reqs, 0), name) {
			t.Errorf("%s, which nothing lets run, is declared: %v", name, declared(reqs, 0))
		}
	}
	fr := h.responses(1)
	if len(fr) != 2 {
		t.Fatalf("function responses = %+v", fr)
	}
	if got := responseOutput(fr[0]); got != "Echo: from one" {
		t.Errorf("one's echo answered %+v, want it run as tools.allowed allows", fr[0].Response)
	}
	// Denied outright, it is not declared, so not found (as 0.61).
	if got := responseError(fr[1]); !strings.HasPrefix(got, `Tool "mcp_two_echo" not found.`) {
		t.Errorf("two's echo answered %+v, want it not found, as the rule leaves it out", fr[1].Response)
	}
}
