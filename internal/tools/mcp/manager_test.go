package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// testServer is the test MCP server (mcptest.ServeStdio, what
// testdata/mcpserver runs): this test binary, copied under the name
// mcpserver, which TestMain serves as. No Go toolchain is needed to run
// the tests (Windows test machines have none).
var testServer string

const serverName = "mcpserver"

func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == serverName {
		mcptest.ServeStdio(os.Args[1:])
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "mcpserver")
	if err != nil {
		panic(err)
	}
	testServer = filepath.Join(dir, serverName)
	if runtime.GOOS == "windows" {
		testServer += ".exe"
	}
	if err := copyExecutable(testServer); err != nil {
		panic("making the test MCP server: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// copyExecutable copies this test binary to path.
func copyExecutable(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o755)
}

// started starts servers and waits for them; the manager is closed at the
// end of the test.
func started(t *testing.T, servers map[string]settings.MCPServer, reserved ...string) (*Manager, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	m := Start(Config{Servers: servers, Dir: t.TempDir(), Reserved: reserved, Logger: zap.New(core)})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatalf("the servers never finished starting: %v", err)
	}
	return m, logs
}

func names(m *Manager) []string {
	var out []string
	for _, t := range m.Tools() {
		out = append(out, t.Name())
	}
	return out
}

func find(t *testing.T, m *Manager, name string) tools.Tool {
	t.Helper()
	for _, tool := range m.Tools() {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %q among %v", name, names(m))
	return nil
}

func run(t *testing.T, tool tools.Tool, args map[string]any) tools.Result {
	t.Helper()
	call, err := tool.Build(args)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := call.Execute(ctx, tools.CallInfo{})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

func warnings(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.FilterLevelExact(zapcore.WarnLevel).All() {
		line := e.Message
		for _, f := range e.Context {
			line += " " + f.Key + "=" + f.String
		}
		out = append(out, line)
	}
	return out
}

func TestToolsAreListedDeclaredAndCalled(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer}})
	want := []string{"mcp_alpha_add", "mcp_alpha_crash", "mcp_alpha_echo", "mcp_alpha_fail", "mcp_alpha_image", "mcp_alpha_resource", "mcp_alpha_slow", "mcp_alpha_spawn"}
	got := names(m)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	decl := find(t, m, "mcp_alpha_echo").Declaration()
	schema, _ := decl.ParametersJsonSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if decl.Description != "Echoes the message." || props["message"] == nil {
		t.Errorf("declaration = %q, schema %v; want the server's description and input schema", decl.Description, decl.ParametersJsonSchema)
	}
	if res := run(t, find(t, m, "mcp_alpha_echo"), map[string]any{"message": "hi"}); res.Output != "Echo: hi" || res.Error != "" {
		t.Errorf("echo = %+v", res)
	}
	if res := run(t, find(t, m, "mcp_alpha_add"), map[string]any{"a": 2, "b": 40}); res.Output != "42" {
		t.Errorf("add = %+v", res)
	}
	if w := warnings(logs); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}

// A server's tool is declared with wait_for_previous, as Gemini CLI 0.61
// declares it (addWaitForPreviousParameter), and the model's argument
// reaches the server with the rest, as 0.61 passes it on.
func TestWaitForPreviousDeclaredAndPassedOn(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer}})
	slow := find(t, m, "mcp_alpha_slow")
	schema, _ := slow.Declaration().ParametersJsonSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	wait, _ := props[tools.WaitForPrevious].(map[string]any)
	desc, _ := wait["description"].(string)
	if wait["type"] != "boolean" || !strings.HasPrefix(desc, "Set to true to wait for all previously requested tools") || props["ms"] == nil {
		t.Errorf("schema = %v, want the server's with wait_for_previous added", schema)
	}
	res := run(t, slow, map[string]any{"ms": 1, "wait_for_previous": true})
	if want := `overlapped: false; arguments: {"ms":1,"wait_for_previous":true}`; res.Output != want {
		t.Errorf("slow = %+v, want output %q", res, want)
	}
}

