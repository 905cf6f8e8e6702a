package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// acpHarness is an ACP client connected to `gemini-ls acp`, with a fake
// model and a workspace on disk.
type acpHarness struct {
	t       *testing.T
	ctx     context.Context
	model   *geminitest.Server
	root    string
	env     []string
	log     string
	proc    *lsptest.Process
	client  *acptest.Client
	session sdk.SessionId
}

type acpSetup struct {
	files map[string]string
	env   []string // extra environment
	cfg   acptest.Config
	// home is the HOME (and so the session store) to use; a new one when "".
	home string
	// noSession: do not create a session.
	noSession bool
	// mcpServers are passed to session/new.
	mcpServers []sdk.McpServer
	// bin is the binary to run; the one TestMain built when "".
	bin string
	// noLogFlags starts acp as editors do, without --log-file and
	// --log-level; its stderr is still in the log's name + ".stderr".
	noLogFlags bool
	// args are more of acp's flags.
	args []string
}

func startACP(t *testing.T, s acpSetup, turns ...geminitest.Turn) *acpHarness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	root := newRoot(t, s.files)
	home := s.home
	if home == "" {
		home = t.TempDir()
	}
	model := geminitest.NewTestServer(t, turns...)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + t.TempDir(), "GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_API_KEY=test-key", pinnedModel}
	env = append(env, s.env...)
	h := &acpHarness{t: t, ctx: ctx, model: model, root: root, env: env}
	h.connect(s)
	return h
}

// connect starts the binary and initializes, and makes a session unless
// s.noSession.
func (h *acpHarness) connect(s acpSetup) {
	t := h.t
	t.Helper()
	h.log = filepath.Join(t.TempDir(), "gemini-ls.log")
	log := h.log
	bin := s.bin
	if bin == "" {
		bin = binary
	}
	args := []string{"acp", "--log-file", log, "--log-level", "debug"}
	if s.noLogFlags {
		args = args[:1]
	}
	args = append(args, s.args...)
	h.proc = lsptest.StartCommand(t, bin, h.env, log, args...)
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(log); err == nil {
				t.Logf("server log:\n%s", b)
			}
			if b, err := os.ReadFile(log + ".stderr"); err == nil && len(b) > 0 {
				t.Logf("server stderr:\n%s", b)
			}
		}
	})
	h.client = acptest.New(t, h.proc, h.proc, s.cfg)
	if _, err := h.client.Initialize(h.ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if s.noSession {
		return
	}
	servers := s.mcpServers
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: servers})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.session = res.SessionId
}

func (h *acpHarness) path(name string) string { return filepath.Join(h.root, name) }

