package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The agent's turns with real hooks (shell commands) and a fake model.

// noteTool is "write_note": it records the paths it was run with, and
// refuses a call without one.
type noteTool struct {
	mu  sync.Mutex
	ran []string
	// confirm is what its calls need approved; nil when nothing.
	confirm *tools.Confirmation
}

func (n *noteTool) Name() string { return "write_note" }
func (n *noteTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: "write_note", Description: "writes a note",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": {Type: genai.TypeString}}}}
}
func (n *noteTool) Build(args map[string]any) (tools.Call, error) {
	path, _ := args["path"].(string)
	if path == "" {
		return nil, errors.New("params must have required property 'path'")
	}
	return noteCall{n, path}, nil
}

func (n *noteTool) paths() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.ran...)
}

type noteCall struct {
	n    *noteTool
	path string
}

func (c noteCall) Title() string                     { return "Write " + c.path }
func (c noteCall) Kind() dialog.Kind                 { return dialog.KindEdit }
func (c noteCall) Confirmation() *tools.Confirmation { return c.n.confirm }
func (c noteCall) Execute(context.Context, tools.CallInfo) (tools.Result, error) {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	c.n.ran = append(c.n.ran, c.path)
	return tools.Result{Output: "wrote " + c.path}, nil
}

// oneTool is an agent.ToolSet of one tool.
type oneTool struct{ tools.Tool }

func (o oneTool) Get(name string) (tools.Tool, bool) { return o.Tool, name == o.Name() }
func (o oneTool) Declarations() []*genai.FunctionDeclaration {
	return []*genai.FunctionDeclaration{o.Declaration()}
}
func (o oneTool) UnknownToolError(name string, _ []string) string { return "no tool " + name }

// session is a new session of an agent with hooks, talking to srv, in
// yolo mode.
func session(t *testing.T, srv *geminitest.Server, tool tools.Tool, project string, hs settings.Hooks) *agent.Session {
	t.Helper()
	return sessionWith(t, srv, project, hs, agent.Config{Tools: oneTool{tool}, ApprovalMode: dialog.ApprovalYolo})
}

// sessionWith is session with cfg's tools, mode and doors.
func sessionWith(t *testing.T, srv *geminitest.Server, project string, hs settings.Hooks, cfg agent.Config) *agent.Session {
	t.Helper()
	r, problems := hooks.New(hooks.Config{Sources: []hooks.Source{{Name: "settings", Hooks: hs}}, ProjectDir: project})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	cfg.Generator = auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Version: "test", Config: genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	}})
	cfg.Model, cfg.Hooks = "gemini-test", r
	return agent.New(cfg).NewSession()
}

// prompt runs one prompt, with a hang guard, and returns its result and
// the notices the user was shown.
func prompt(t *testing.T, s *agent.Session, text string) (dialog.PromptResult, []string) {
	t.Helper()
	return promptAsking(t, s, text, nil)
}

// promptAsking is prompt, its confirmations put to confirmer (nobody's
// when nil).
func promptAsking(t *testing.T, s *agent.Session, text string, confirmer dialog.Confirmer) (dialog.PromptResult, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var notices []string
	res, err := s.Prompt(ctx, dialog.Input{Text: text}, port{confirmer: confirmer, show: func(ev dialog.Event) {
		if notice, ok := ev.(dialog.NoticeEvent); ok {
			notices = append(notices, notice.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the prompt outlived the hang guard")
	}
	return res, notices
}

// functionResponse is the response to the call in request r's last content.
func functionResponse(t *testing.T, r geminitest.Request) map[string]any {
	t.Helper()
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			return p.FunctionResponse.Response
		}
	}
	t.Fatalf("no function response in %v", r.Contents[len(r.Contents)-1])
	return nil
}

// modelCall is the model's call in request r's last model content.
func modelCall(t *testing.T, r geminitest.Request) *genai.FunctionCall {
	t.Helper()
	for i := len(r.Contents) - 1; i >= 0; i-- {
		for _, p := range r.Contents[i].Parts {
			if p.FunctionCall != nil {
				return p.FunctionCall
			}
		}
	}
	t.Fatal("no function call in the history")
	return nil
}

func writeCall(path string) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call("write_note", map[string]any{"path": path}))
}

