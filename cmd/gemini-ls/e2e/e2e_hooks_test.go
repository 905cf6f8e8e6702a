package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Gemini CLI's hooks, as a user writes them: shell scripts in the
// project's .gemini/hooks, configured in its .gemini/settings.json.

// hookScripts are the project's hooks: guard.sh blocks a shell command
// that touches "forbidden" (exit 2, stderr the reason); pin.sh rewrites
// write_file's content (its tool_input is the call's arguments whole, as
// Gemini CLI 0.61's scheduler builds the call from it alone); slow.sh outlives its timeout; context.sh gives the
// model context at the session's start and with each prompt, naming the
// event it read; end.sh records the SessionEnd input.
var hookScripts = map[string]string{
	".gemini/hooks/guard.sh": `input=$(cat)
case "$input" in
*forbidden*) echo "forbidden files are off limits" >&2; exit 2 ;;
esac
echo '{"decision":"allow"}'
`,
	".gemini/hooks/pin.sh":     `cat >/dev/null; printf '%s\n' '{"hookSpecificOutput":{"tool_input":{"file_path":"new.txt","content":"pinned by the hook\n"}}}'` + "\n",
	".gemini/hooks/slow.sh":    "sleep 120\n",
	".gemini/hooks/context.sh": `event=$(sed 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/'); echo "{\"hookSpecificOutput\":{\"additionalContext\":\"context from $event\"}}"` + "\n",
	".gemini/hooks/end.sh":     `cat > "$GEMINI_PROJECT_DIR/session-ended.json"` + "\n",
	"a.txt":                    "the contents\n",
}