// TestACPStderrHasNoLogs: started as editors start it, acp writes no log
// line to stderr (the client's log of it), not even the api_error of a
// failed model call, which the prompt's answer tells; what the session's
// build found wrong is said there in words.
func TestACPStderrHasNoLogs(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"telemetry": {"enabled": true, "target": "gcp"}}`})
	h := startACP(t, acpSetup{home: home, noLogFlags: true}, geminitest.ErrorTurn(400, "bad request"))
	if res, err := h.prompt("hi"); err == nil || !strings.Contains(err.Error(), "bad request") {
		t.Errorf("the failed prompt answered %+v, %v", res, err)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model requests, want the one that failed", n)
	}
	stderr, err := os.ReadFile(h.log + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	const warning = `gemini-ls: telemetry is off: telemetry.target "gcp" exports straight to Google Cloud`
	if lines := strings.Split(strings.TrimSuffix(string(stderr), "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], warning) {
		t.Errorf("stderr is not the one warning %q:\n%s", warning, stderr)
	}
}

// prompt sends text to the session and returns the answer.
func (h *acpHarness) prompt(text string) (sdk.PromptResponse, error) {
	return h.client.Conn.Prompt(h.ctx, sdk.PromptRequest{SessionId: h.session, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// mustPrompt is prompt, failing the test on an error or a stop reason
// other than want.
func (h *acpHarness) mustPrompt(text string, want sdk.StopReason) sdk.PromptResponse {
	h.t.Helper()
	res, err := h.prompt(text)
	if err != nil {
		h.t.Fatalf("session/prompt: %v", err)
	}
	if res.StopReason != want {
		h.t.Fatalf("stop reason %q, want %q", res.StopReason, want)
	}
	return res
}

// cancelMidway sends text, waits until started holds, sends
// session/cancel, and requires the prompt to answer "cancelled" within 2 s.
func (h *acpHarness) cancelMidway(text, what string, started func(*acptest.Client) bool) {
	h.t.Helper()
	done := make(chan struct{})
	var res sdk.PromptResponse
	var err error
	go func() {
		defer close(done)
		res, err = h.prompt(text)
	}()
	h.client.Wait(h.ctx, what, started)
	if err := h.client.Conn.Cancel(h.ctx, sdk.CancelNotification{SessionId: h.session}); err != nil {
		h.t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		h.t.Fatal("the prompt did not answer within 2 s of session/cancel")
	}
	if err != nil || res.StopReason != sdk.StopReasonCancelled {
		h.t.Fatalf("the cancelled prompt answered %+v, %v", res, err)
	}
}

// functionResponses are the functionResponse parts of model request i.
func (h *acpHarness) functionResponses(i int) []map[string]any {
	h.t.Helper()
	reqs := h.model.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("model request %d was not made (%d were)", i, len(reqs))
	}
	var out []map[string]any
	for _, c := range reqs[i].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, p.FunctionResponse.Response)
			}
		}
	}
	return out
}

func TestACPInitializeAndPrompt(t *testing.T) {
	h := startACP(t, acpSetup{noSession: true}, geminitest.Turn{Chunks: []geminitest.Chunk{
		{Text: "Thinking about it", Thought: true},
		{Text: "Hello "},
		{Text: "from gemini-ls."},
	}})
	init, err := h.client.Initialize(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	caps := init.AgentCapabilities
	if init.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext || !caps.McpCapabilities.Http || caps.SessionCapabilities.List == nil {
		t.Errorf("initialize answered %+v", init)
	}
	var ids []string
	for _, m := range init.AuthMethods {
		ids = append(ids, m.Agent.Id)
	}
	if got := strings.Join(ids, ","); got != "oauth-personal,gemini-api-key,vertex-ai" {
		t.Errorf("auth methods %s", got)
	}
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	if res.SessionId == "" {
		t.Fatal("no session id")
	}
	answer := h.mustPrompt("Say hello", sdk.StopReasonEndTurn)
	if answer.Usage == nil || answer.Usage.TotalTokens == 0 {
		t.Errorf("no usage in %+v", answer)
	}
	if got := h.client.MessageText(h.session); got != "Hello from gemini-ls." {
		t.Errorf("message %q", got)
	}
	var thought string
	for _, u := range h.client.Updates() {
		if c := u.Update.AgentThoughtChunk; c != nil {
			thought += c.Content.Text.Text
		}
	}
	if !strings.Contains(thought, "Thinking about it") {
		t.Errorf("thought chunks %q", thought)
	}
}

// A cancelled prompt answers "cancelled" promptly, the model request is
// abandoned, and the session takes the next prompt.
func TestACPCancelMidModelCall(t *testing.T) {
	h := startACP(t, acpSetup{},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Working on"}}, Hang: true},
		geminitest.TextTurn("Next answer."))
	h.cancelMidway("Do something long", "the first chunk", func(c *acptest.Client) bool { return strings.Contains(c.MessageText(h.session), "Working on") })
	h.mustPrompt("And now?", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); !strings.HasSuffix(got, "Next answer.") {
		t.Errorf("message after cancel %q", got)
	}
}

// Lines that are not JSON-RPC messages get JSON-RPC errors, and the
// connection goes on.
func TestACPMalformedMessages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := filepath.Join(t.TempDir(), "gemini-ls.log")
	proc := lsptest.StartCommand(t, binary, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, log, "--acp", "--log-file", log)
	lines := bufio.NewScanner(proc)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		t.Helper()
		if _, err := proc.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	next := func() answer {
		t.Helper()
		got := make(chan answer, 1)
		go func() {
			var a answer
			if lines.Scan() {
				_ = json.Unmarshal(lines.Bytes(), &a)
			}
			got <- a
		}()
		select {
		case a := <-got:
			return a
		case <-ctx.Done():
			t.Fatal("no answer")
			return answer{}
		}
	}
	long := `{"jsonrpc":"2.0","id":77,"method":"session/prompt","params":{"x":"` + strings.Repeat("a", 11<<20) + `"}}`
	for _, c := range []struct {
		line string
		id   string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}`, "null", -32700},
		{`not json at all`, "null", -32700},
		{`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`, "null", -32600},
		{`42`, "null", -32600},
		{`{"jsonrpc":"1.0","id":3,"method":"initialize","params":{}}`, "3", -32600},
		{`{"jsonrpc":"2.0","id":4,"method":7}`, "4", -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, "null", -32600},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":"x"}`, "5", -32600},
		{`{"jsonrpc":"2.0","id":6,"method":"no/such/method","params":{}}`, "6", -32601},
		{`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":5}}`, "7", -32602},
		{`{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`, "8", -32602},
		{`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`, "9", -32602},
		{long, "77", -32600},
	} {
		send(c.line)
		a := next()
		if a.Error == nil || a.Error.Code != c.code || string(a.ID) != c.id {
			t.Errorf("%.80s: answered id %s error %+v, want id %s code %d", c.line, a.ID, a.Error, c.id, c.code)
		}
	}
	// Answers, to nothing or malformed, are never answered: an error
	// carrying their id would answer a request the client never sent.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":10,"result":null}`,
		`{"jsonrpc":"2.0","id":10}`,
		`{"jsonrpc":"2.0","id":10,"error":{"code":-32603,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":10,"result":{"x":`,
		`{"jsonrpc":"2.0","id":10,"result":"` + strings.Repeat("a", 11<<20) + `"}`,
	} {
		send(line)
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if a := next(); string(a.ID) != "10" || a.Error != nil || len(a.Result) == 0 {
		t.Errorf("initialize after the malformed messages answered %+v", a)
	}
}