// TestBeforeToolHookBlocksCall: a BeforeTool hook exiting 2 keeps the
// call from running, and the model is told the hook's reason.
func TestBeforeToolHookBlocksCall(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("ok"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeTool: {
		def("write_.*", command(`echo "notes are read-only today" >&2; exit 2`, 0)),
	}})
	res, _ := prompt(t, s, "write a note")
	if res.StopReason != dialog.StopEndTurn {
		t.Fatalf("stop %s: %v", res.StopReason, res.Err)
	}
	if ran := tool.paths(); len(ran) != 0 {
		t.Errorf("the blocked call ran: %v", ran)
	}
	got := functionResponse(t, srv.Requests()[1])
	if got["error"] != "Tool execution blocked: notes are read-only today" {
		t.Errorf("the model was told %v", got)
	}
}

// TestBeforeToolHookRewritesArguments: a hook's tool_input is the call's
// arguments, the call is built anew from them and runs with
// them, and the model is told which were changed; a rewrite the tool
// refuses is an error result, and nothing runs.
func TestBeforeToolHookRewritesArguments(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("ok"), writeCall("bad"), geminitest.TextTurn("ok"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeTool: {
		def("write_note", command(`if grep -q '"bad"' ; then echo '{"hookSpecificOutput":{"tool_input":{"path":""}}}'; else echo '{"hookSpecificOutput":{"tool_input":{"path":"notes/a.md"}}}'; fi`, 0)),
	}})
	_, notices := prompt(t, s, "write a note")
	if ran := tool.paths(); len(ran) != 1 || ran[0] != "notes/a.md" {
		t.Fatalf("the call ran with %v, not the hook's notes/a.md", ran)
	}
	got := functionResponse(t, srv.Requests()[1])
	if out, _ := got["output"].(string); out != "wrote notes/a.md\n\n[System] Tool input parameters (path) were modified by a hook before execution." {
		t.Errorf("the model was told %v", got)
	}
	if call := modelCall(t, srv.Requests()[1]); call.Args["path"] != "a.md" {
		t.Errorf("the history says the model called %v, not what it asked for", call.Args)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "A BeforeTool hook changed path of the write_note call") {
		t.Errorf("the user was told %q", notices)
	}

	prompt(t, s, "write a bad note")
	if ran := tool.paths(); len(ran) != 1 {
		t.Errorf("a call the tool refused ran: %v", ran)
	}
	got = functionResponse(t, srv.Requests()[3])
	if e, _ := got["error"].(string); e != "Tool parameter modification by hook failed validation: params must have required property 'path'" {
		t.Errorf("the model was told %v", got)
	}
}

// TestTimedOutHookLetsTheTurnGoOn: a hook past its timeout is stopped,
// the user is told, and the call runs as if it had not been there.
func TestTimedOutHookLetsTheTurnGoOn(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("done"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeTool: {
		def("", settings.HookCommand{Type: "command", Name: "slow-check", Command: "sleep 120", Timeout: 200}),
	}})
	res, notices := prompt(t, s, "write a note")
	if res.StopReason != dialog.StopEndTurn || !strings.Contains(res.Text, "done") {
		t.Errorf("the turn ended %s with %q", res.StopReason, res.Text)
	}
	if ran := tool.paths(); len(ran) != 1 {
		t.Errorf("the call did not run: %v", ran)
	}
	if len(notices) != 1 || notices[0] != `Hook "slow-check" failed for event BeforeTool: it timed out after 200ms and was stopped. It was ignored.` {
		t.Errorf("the user was told %q", notices)
	}
}