// hookSettings is the project's settings.json with the hooks above;
// enabled false turns them all off (hooksConfig.enabled).
func hookSettings(t *testing.T, enabled bool) string {
	t.Helper()
	hook := func(name, script string, timeout int) map[string]any {
		h := map[string]any{"type": "command", "name": name, "command": "sh $GEMINI_PROJECT_DIR/.gemini/hooks/" + script}
		if timeout > 0 {
			h["timeout"] = timeout
		}
		return h
	}
	group := func(matcher string, hooks ...map[string]any) map[string]any {
		return map[string]any{"matcher": matcher, "hooks": hooks}
	}
	b, err := json.Marshal(map[string]any{
		"hooksConfig": map[string]any{"enabled": enabled},
		"hooks": map[string]any{
			"BeforeTool": []any{
				group("run_shell_command", hook("guard", "guard.sh", 0)),
				group("write_.*", hook("pin", "pin.sh", 0)),
				group("read_file", hook("slow", "slow.sh", 300)),
			},
			"SessionStart": []any{group("startup", hook("start-context", "context.sh", 0))},
			"BeforeAgent":  []any{group("", hook("prompt-context", "context.sh", 0))},
			"SessionEnd":   []any{group("exit", hook("end", "end.sh", 0))},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hookTurns call a shell command the guard blocks, a write the pin
// rewrites and a read the slow hook would hold up, then finish.
func hookTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(
			geminitest.Call("run_shell_command", map[string]any{"command": "touch forbidden"}),
			geminitest.Call("write_file", map[string]any{"file_path": "new.txt", "content": "from the model\n"}),
			geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
		),
		geminitest.TextTurn("Finished."),
	}
}

func hookFiles(t *testing.T, enabled bool) map[string]string {
	files := map[string]string{".gemini/settings.json": hookSettings(t, enabled)}
	for name, content := range hookScripts {
		files[name] = content
	}
	return files
}

// promptTexts are the text parts of the first request's last content.
func promptTexts(reqs []geminitest.Request) []string {
	var out []string
	contents := reqs[0].Contents
	for _, p := range contents[len(contents)-1].Parts {
		if text := afterSessionContext(p.Text); text != "" {
			out = append(out, text)
		}
	}
	return out
}

// TestRunHooks: headless, the project's hooks block a call (the model is
// told why), rewrite one (it runs with the hook's arguments), time out
// (stderr says so; the turn goes on), give the model context at the
// session's start and with the prompt, and hear the session end.
func TestRunHooks(t *testing.T) {
	h := newHeadless(t, hookFiles(t, true), hookTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "do things")
	r.wantExit(t, 0)
	if r.stdout != "Finished.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	fr := h.responses(1)
	if len(fr) != 3 {
		t.Fatalf("function responses = %+v", fr)
	}
	if e := responseError(fr[0]); e != "Tool execution blocked: forbidden files are off limits" {
		t.Errorf("the blocked call's response = %+v", fr[0].Response)
	}
	if h.exists("forbidden") {
		t.Error("the blocked shell command ran")
	}
	if got := h.disk("new.txt"); got != "pinned by the hook\n" {
		t.Errorf("new.txt = %q, want the hook's content", got)
	}
	contains(t, "write_file's response", responseOutput(fr[1]), "[System] Tool input parameters (content) were modified by a hook before execution.")
	contains(t, "read_file's response", responseOutput(fr[2]), "the contents")
	contains(t, "stderr", r.stderr, `Hook "slow" failed for event BeforeTool: it timed out after 300ms and was stopped. It was ignored.`)
	want := []string{"<hook_context>context from SessionStart</hook_context>", "do things", "<hook_context>context from BeforeAgent</hook_context>"}
	if got := promptTexts(h.model.Requests()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the prompt the model read = %q, want %q", got, want)
	}
	var end map[string]any
	if err := json.Unmarshal([]byte(h.disk("session-ended.json")), &end); err != nil {
		t.Fatalf("the SessionEnd hook's input: %v (%s)", err, h.disk("session-ended.json"))
	}
	if end["hook_event_name"] != "SessionEnd" || end["reason"] != "exit" || end["cwd"] != h.root || end["session_id"] == "" {
		t.Errorf("SessionEnd input = %v", end)
	}
}

// TestRunHooksDisabled: hooksConfig.enabled false runs none of them.
func TestRunHooksDisabled(t *testing.T) {
	h := newHeadless(t, hookFiles(t, false), hookTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "do things")
	r.wantExit(t, 0)
	if !h.exists("forbidden") {
		t.Error("the shell command did not run")
	}
	if got := h.disk("new.txt"); got != "from the model\n" {
		t.Errorf("new.txt = %q, want the model's content", got)
	}
	if strings.Contains(r.stderr, "Hook") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if got := promptTexts(h.model.Requests()); len(got) != 1 || got[0] != "do things" {
		t.Errorf("the prompt the model read = %q", got)
	}
	if h.exists("session-ended.json") {
		t.Error("the SessionEnd hook ran")
	}
}

// TestLSPHooks: in the editor, the same hooks block, rewrite and time out,
// and the user sees the timeout as a notice.
func TestLSPHooks(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: hookFiles(t, true), env: trustTheWorkspace(),
		opts: map[string]any{"approvalMode": "yolo"}}, hookTurns()...)
	res := h.prompt(map[string]any{"prompt": "do things"})
	if res.StopReason != "end_turn" || res.Text != "Finished." {
		t.Fatalf("result = %+v", res)
	}
	out := h.toolOutputs(1)
	if len(out) != 3 || out[0] != "error: Tool execution blocked: forbidden files are off limits" {
		t.Fatalf("tool outputs = %q", out)
	}
	contains(t, "write_file's output", out[1], "[System] Tool input parameters (content) were modified by a hook before execution.")
	buf, _ := h.client.Buffer(h.path("new.txt"))
	if got := buf + h.readFile("new.txt"); !strings.Contains(got, "pinned by the hook") {
		t.Errorf("new.txt = %q (buffer and disk), want the hook's content", got)
	}
	var notices []string
	for _, u := range h.updates("notice") {
		notices = append(notices, u.Message)
	}
	contains(t, "notices", strings.Join(notices, "\n"), `Hook "slow" failed for event BeforeTool: it timed out after 300ms and was stopped. It was ignored.`)
	want := []string{"<hook_context>context from SessionStart</hook_context>", "do things", "<hook_context>context from BeforeAgent</hook_context>"}
	if got := promptTexts(h.model.Requests()); len(got) < 3 || got[0] != want[0] || got[len(got)-1] != want[2] {
		t.Errorf("the prompt the model read = %q, want %q", got, want)
	}
	// The project's hooks, new to this home, were announced as a warning
	// (TestProjectHooksAreAnnouncedOnceAsGeminiCLIDoes).
	var warned []string
	for _, m := range h.client.Messages("window/showMessage") {
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Type == 2 && strings.Contains(p.Message, "The following project-level hooks have been detected") {
			warned = append(warned, p.Message)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "\n  - guard\n  - pin\n  - slow\n  - prompt-context\n  - start-context\n  - end\n") {
		t.Errorf("warnings announcing the project's hooks: %q, want one naming them all in their events' order", warned)
	}
}

// modelHookFiles are a project whose BeforeModel hook redacts "secret
// plan" from every request, or answers a prompt asking for the cache
// itself, and whose AfterModel hook redacts the model's secret.
func modelHookFiles(t *testing.T) map[string]string {
	t.Helper()
	hook := func(name, script string) map[string]any {
		return map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "name": name, "command": "sh $GEMINI_PROJECT_DIR/.gemini/hooks/" + script}}}
	}
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		"BeforeModel": []any{hook("redact-request", "before-model.sh")},
		"AfterModel":  []any{hook("redact-response", "after-model.sh")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		".gemini/settings.json": string(settings),
		".gemini/hooks/before-model.sh": `input=$(cat)
case "$input" in
*'answer from the cache'*) echo '{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["cached by the hook"]}}]}}}' ;;
*) request=$(printf '%s' "$input" | sed 's/.*"llm_request":\({.*}\),"session_id".*/\1/; s/secret plan/public plan/g')
   printf '{"hookSpecificOutput":{"llm_request":%s}}\n' "$request" ;;
esac
`,
		".gemini/hooks/after-model.sh": `input=$(cat)
case "$input" in
*'"text":"the secret is 42"'*) echo '{"hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"role":"model","parts":["the answer is [redacted]"]}}]}}}' ;;
*) echo '{}' ;;
esac
`,
	}
}