// An MCP server the client passes in session/new is started like those of
// settings: its tools are declared to the model, and a call runs on it
// once the user allows it.
func TestACPClientMCPServer(t *testing.T) {
	bin := mcpServerBinary(t)
	h := startACP(t, acpSetup{env: trustTheWorkspace(), mcpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{
		Name: "tester", Command: bin, Args: []string{}, Env: []sdk.EnvVariable{},
	}}}},
		geminitest.CallTurn(geminitest.Call("echo", map[string]any{"message": "hello"})),
		geminitest.TextTurn("done"))
	h.mustPrompt("use the tester", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	if !slices.Contains(declared(reqs, 0), "mcp_tester_echo") {
		t.Fatalf("the first request does not declare the client's server's echo: %v", declared(reqs, 0))
	}
	if got := h.functionResponses(1); len(got) != 1 || got[0]["output"] != "Echo: hello" {
		t.Errorf("echo answered the model %v", got)
	}
	p := h.client.Permissions()
	if len(p) != 1 || p[0].ToolCall.ToolCallId == "" {
		t.Fatalf("permission requests %+v, want one for the MCP call", p)
	}
	// Its title names the server and the tool, for clients that show the
	// title alone; the arguments come as rawInput.
	tc := p[0].ToolCall
	title := "<none>"
	if tc.Title != nil {
		title = *tc.Title
	}
	if title != "tester: echo" || !reflect.DeepEqual(tc.RawInput, map[string]any{"message": "hello"}) {
		t.Errorf("the permission request's tool call: title %q, rawInput %v; want \"tester: echo\" and the arguments", title, tc.RawInput)
	}
}