// TestSessionStartAndBeforeAgentContextReachTheModel: the SessionStart
// hooks' context goes before the session's first prompt, the BeforeAgent
// hooks' after every prompt, and they read what they are documented to.
func TestSessionStartAndBeforeAgentContextReachTheModel(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{
		agent.HookSessionStart: {def("startup", command(`grep -q '"source":"startup"' && echo '{"hookSpecificOutput":{"additionalContext":"on branch main"},"systemMessage":"loaded"}'`, 0))},
		agent.HookBeforeAgent:  {def("", command(`p=$(sed 's/.*"prompt":"\([^"]*\)".*/\1/'); echo "{\"hookSpecificOutput\":{\"additionalContext\":\"ticket for $p\"}}"`, 0))},
	})
	_, notices := prompt(t, s, "first")
	prompt(t, s, "second")
	reqs := srv.Requests()
	first := texts(reqs[0].Contents[len(reqs[0].Contents)-1])
	if want := []string{"<hook_context>on branch main</hook_context>", "first", "<hook_context>ticket for first</hook_context>"}; strings.Join(first, "|") != strings.Join(want, "|") {
		t.Errorf("first prompt = %q, want %q", first, want)
	}
	if len(notices) != 1 || notices[0] != "loaded" {
		t.Errorf("the user was told %q", notices)
	}
	second := texts(reqs[1].Contents[len(reqs[1].Contents)-1])
	if want := []string{"second", "<hook_context>ticket for second</hook_context>"}; strings.Join(second, "|") != strings.Join(want, "|") {
		t.Errorf("second prompt = %q, want %q", second, want)
	}
}

func texts(c *genai.Content) []string {
	var out []string
	for _, p := range c.Parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// TestBeforeAgentHookBlocksPrompt: a denied prompt is not sent, nor kept;
// the user is told why.
func TestBeforeAgentHookBlocksPrompt(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("answer"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{
		agent.HookBeforeAgent: {def("", command(`if grep -q secret; then echo '{"decision":"deny","reason":"prompts may not hold secrets"}'; fi`, 0))},
	})
	_, notices := prompt(t, s, "my secret is 42")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the blocked prompt was sent (%d requests)", n)
	}
	if len(notices) != 1 || notices[0] != "Agent execution blocked by hook: prompts may not hold secrets" {
		t.Errorf("the user was told %q", notices)
	}
	prompt(t, s, "hello")
	if c := srv.Requests()[0].Contents; len(c) != 1 || texts(c[0])[0] != "hello" {
		t.Errorf("the blocked prompt was kept: %v", c)
	}
}

// TestAfterToolHookAddsContextAndHidesResults: AfterTool's context is
// appended to the result, and a denial replaces the result with its
// reason.
func TestAfterToolHookAddsContextAndHidesResults(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("ok"), writeCall("secret.md"), geminitest.TextTurn("ok"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterTool: {
		def("write_note", command(`if grep -q 'secret'; then echo '{"decision":"deny","reason":"the result is hidden"}'; else echo '{"hookSpecificOutput":{"additionalContext":"lint: clean"}}'; fi`, 0)),
	}})
	prompt(t, s, "one")
	prompt(t, s, "two")
	reqs := srv.Requests()
	if got := functionResponse(t, reqs[1]); got["output"] != "wrote a.md\n\n<hook_context>lint: clean</hook_context>" {
		t.Errorf("first result %v", got)
	}
	if got := functionResponse(t, reqs[3]); got["error"] != "Tool result blocked: the result is hidden" {
		t.Errorf("second result %v", got)
	}
}

// TestAfterAgentHookAsksForMore: a denial of the final answer sends its
// reason as a new prompt, and the hook then knows it is retrying.
func TestAfterAgentHookAsksForMore(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("draft"), geminitest.TextTurn("final"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{agent.HookAfterAgent: {
		def("", command(`grep -q '"stop_hook_active":false' && echo '{"decision":"deny","reason":"add the tests"}'; true`, 0)),
	}})
	res, _ := prompt(t, s, "do it")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := texts(reqs[1].Contents[len(reqs[1].Contents)-1]); len(got) != 1 || got[0] != "add the tests" {
		t.Errorf("the retry sent %q", got)
	}
	if !strings.Contains(res.Text, "final") {
		t.Errorf("result %q", res.Text)
	}
}

// TestHookStopsTheLoop: "continue": false from a BeforeTool hook ends the
// turn; the call does not run, the user is told why.
func TestHookStopsTheLoop(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeTool: {
		def("", command(`echo '{"continue":false,"stopReason":"budget spent"}'`, 0)),
	}})
	res, notices := prompt(t, s, "go")
	if res.StopReason != dialog.StopEndTurn || len(srv.Requests()) != 1 || len(tool.paths()) != 0 {
		t.Errorf("stop %s, %d requests, ran %v", res.StopReason, len(srv.Requests()), tool.paths())
	}
	if len(notices) != 1 || notices[0] != "Agent execution stopped by hook: budget spent" {
		t.Errorf("the user was told %q", notices)
	}
}

