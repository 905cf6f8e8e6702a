package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"google.golang.org/genai"
)

// userPolicies is a user's ~/.gemini/policies/policies.toml: a denied
// command prefix, an MCP tool allowed without asking, a write always
// asked about.
const userPolicies = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
deny_message = "Deleting is not allowed here."

[[rule]]
mcpName = "tester"
toolName = "echo"
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
decision = "ask_user"
priority = 100
`

const deniedByPolicy = "Tool execution denied by policy. Deleting is not allowed here."

// policyHome is a home folder holding files under .gemini/policies, and
// the environment that makes it the user's.
func policyHome(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	home := t.TempDir()
	prefixed := map[string]string{}
	for name, content := range files {
		prefixed[filepath.Join(".gemini", "policies", name)] = content
	}
	writeFiles(t, home, prefixed)
	return home, []string{"HOME=" + home}
}

// runShellUnderPolicies runs a headless turn in a trusted folder holding
// files, the user's policy files policies, and bin first on PATH, whose
// model calls run_shell_command with each of commands at once; it returns
// the run and the model's function responses, one a command, in order.
func runShellUnderPolicies(t *testing.T, files, policies map[string]string, bin string, commands ...string) (*headless, []*genai.FunctionResponse) {
	t.Helper()
	var calls []*genai.FunctionCall
	for _, command := range commands {
		calls = append(calls, geminitest.Call("run_shell_command", map[string]any{"command": command}))
	}
	h := newHeadless(t, files, geminitest.CallTurn(calls...), geminitest.TextTurn("Finished."))
	home, env := policyHome(t, policies)
	trustFolder(t, home, h.root)
	env = append(append(h.withoutEnv("PATH"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	h.runIn(h.root, env, "run", "-p", "run these").wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != len(calls) {
		t.Fatalf("%d function responses, want %d", len(fr), len(calls))
	}
	return h, fr
}

// policyWorkspace is a workspace whose settings start the test MCP
// server, with a build directory a denied rm would delete.
func policyWorkspace(t *testing.T) map[string]string {
	return map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}}),
		"build/keep.txt":        "keep\n",
	}
}

// Through the editor, in auto_edit: the user's policy denies rm with its
// message (the command never runs, nobody is asked), runs the MCP tool it
// allows without asking, and asks about write_file although auto_edit
// writes without asking.
func TestLSPPolicyRules(t *testing.T) {
	_, env := policyHome(t, map[string]string{"policies.toml": userPolicies})
	h := start(t, setup{profile: lsptest.Eglot(), files: policyWorkspace(t), opts: map[string]any{"approvalMode": "auto_edit"}, env: append(trustTheWorkspace(), env...)},
		call("run_shell_command", map[string]any{"command": "rm -rf build"}),
		call("echo", map[string]any{"message": "hello"}),
		call("write_file", map[string]any{"file_path": "new.txt", "content": "fresh\n"}),
		geminitest.TextTurn("done"),
	)
	var asked []string
	h.client.OnShowMessageRequest = func(msg string, actions []string) string {
		asked = append(asked, msg)
		return actions[0]
	}
	h.waitLog("MCP server ready")
	if res := h.prompt(map[string]any{"prompt": "clean, echo, write"}); res.Text != "done" {
		t.Fatalf("prompt = %+v", res)
	}
	if out := h.toolOutputs(1); len(out) != 1 || out[0] != "error: "+deniedByPolicy {
		t.Errorf("rm = %q, want the policy's denial", out)
	}
	if got := h.readFile("build/keep.txt"); got != "keep\n" {
		t.Errorf("build/keep.txt = %q: the denied command ran", got)
	}
	if out := h.toolOutputs(2); len(out) != 1 || out[0] != "Echo: hello" {
		t.Errorf("echo = %q", out)
	}
	if out := h.toolOutputs(3); len(out) != 1 || !strings.Contains(out[0], "new.txt") || strings.HasPrefix(out[0], "error") {
		t.Errorf("write_file = %q", out)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "new.txt") {
		t.Errorf("asked %q, want one question: the write", asked)
	}
}

// Headless, in auto_edit: rm does not run (the shell is not offered),
// the same rules run the MCP tool;
// the write's ask_user, with nobody to ask, is refused in Gemini CLI's
// words and writes nothing.
func TestRunPolicyRules(t *testing.T) {
	_, env := policyHome(t, map[string]string{"policies.toml": userPolicies})
	h := newHeadless(t, policyWorkspace(t),
		geminitest.CallTurn(
			geminitest.Call("run_shell_command", map[string]any{"command": "rm -rf build"}),
			geminitest.Call("echo", map[string]any{"message": "hello"}),
			geminitest.Call("write_file", map[string]any{"file_path": "new.txt", "content": "fresh\n"}),
		),
		geminitest.TextTurn("Finished."),
	)
	r := h.runIn(h.root, append(append(h.env, trustTheWorkspace()...), env...), "run", "-p", "clean, echo, write", "--approval-mode", "auto_edit")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 3 {
		t.Fatalf("function responses = %+v", fr)
	}
	// Headless, no rule lets any shell command run, so the shell is not
	// offered and rm is not found, as in 0.61, before any rule is read.
	if e := responseError(fr[0]); !strings.HasPrefix(e, `Tool "run_shell_command" not found.`) {
		t.Errorf("rm error = %q, want the shell not found", e)
	}
	if got := h.disk("build/keep.txt"); got != "keep\n" {
		t.Errorf("build/keep.txt = %q: the denied command ran", got)
	}
	if out := responseOutput(fr[1]); out != "Echo: hello" || responseError(fr[1]) != "" {
		t.Errorf("echo = %+v, want it run without asking", fr[1].Response)
	}
	want := `Tool execution for "write_file" requires user confirmation, which is not supported in non-interactive mode.`
	if e := responseError(fr[2]); e != want {
		t.Errorf("write_file error = %q, want %q", e, want)
	}
	if h.exists("new.txt") {
		t.Error("write_file wrote new.txt")
	}
}

// A workspace's .gemini/policies count in a trusted folder only, as its
// settings do.
func TestRunWorkspacePolicyNeedsTrust(t *testing.T) {
	files := map[string]string{
		"notes.txt": "secret notes\n",
		".gemini/policies/no-reading.toml": `