func TestConfirmationUnlessTrusted(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{
		"alpha": {Command: testServer, ExcludeTools: []string{"add"}},
		"beta":  {Command: testServer, Trust: true, IncludeTools: []string{"add"}},
	})
	call, _ := find(t, m, "mcp_alpha_echo").Build(map[string]any{"message": "hi"})
	c := call.Confirmation()
	if c == nil {
		t.Fatal("an untrusted server's tool needs no confirmation")
	}
	if c.Kind != "mcp" || !strings.Contains(c.Title, `"echo"`) || !strings.Contains(c.Title, `"alpha"`) ||
		!strings.Contains(c.Details, `"message": "hi"`) || !slices.Equal(c.AllowKeys, []string{"mcp:alpha:echo"}) || c.Trusted {
		t.Errorf("confirmation = %+v", c)
	}
	// The agent's approval service, not the tool, lets a trusted server's
	// calls run without asking: the tool says the settings trust it.
	trusted, _ := find(t, m, "mcp_beta_add").Build(map[string]any{"a": 1, "b": 2})
	if c := trusted.Confirmation(); c == nil || !c.Trusted || !slices.Equal(c.AllowKeys, []string{"mcp:beta:add"}) {
		t.Errorf("a trusted server's confirmation = %+v", c)
	}
}

// Every tool is named as Gemini CLI 0.61 names it, mcp_SERVER_TOOL made
// valid: two servers' tools of one name have two names. Two tools whose
// names come out the same (server s_x's fail, server s's x_fail) cannot
// both be offered: the one named first keeps the name, the other is left
// out with a warning (0.61 lets the one registered last replace the
// other; a name here never comes to mean another tool in one run).
func TestNamesAreQualifiedAsGeminiCLI061(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{
		"alpha":    {Command: testServer, Args: []string{"-extra", "read file/now!"}, IncludeTools: []string{"add(a, b)", "read file/now!", "fail"}},
		"beta.srv": {Command: testServer, ExcludeTools: []string{"crash", "spawn", "image", "resource", "add", "slow"}},
		"s":        {Command: testServer, Args: []string{"-extra", "x_fail"}, IncludeTools: []string{"x_fail"}},
		"s_x":      {Command: testServer, IncludeTools: []string{"fail"}},
	}, "add", "echo")
	got := names(m)
	slices.Sort(got)
	want := []string{"mcp_alpha_add", "mcp_alpha_fail", "mcp_alpha_read_file_now_", "mcp_beta.srv_echo", "mcp_beta.srv_fail", "mcp_s_x_fail"}
	if !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	if res := run(t, find(t, m, "mcp_alpha_read_file_now_"), nil); res.Output != "I am read file/now!" {
		t.Errorf("a renamed tool is called by its server's name: %+v", res)
	}
	if res := run(t, find(t, m, "mcp_beta.srv_echo"), map[string]any{"message": "x"}); res.Output != "Echo: x" {
		t.Errorf("a qualified tool is called by its server's name: %+v", res)
	}
	if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], "skipped: its name mcp_s_x_fail is taken") || !strings.Contains(w[0], "name=mcp_s_x_fail") {
		t.Errorf("warnings = %q, want the clash named", w)
	}
}