// TestPreCompressHookHearsCompression: /compress fires the PreCompress
// hooks with trigger "manual" before the history is summarised.
func TestPreCompressHookHearsCompression(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	// The summary, then its check (as 0.61 asks), which keeps it.
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("<state_snapshot>short</state_snapshot>"), geminitest.TextTurn(""))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{
		"PreCompress": {def("manual", command(`cat > pre-compress.json`, 0))},
	})
	prompt(t, s, strings.Repeat("a long first prompt ", 50))
	prompt(t, s, strings.Repeat("a long second prompt ", 50))
	if _, err := s.Compress(context.Background()); err != nil {
		t.Logf("compress: %v", err) // the hook's part is over by then
	}
	data, err := os.ReadFile(filepath.Join(dir, "pre-compress.json"))
	if err != nil {
		t.Fatalf("the PreCompress hook did not run: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil || in["trigger"] != "manual" || in["hook_event_name"] != "PreCompress" {
		t.Errorf("PreCompress input %s (%v)", data, err)
	}
}

// TestPreCompressHookRunsBeforeEveryRequest: the PreCompress hooks
// ("auto") run before each model request of a prompt, whether or not the
// history is then compressed, as Gemini CLI 0.61 fires them (its
// compression service fires them before it judges the threshold); here
// nothing is compressed, and the hooks ran twice.
func TestPreCompressHookRunsBeforeEveryRequest(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("done"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{
		"PreCompress": {def("auto", command(`cat >> pre-compress.jsonl; echo >> pre-compress.jsonl`, 0))},
	})
	var compressed bool
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.Prompt(ctx, dialog.Input{Text: "write a note"}, port{show: func(ev dialog.Event) {
		_, c := ev.(dialog.CompressedEvent)
		compressed = compressed || c
	}}); err != nil {
		t.Fatal(err)
	}
	inputs := readLines(t, filepath.Join(dir, "pre-compress.jsonl"))
	if len(inputs) != 2 || compressed {
		t.Fatalf("the PreCompress hooks ran %d times (compressed: %v), want before each of the 2 requests", len(inputs), compressed)
	}
	for _, in := range inputs {
		if in["trigger"] != "auto" || in["hook_event_name"] != "PreCompress" {
			t.Errorf("PreCompress input %v", in)
		}
	}
}