[[rule]]
toolName = "read_file"
argsPattern = "notes"
decision = "deny"
priority = 10
denyMessage = "No reading in this project."
`,
	}
	for _, trusted := range []bool{true, false} {
		h := newHeadless(t, files,
			geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "notes.txt"})),
			geminitest.TextTurn("Finished."),
		)
		if !trusted {
			// Refused whole, as Gemini CLI 0.61 refuses it: its policy
			// never comes into it.
			h.runIn(h.root, h.untrusted(), "run", "-p", "read the notes").wantExit(t, exitUntrusted)
			continue
		}
		h.run("run", "-p", "read the notes").wantExit(t, 0)
		fr := h.responses(1)
		switch {
		case trusted && responseError(fr[0]) != "Tool execution denied by policy. No reading in this project.":
			t.Errorf("trusted: read_file = %+v, want the workspace policy's denial", fr[0].Response)
		case !trusted && !strings.Contains(responseOutput(fr[0]), "secret notes"):
			t.Errorf("untrusted: read_file = %+v, want the file read: the workspace's policy does not count", fr[0].Response)
		}
	}
}

const brokenPolicy = "[[rule]\ntoolName = "

const goodPolicy = `
[[rule]]
toolName = "read_file"
decision = "deny"
priority = 10
`

// A policy file that is not TOML is reported by its path, on stderr, and
// the other files still apply.
func TestRunReportsAMalformedPolicyFile(t *testing.T) {
	home, env := policyHome(t, map[string]string{"broken.toml": brokenPolicy, "good.toml": goodPolicy})
	h := newHeadless(t, map[string]string{"a.txt": "a\n"},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("Finished."),
	)
	trustFolder(t, home, h.root)
	r := h.runIn(h.root, append(h.env, env...), "run", "-p", "read")
	r.wantExit(t, 0)
	broken := filepath.Join(home, ".gemini", "policies", "broken.toml")
	if !strings.Contains(r.stderr, "[USER] Policy file error in "+broken+": TOML parsing failed") {
		t.Errorf("stderr = %q, want it to name %s", r.stderr, broken)
	}
	// good.toml denies read_file whatever its arguments, so it is not
	// offered, and the call is not found, as in 0.61.
	if e := responseError(h.responses(1)[0]); !strings.HasPrefix(e, `Tool "read_file" not found.`) {
		t.Errorf("read_file error = %q, want good.toml's rule to leave it out", e)
	}
}

// The editor is told of a malformed policy file by its path, and
// /policies list shows the rules that were loaded and the problem.
func TestLSPReportsAMalformedPolicyFileAndListsPolicies(t *testing.T) {
	home, env := policyHome(t, map[string]string{"broken.toml": brokenPolicy, "good.toml": goodPolicy})
	h := start(t, setup{profile: lsptest.Plugin(), env: env})
	broken := filepath.Join(home, ".gemini", "policies", "broken.toml")
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "Policy file error in "+broken+": TOML parsing failed")
	}); err != nil {
		t.Errorf("no window/showMessage names %s: %v", broken, err)
	}
	res := h.prompt(map[string]any{"prompt": "/policies list"})
	for _, want := range []string{
		"### Normal Mode Policies\n1. **DENY** tool: `read_file` [Priority: 4.01] [Source: User: good.toml]",
		"[USER] Policy file error in " + broken,
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("/policies list = %q, want it to contain %q", res.Text, want)
		}
	}
}

// run's --policy names the user tier's policy files instead of
// ~/.gemini/policies, a path relative to -C; --admin-policy adds the
// administrator's, which outrank them (Gemini CLI's flags).
func TestRunPolicyFlags(t *testing.T) {
	files := map[string]string{
		"notes.txt": "notes\n",
		"rules/deny-read.toml": `
[[rule]]
toolName = "read_file"
argsPattern = "notes"
decision = "deny"
priority = 10
denyMessage = "No reading here."
`,
	}
	admin := filepath.Join(t.TempDir(), "admin.toml")
	if err := os.WriteFile(admin, []byte(`
[[rule]]
toolName = "read_file"
argsPattern = "notes"
decision = "deny"
priority = 10
denyMessage = "The administrator says no."
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--policy", "rules"}, "Tool execution denied by policy. No reading here."},
		{[]string{"--policy", "rules", "--admin-policy", admin}, "Tool execution denied by policy. The administrator says no."},
	} {
		h := newHeadless(t, files,
			geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "notes.txt"})),
			geminitest.TextTurn("Finished."),
		)
		h.runIn(h.root, h.env, append([]string{"run", "-p", "read the notes"}, tc.flags...)...).wantExit(t, 0)
		if e := responseError(h.responses(1)[0]); e != tc.want {
			t.Errorf("%v: read_file error = %q, want %q", tc.flags, e, tc.want)
		}
	}
}