// TestRunModelHooks: headless, a BeforeModel hook rewrites the request
// the model reads, an AfterModel hook replaces the answer the user reads,
// and a BeforeModel hook's own answer is printed without any request.
func TestRunModelHooks(t *testing.T) {
	h := newHeadless(t, modelHookFiles(t), geminitest.TextTurn("the secret is 42"))
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "tell me the secret plan")
	r.wantExit(t, 0)
	if r.stdout != "the answer is [redacted]\n" {
		t.Errorf("stdout = %q (stderr %q)", r.stdout, r.stderr)
	}
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := strings.Join(promptTexts(reqs), "|"); !strings.Contains(got, "tell me the public plan") || strings.Contains(string(reqs[0].Body), "secret plan") {
		t.Errorf("the model read %q", got)
	}

	cached := newHeadless(t, modelHookFiles(t))
	r = cached.runIn(cached.root, append(cached.env, trustTheWorkspace()...), "run", "-p", "answer from the cache")
	r.wantExit(t, 0)
	if r.stdout != "cached by the hook\n" || len(cached.model.Requests()) != 0 {
		t.Errorf("stdout = %q, %d requests (stderr %q)", r.stdout, len(cached.model.Requests()), r.stderr)
	}
}

// An MCP tool's BeforeTool and AfterTool hooks hear it as Gemini CLI 0.61's
// do: by its mcp_SERVER_TOOL name, also when the model called it by the
// name gemini-ls gave it before (echo), which the matcher matches too, and
// with mcp_context, what the settings say of its server.
func TestRunMCPHooksHearGeminiCLI061Names(t *testing.T) {
	bin := mcpServerBinary(t)
	record := map[string]any{"type": "command", "name": "record", "command": `input=$(cat); printf '%s\n' "$input" >> "$GEMINI_PROJECT_DIR/hook-inputs.txt"`}
	group := []any{map[string]any{"matcher": "^mcp_tester_echo$", "hooks": []any{record}}}
	settings, err := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"tester": map[string]any{"command": bin, "args": []string{"-extra", "more"}, "env": map[string]string{"TOKEN": "hidden"}}},
		"hooks":      map[string]any{"BeforeTool": group, "AfterTool": group},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := newHeadless(t, map[string]string{".gemini/settings.json": string(settings)},
		geminitest.CallTurn(geminitest.Call("echo", map[string]any{"message": "by the old name"})),
		geminitest.CallTurn(geminitest.Call("mcp_tester_echo", map[string]any{"message": "by the new name"})),
		geminitest.TextTurn("Echoed."),
	)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "echo twice")
	r.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "Echo: by the old name" {
		t.Errorf("the call by the old name answered %q", got)
	}
	lines := strings.Split(strings.TrimSpace(h.disk("hook-inputs.txt")), "\n")
	wantContext := map[string]any{"server_name": "tester", "tool_name": "echo", "command": bin, "args": []any{"-extra", "more"}}
	var heard []string
	for i, line := range lines {
		var input struct {
			Event      string         `json:"hook_event_name"`
			Name       string         `json:"tool_name"`
			Input      map[string]any `json:"tool_input"`
			MCPContext map[string]any `json:"mcp_context"`
		}
		if err := json.Unmarshal([]byte(line), &input); err != nil {
			t.Fatalf("hook input %d: %v (%s)", i, err, line)
		}
		heard = append(heard, input.Event+" "+input.Name+" "+fmt.Sprint(input.Input["message"]))
		if !reflect.DeepEqual(input.MCPContext, wantContext) {
			t.Errorf("%s's mcp_context = %v, want %v", input.Event, input.MCPContext, wantContext)
		}
	}
	want := []string{
		"BeforeTool mcp_tester_echo by the old name", "AfterTool mcp_tester_echo by the old name",
		"BeforeTool mcp_tester_echo by the new name", "AfterTool mcp_tester_echo by the new name",
	}
	if !slices.Equal(heard, want) {
		t.Errorf("the hooks heard %q, want %q", heard, want)
	}
}