// TestBeforeToolSelectionHookChoosesTools: the hooks read the request's
// messages and choose the tools it offers: ANY forces a call of those
// named, AUTO with names offers only those.
func TestBeforeToolSelectionHookChoosesTools(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	s := session(t, srv, &noteTool{}, dir, settings.Hooks{"BeforeToolSelection": {def("", command(`
input=$(cat)
case "$input" in
*'"messages":[{"content":"must write","role":"user"}]'*) echo '{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["write_note"]}}}' ;;
*) echo '{"hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":["read_file"]}}}' ;;
esac`, 0))}})
	prompt(t, s, "must write")
	prompt(t, s, "anything")
	reqs := srv.Requests()
	var first struct {
		ToolConfig struct {
			FunctionCallingConfig struct {
				Mode                 string   `json:"mode"`
				AllowedFunctionNames []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	if fc := first.ToolConfig.FunctionCallingConfig; fc.Mode != "ANY" || len(fc.AllowedFunctionNames) != 1 || fc.AllowedFunctionNames[0] != "write_note" {
		t.Errorf("first request's tool config = %+v (%s)", fc, reqs[0].Body)
	}
	if len(reqs[0].Tools) != 1 {
		t.Errorf("first request's tools = %v", reqs[0].Tools)
	}
	if len(reqs[1].Tools) != 0 {
		t.Errorf("the second request offered %v, which the hook did not allow", reqs[1].Tools)
	}
}

// allowOnce is a Confirmer that allows every call once.
type allowOnce struct{}

func (allowOnce) Confirm(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	return dialog.ProceedOnce, nil
}

// TestNotificationHookHearsPermissionQuestions: before the user is asked
// to allow a call, the Notification hooks hear it, as Gemini CLI's
// ToolPermission notification.
func TestNotificationHookHearsPermissionQuestions(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"), geminitest.TextTurn("ok"))
	tool := &noteTool{confirm: &tools.Confirmation{Kind: "execute", Title: "Allow note?", Details: "write a.md", AllowKeys: []string{"write_note"}}}
	s := sessionWith(t, srv, dir, settings.Hooks{"Notification": {def("", command(`cat >> notifications.jsonl; echo >> notifications.jsonl`, 0))}},
		agent.Config{Tools: oneTool{tool}})
	promptAsking(t, s, "write", allowOnce{})
	if ran := tool.paths(); len(ran) != 1 {
		t.Fatalf("ran %v", ran)
	}
	data, err := os.ReadFile(filepath.Join(dir, "notifications.jsonl"))
	if err != nil {
		t.Fatalf("the Notification hook did not run: %v", err)
	}
	var in struct {
		Event   string         `json:"hook_event_name"`
		Type    string         `json:"notification_type"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &in); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if in.Event != "Notification" || in.Type != "ToolPermission" || in.Message != "Tool Allow note? requires execution" ||
		in.Details["type"] != "exec" || in.Details["details"] != "write a.md" {
		t.Errorf("Notification input = %+v", in)
	}
}

// TestSessionStartOnResume: a session read back from disk fires its
// SessionStart hooks with source "resume" (matched exactly), and the
// hooks read the session's file as transcript_path.
func TestSessionStartOnResume(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir, stateDir := t.TempDir(), t.TempDir()
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	hs := settings.Hooks{agent.HookSessionStart: {
		def("startup", command(`cat > started.json`, 0)),
		def("resume", command(`cat > resumed.json`, 0)),
	}}
	newStore := func() *sessionstore.Store {
		store, err := sessionstore.New(stateDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return store
	}
	first := sessionWith(t, srv, dir, hs, agent.Config{Tools: oneTool{&noteTool{}}, Store: newStore()})
	prompt(t, first, "hello")
	if _, err := os.Stat(filepath.Join(dir, "resumed.json")); err == nil {
		t.Fatal("a new session's start fired the resume hook")
	}

	r, _ := hooks.New(hooks.Config{Sources: []hooks.Source{{Name: "settings", Hooks: hs}}, ProjectDir: dir})
	store := newStore()
	later := agent.New(agent.Config{
		Generator: auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Version: "test", Config: genai.ClientConfig{
			APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
		}}),
		Model: "gemini-test", Tools: oneTool{&noteTool{}}, Store: store, Hooks: r,
	})
	resumed, err := later.Session(context.Background(), first.ID())
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, resumed, "again")
	data, err := os.ReadFile(filepath.Join(dir, "resumed.json"))
	if err != nil {
		t.Fatalf("the resume hook did not run: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	file, _ := store.File(first.ID())
	if in["source"] != "resume" || in["session_id"] != first.ID() || in["transcript_path"] != file || file == "" {
		t.Errorf("SessionStart input = %v, want source resume and transcript %s", in, file)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("transcript_path %s: %v", file, err)
	}
}

// TestCancelStopsAHookAndItsCall: cancelling the prompt while a
// BeforeTool hook runs stops the hook, the call does not run, and no
// failure is reported: the user cancelled.
func TestCancelStopsAHookAndItsCall(t *testing.T) {
	platformtest.UnixShell(t) // its hooks are sh scripts and command lines
	dir := t.TempDir()
	srv := geminitest.NewTestServer(t, writeCall("a.md"))
	tool := &noteTool{}
	s := session(t, srv, tool, dir, settings.Hooks{agent.HookBeforeTool: {def("", command(`touch started; sleep 120`, 0))}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	guard := time.AfterFunc(60*time.Second, cancel)
	defer guard.Stop()
	var notices []string
	res, err := s.Prompt(ctx, dialog.Input{Text: "write"}, port{show: func(ev dialog.Event) {
		if notice, ok := ev.(dialog.NoticeEvent); ok {
			notices = append(notices, notice.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != dialog.StopCancelled || len(tool.paths()) != 0 || len(notices) != 0 {
		t.Errorf("stop %s, ran %v, notices %q", res.StopReason, tool.paths(), notices)
	}
}