func TestQualifiedName(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp_github_create_issue"},
		{"my server", "get weather", "mcp_my_server_get_weather"},
		{"mcp_tools", "echo", "mcp_tools_echo"}, // already prefixed, as 0.61 keeps it
		{"s", strings.Repeat("t", 70), "mcp_s_" + strings.Repeat("t", 24) + "..." + strings.Repeat("t", 30)},
	} {
		if got := qualifiedName(tc.server, tc.tool); got != tc.want {
			t.Errorf("qualifiedName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}

func TestValidName(t *testing.T) {
	long := strings.Repeat("a", 40) + strings.Repeat("b", 40)
	for in, want := range map[string]string{
		"echo":         "echo",
		"get weather":  "get_weather",
		"9lives":       "_9lives",
		"ns:tool.v2-x": "ns:tool.v2-x",
		"é":            "_",
		long:           strings.Repeat("a", 30) + "..." + strings.Repeat("b", 30),
	} {
		if got := validName(in); got != want {
			t.Errorf("validName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResultsMapToParts(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer}})
	res := run(t, find(t, m, "mcp_alpha_image"), nil)
	if res.Output != "a red pixel\n[Tool 'image' provided the following image data with mime-type: image/png]" ||
		len(res.Parts) != 1 || res.Parts[0].InlineData == nil || res.Parts[0].InlineData.MIMEType != "image/png" ||
		!strings.HasPrefix(string(res.Parts[0].InlineData.Data), "\x89PNG") {
		t.Errorf("image = %+v", res)
	}
	if res.Display != "a red pixel\n[Image: image/png]" {
		t.Errorf("image display = %q", res.Display)
	}
	res = run(t, find(t, m, "mcp_alpha_resource"), nil)
	wantOut := "the notes\n[Tool 'resource' provided the following embedded resource with mime-type: application/octet-stream]\nResource Link: The manual at file:///manual.pdf"
	if res.Output != wantOut || len(res.Parts) != 1 || string(res.Parts[0].InlineData.Data) != "\x01\x02\x03" {
		t.Errorf("resource = %q %+v, want %q", res.Output, res.Parts, wantOut)
	}
	res = run(t, find(t, m, "mcp_alpha_fail"), nil)
	if res.Error != "MCP tool 'fail' reported an error: the disk is full" || res.Output != "" {
		t.Errorf("fail = %+v", res)
	}
}

func TestServerThatCrashesIsReportedOnceAndWithdrawn(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{
		"alpha": {Command: testServer, ExcludeTools: []string{"mcp_beta_echo"}},
		"beta":  {Command: testServer, IncludeTools: []string{"echo"}},
	})
	crash := find(t, m, "mcp_alpha_crash")
	call, _ := crash.Build(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := call.Execute(ctx, tools.CallInfo{}); err == nil {
		t.Error("a call whose server died succeeded")
	}
	// Withdrawn by the time the call failed: the model's next request
	// must not offer them.
	if got := names(m); !slices.Equal(got, []string{"mcp_beta_echo"}) {
		t.Errorf("tools after the crash = %v, want only beta's", got)
	}
	if _, err := call.Execute(ctx, tools.CallInfo{}); err == nil || !strings.Contains(err.Error(), `MCP server "alpha" is no longer running`) {
		t.Errorf("a call to a dead server: %v", err)
	}
	if res := run(t, find(t, m, "mcp_beta_echo"), map[string]any{"message": "still here"}); res.Output != "Echo: still here" {
		t.Errorf("the other server: %+v", res)
	}
	w := warnings(logs)
	if len(w) != 1 || !strings.Contains(w[0], "server=alpha") || !strings.Contains(w[0], "crashing on purpose") ||
		!strings.Contains(w[0], "exit status 3") {
		t.Errorf("warnings = %q, want one naming alpha, its stderr and its exit status", w)
	}
	st := m.Servers()
	if len(st) != 2 || st[0].Name != "alpha" || st[0].State != StateStopped || st[0].Tools == 0 || !strings.Contains(st[0].Error, "crashing on purpose") ||
		st[1] != (ServerStatus{Name: "beta", State: StateReady, Tools: 1}) {
		t.Errorf("Servers = %+v, want alpha stopped saying why, beta ready with 1 tool", st)
	}
}

func TestServersThatFailToStartAreReportedOnce(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{
		"broken":  {Command: testServer, Args: []string{"-fail-at-start"}},
		"missing": {Command: "gemini-ls-no-such-mcp-server"},
		"nothing": {},
		"ok":      {Command: testServer, IncludeTools: []string{"echo"}},
	})
	if got := names(m); !slices.Equal(got, []string{"mcp_ok_echo"}) {
		t.Errorf("tools = %v, want only ok's", got)
	}
	w := warnings(logs)
	if len(w) != 3 {
		t.Fatalf("warnings = %q, want one per failed server", w)
	}
	slices.Sort(w) // they come as the servers fail
	for i, wants := range [][]string{
		{"server=broken", "cannot open the database", "exit status 2"},
		{"server=missing", `cannot start gemini-ls-no-such-mcp-server: executable file not found`},
		{"server=nothing", "no command, httpUrl or url is configured"},
	} {
		for _, want := range wants {
			if !strings.Contains(w[i], want) {
				t.Errorf("warning %q does not say %q", w[i], want)
			}
		}
	}
	st := m.Servers()
	var got []string
	for _, s := range st {
		got = append(got, s.Name+" "+string(s.State)+" "+strconv.Itoa(s.Tools))
	}
	if strings.Join(got, ", ") != "broken failed 0, missing failed 0, nothing failed 0, ok ready 1" ||
		!strings.Contains(st[0].Error, "cannot open the database") {
		t.Errorf("Servers = %+v", st)
	}
}

func TestCloseEndsEveryProcess(t *testing.T) {
	core, _ := observer.New(zapcore.InfoLevel)
	m := Start(Config{Servers: map[string]settings.MCPServer{"alpha": {Command: testServer}}, Logger: zap.New(core)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	spawn := find(t, m, "mcp_alpha_spawn").(*tool)
	child, err := strconv.Atoi(run(t, spawn, nil).Output)
	if err != nil {
		t.Fatal(err)
	}
	server := spawn.server.cmd.Process.Pid
	if !spawntest.Alive(server) || !spawntest.Alive(child) {
		t.Fatal("the processes are not running")
	}
	m.Close()
	for _, pid := range []int{server, child} {
		for spawntest.Alive(pid) {
			if ctx.Err() != nil {
				t.Fatalf("process %d outlived Close", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools after Close: %v", names(m))
	}
}

func TestStartDoesNotWaitForASlowServer(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	// A server that only sleeps never answers the handshake.
	m := Start(Config{Servers: map[string]settings.MCPServer{
		"slow":    {Command: testServer, Args: []string{"-sleep", "300s"}, Timeout: 300},
		"stalled": {Command: testServer, Args: []string{"-sleep", "300s"}},
	}, Logger: zap.New(core)})
	defer m.Close()
	if len(m.Tools()) != 0 {
		t.Error("tools before any server answered")
	}
	if st := m.Servers(); len(st) != 2 || st[0].State != StateStarting || st[1].State != StateStarting {
		t.Errorf("Servers before any answered = %+v", st)
	}
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := m.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with a server still starting = %v", err)
	}
	// The server with a timeout gives up on its own.
	deadline := time.Now().Add(20 * time.Second)
	for len(warnings(logs)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], "server=slow") || !strings.Contains(w[0], "deadline exceeded") {
		t.Errorf("warnings = %q, want slow's timeout", w)
	}
}

func TestStreamableHTTPWithHeaders(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "whoami"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are " + req.Extra.Header.Get("X-User")}}}, nil, nil
	})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(web.Close) // after the manager's Close, which ends the streams
	headers := map[string]string{"Authorization": "Bearer sesame", "X-User": "ada"}
	m, logs := started(t, map[string]settings.MCPServer{
		"web":   {HTTPURL: web.URL, Headers: headers},
		"url":   {URL: web.URL, Headers: headers, IncludeTools: []string{"whoami"}},
		"nokey": {URL: web.URL},
	})
	if res := run(t, find(t, m, "mcp_url_whoami"), nil); res.Output != "you are ada" {
		t.Errorf("whoami = %+v", res)
	}
	if got := names(m); len(got) != 2 {
		t.Errorf("tools = %v, want web's and url's", got)
	}
	if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], "server=nokey") {
		t.Errorf("warnings = %q, want nokey refused", w)
	}
}