// Without credentials session/new asks for authentication, naming every
// way in; authenticate with a key in _meta, as Gemini CLI takes it, lets
// it through.
func TestACPAuthenticate(t *testing.T) {
	h := startACP(t, acpSetup{noSession: true, env: []string{"GEMINI_API_KEY="}}, geminitest.TextTurn("Hi."))
	_, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !reflect.DeepEqual(re.Data, map[string]any{"error": noCredentials}) {
		t.Fatalf("session/new without a key: %v, want auth_required saying every way in", err)
	}
	_, err = h.client.Conn.Authenticate(h.ctx, sdk.AuthenticateRequest{MethodId: "gemini-api-key"})
	if !errors.As(err, &re) || re.Code != -32000 {
		t.Fatalf("authenticate without a key: %v, want auth_required", err)
	}
	if _, err := h.client.Conn.Authenticate(h.ctx, sdk.AuthenticateRequest{MethodId: "no-such-method"}); !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("authenticate with an unknown method: %v, want invalid params", err)
	}
	if _, err := h.client.Conn.Authenticate(h.ctx, sdk.AuthenticateRequest{MethodId: "gemini-api-key", Meta: map[string]any{"api-key": "key-from-client"}}); err != nil {
		t.Fatalf("authenticate with a key: %v", err)
	}
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	h.mustPrompt("hello", sdk.StopReasonEndTurn)
	if got := h.model.Requests()[0].APIKey; got != "key-from-client" {
		t.Errorf("the model was called with key %q", got)
	}
}

// A prompt's content blocks reach the model: text as typed, a resource
// link as the file it names, an embedded resource and an image as parts.
func TestACPPromptContentBlocks(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"notes/todo list.md": "buy milk\n"}}, geminitest.TextTurn("Seen."))
	png := []byte("\x89PNG\r\n\x1a\nfake")
	_, err := h.client.Conn.Prompt(h.ctx, sdk.PromptRequest{SessionId: h.session, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("Look at"),
		sdk.ResourceLinkBlock("todo list.md", "file://"+h.path("notes/todo list.md")),
		sdk.TextBlock("and this:"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///elsewhere/snippet.go", Text: "package snippet"}}),
		sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	user := h.model.Requests()[0].Contents[0]
	var text strings.Builder
	var image []byte
	for _, p := range user.Parts {
		text.WriteString(p.Text)
		if p.InlineData != nil {
			image = p.InlineData.Data
		}
	}
	for _, want := range []string{"Look at @notes/todo list.md and this:", "buy milk", "Content from file:///elsewhere/snippet.go:\npackage snippet"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the model's user content lacks %q:\n%s", want, text.String())
		}
	}
	if string(image) != string(png) {
		t.Errorf("the image reached the model as %q", image)
	}
	_, err = h.client.Conn.Prompt(h.ctx, sdk.PromptRequest{SessionId: h.session, Prompt: []sdk.ContentBlock{sdk.ImageBlock("not base64!", "image/png")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("an image that is not base64: %v, want invalid params", err)
	}
}

// The model's to-do list (write_todos) is the session's plan.
func TestACPPlan(t *testing.T) {
	todo := func(desc, status string) map[string]any { return map[string]any{"description": desc, "status": status} }
	h := startACP(t, acpSetup{},
		geminitest.CallTurn(geminitest.Call("write_todos", map[string]any{"todos": []any{
			todo("Read the code", "completed"), todo("Fix the bug", "in_progress"), todo("Ask about X", "blocked"), todo("Old idea", "cancelled"),
		}})),
		geminitest.TextTurn("Planned."))
	h.mustPrompt("fix it", sdk.StopReasonEndTurn)
	var plans [][]sdk.PlanEntry
	for _, u := range h.client.Updates() {
		if u.Update.Plan != nil {
			plans = append(plans, u.Update.Plan.Entries)
		}
	}
	want := []sdk.PlanEntry{
		{Content: "Read the code", Priority: "medium", Status: "completed"},
		{Content: "Fix the bug", Priority: "medium", Status: "in_progress"},
		{Content: "(blocked) Ask about X", Priority: "medium", Status: "pending"},
		{Content: "(cancelled) Old idea", Priority: "medium", Status: "completed"},
	}
	if len(plans) != 1 || !reflect.DeepEqual(plans[0], want) {
		t.Errorf("plans %+v, want one: %+v", plans, want)
	}
	if calls := h.client.ToolCalls(); len(calls) != 1 || calls[0].Kind != sdk.ToolKindThink || calls[0].Title != "Set 4 todo(s)" {
		t.Errorf("tool calls %+v", calls)
	}
	if got := h.functionResponses(1); len(got) != 1 || !strings.HasPrefix(got[0]["output"].(string), "Successfully updated the todo list.") {
		t.Errorf("write_todos answered %v", got)
	}
}
