package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// testMCPServer is internal/tools/mcp/testdata/mcpserver, an MCP server built with
// the SDK gemini-ls uses, built once.
var testMCPServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mcpserver")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "../../../internal/tools/mcp/testdata/mcpserver").CombinedOutput()
	if err != nil {
		return "", &buildError{err, out}
	}
	return bin, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

func mcpServerBinary(t *testing.T) string {
	t.Helper()
	bin, err := testMCPServer()
	if err != nil {
		t.Fatalf("building the test MCP server: %v", err)
	}
	return bin
}

// trustTheWorkspace is the environment that lets a workspace's
// .gemini/settings.json apply (settings: only trusted folders' do).
func trustTheWorkspace() []string { return []string{"GEMINI_CLI_TRUST_WORKSPACE=true"} }

// settingsJSON is a workspace's .gemini/settings.json naming servers.
func settingsJSON(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// declared are the function names request i declared.
func declared(reqs []geminitest.Request, i int) []string {
	var names []string
	for _, tool := range reqs[i].Tools {
		for _, d := range tool.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

func declaration(reqs []geminitest.Request, i int, name string) *genai.FunctionDeclaration {
	for _, tool := range reqs[i].Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				return d
			}
		}
	}
	return nil
}

// processGone waits until pid has exited (or is a zombie nobody reaped yet).
func processGone(ctx context.Context, pid int) bool {
	for spawntest.Alive(pid) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// parentOf is pid's parent process id, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// Through the editor: the servers start in the background, their tools are
// declared with their schemas, each call is confirmed by the user and runs
// on the server; a server whose command does not exist and one that dies at
// start are reported once each; every server process, and their children,
// end when the editor says exit.
func TestMCPToolsThroughTheEditor(t *testing.T) {
	bin := mcpServerBinary(t)
	h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{
			"tester":  map[string]any{"command": bin, "excludeTools": []string{"crash"}},
			"missing": map[string]any{"command": "gemini-ls-no-such-mcp-server"},
			"broken":  map[string]any{"command": bin, "args": []string{"-fail-at-start"}},
		}),
	}},
		call("echo", map[string]any{"message": "hello"}),
		call("add", map[string]any{"a": 2, "b": 40}),
		call("image", nil),
		call("spawn", nil),
		geminitest.TextTurn("done"),
	)
	var confirms []map[string]any
	var mu sync.Mutex
	h.client.OnConfirm = func(_ context.Context, params json.RawMessage) string {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		confirms = append(confirms, p)
		mu.Unlock()
		return "proceed_once"
	}
	h.waitLog("MCP server ready")
	for _, why := range []string{"gemini-ls-no-such-mcp-server", "cannot open the database"} {
		if _, err := h.client.WaitMessage(h.ctx, "window/logMessage", func(p json.RawMessage) bool {
			return strings.Contains(string(p), why)
		}); err != nil {
			t.Errorf("no window/logMessage saying %q: %v", why, err)
		}
	}
	if res := h.prompt(map[string]any{"prompt": "use the tools"}); res.Text != "done" {
		t.Fatalf("prompt = %+v", res)
	}
	reqs := h.model.Requests()
	for _, name := range []string{"mcp_tester_echo", "mcp_tester_add", "mcp_tester_image", "mcp_tester_spawn", "read_file"} {
		if !slices.Contains(declared(reqs, 0), name) {
			t.Errorf("the first request does not declare %s: %v", name, declared(reqs, 0))
		}
	}
	if slices.Contains(declared(reqs, 0), "mcp_tester_crash") {
		t.Error("an excluded tool was declared")
	}
	if d := declaration(reqs, 0, "mcp_tester_add"); d == nil || !strings.Contains(mustMarshal(t, d.ParametersJsonSchema), `"a"`) {
		t.Errorf("add's declaration lacks its input schema: %+v", d)
	}
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != "Echo: hello" {
		t.Errorf("echo = %q", got)
	}
	if got := h.toolOutputs(2); len(got) != 1 || got[0] != "42" {
		t.Errorf("add = %q", got)
	}
	last := reqs[3].Contents[len(reqs[3].Contents)-1]
	if len(last.Parts) != 2 || last.Parts[1].InlineData == nil || last.Parts[1].InlineData.MIMEType != "image/png" {
		t.Errorf("image: the answer's parts are %+v, want the response and the picture", last.Parts)
	}
	mu.Lock()
	if len(confirms) != 4 || confirms[0]["kind"] != "mcp" || !strings.Contains(confirms[0]["title"].(string), `"echo" from server "tester"`) ||
		!strings.Contains(confirms[0]["details"].(string), `"message": "hello"`) {
		t.Errorf("confirmations = %v, want one per call naming the server, the tool and its arguments", confirms)
	}
	mu.Unlock()
	for _, why := range []string{"gemini-ls-no-such-mcp-server", "cannot open the database"} {
		n := 0
		for _, m := range h.client.Messages("window/logMessage") {
			if strings.Contains(string(m.Params), why) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d messages say %q, want one", n, why)
		}
	}

	child, err := strconv.Atoi(h.toolOutputs(4)[0])
	if err != nil {
		t.Fatalf("spawn = %q", h.toolOutputs(4))
	}
	server := parentOf(t, child)
	if err := h.client.Call(h.ctx, "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := h.client.Notify(h.ctx, "exit", nil); err != nil {
		t.Fatalf("exit: %v", err)
	}
	h.wantExit(0, 5*time.Second)
	for _, pid := range []int{server, child} {
		if !processGone(h.ctx, pid) {
			t.Errorf("process %d outlived gemini-ls", pid)
			spawntest.Kill(pid)
		}
	}
}

// The editor going away (stdin closed) ends the servers too.
func TestMCPServersEndWhenTheEditorGoesAway(t *testing.T) {
	bin := mcpServerBinary(t)
	h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), opts: map[string]any{"approvalMode": "yolo"}, files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": bin}}),
	}}, call("spawn", nil), geminitest.TextTurn("done"))
	h.waitLog("MCP server ready")
	h.prompt(map[string]any{"prompt": "spawn"})
	child, err := strconv.Atoi(h.toolOutputs(1)[0])
	if err != nil {
		t.Fatalf("spawn = %q", h.toolOutputs(1))
	}
	server := parentOf(t, child)
	closeStdin(t, h)
	h.wantExit(1, 5*time.Second)
	for _, pid := range []int{server, child} {
		if !processGone(h.ctx, pid) {
			t.Errorf("process %d outlived gemini-ls", pid)
			spawntest.Kill(pid)
		}
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Headless: the run waits for the servers, calls their tools (yolo: no
// confirmation), and a server that dies mid-run is reported once, its tools
// withdrawn from the next request while the other server keeps working.
func TestMCPToolsHeadless(t *testing.T) {
	bin := mcpServerBinary(t)
	h := newHeadless(t, map[string]string{},
		call("add", map[string]any{"a": 1, "b": 2}),
		call("crash", nil),
		call("echo", map[string]any{"message": "still there"}),
		call("add", map[string]any{"a": 1, "b": 2}),
		geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"calc":    map[string]any{"command": bin, "includeTools": []string{"add", "crash"}},
		"talk":    map[string]any{"command": bin, "includeTools": []string{"echo"}},
		"missing": map[string]any{"command": "gemini-ls-no-such-mcp-server"},
	})})
	res := h.runIn(h.root, trusted(t, h), "run", "-p", "calculate", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "3" {
		t.Errorf("add = %q", got)
	}
	if got := responseError(h.responses(2)[0]); !strings.Contains(got, "calc") {
		t.Errorf("crash = %q, want an error naming the server", got)
	}
	if got := responseOutput(h.responses(3)[0]); got != "Echo: still there" {
		t.Errorf("echo after the crash = %q", got)
	}
	if got := responseError(h.responses(4)[0]); !strings.Contains(got, `Tool "add" not found`) {
		t.Errorf("add after the crash = %q, want not found", got)
	}
	reqs := h.model.Requests()
	// Withdrawn from the request that reports the crash on.
	if !slices.Contains(declared(reqs, 0), "mcp_calc_add") || slices.Contains(declared(reqs, 2), "mcp_calc_add") || !slices.Contains(declared(reqs, 2), "mcp_talk_echo") {
		t.Errorf("declared: first %v, after the crash %v; want add withdrawn, echo kept", declared(reqs, 0), declared(reqs, 2))
	}
	for _, want := range []string{"gemini-ls-no-such-mcp-server", "crashing on purpose"} {
		if n := strings.Count(res.stderr, want); n != 1 {
			t.Errorf("stderr says %q %d times, want once:\n%s", want, n, res.stderr)
		}
	}
}

// everythingServer is the command line of the reference MCP server from
// the npm registry, @modelcontextprotocol/server-everything, at the version
// testdata/everything's lockfile pins. npm ci installs it into the user's
// cache on first use, in a directory named by the lockfile's hash, so a new
// pin gets a fresh install. Only a missing node skips.
func everythingServer(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "everything")
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	dir := filepath.Join(cache, "gemini-ls", "npm-everything-"+hex.EncodeToString(sum[:6]))
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("installing @modelcontextprotocol/server-everything from %s's lockfile: %v\n%s", src, err, out)
		}
	}
	return []string{node, script, "stdio"}
}

func everythingSettings(t *testing.T) string {
	cmd := everythingServer(t)
	return settingsJSON(t, map[string]any{"everything": map[string]any{"command": cmd[0], "args": cmd[1:]}})
}

// The npm reference server's tools, called through the editor, each
// confirmed by the user.
func TestMCPReferenceServerThroughTheEditor(t *testing.T) {
	settings := everythingSettings(t)
	h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), files: map[string]string{".gemini/settings.json": settings}},
		call("echo", map[string]any{"message": "hello"}),
		call("get-sum", map[string]any{"a": 2, "b": 40}),
		call("get-tiny-image", nil),
		geminitest.TextTurn("done"),
	)
	confirmed := 0
	var mu sync.Mutex
	h.client.OnConfirm = func(_ context.Context, params json.RawMessage) string {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(string(params), `from server \"everything\"`) {
			confirmed++
		}
		return "proceed_once"
	}
	h.waitLog(`"server":"everything","tools"`)
	if res := h.prompt(map[string]any{"prompt": "use the tools"}); res.Text != "done" {
		t.Fatalf("prompt = %+v", res)
	}
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != "Echo: hello" {
		t.Errorf("echo = %q", got)
	}
	if got := h.toolOutputs(2); len(got) != 1 || !strings.Contains(got[0], "42") {
		t.Errorf("get-sum = %q", got)
	}
	reqs := h.model.Requests()
	last := reqs[3].Contents[len(reqs[3].Contents)-1]
	if len(last.Parts) < 2 || last.Parts[1].InlineData == nil || last.Parts[1].InlineData.MIMEType != "image/png" {
		t.Errorf("get-tiny-image: the answer's parts are %+v, want the picture inline", last.Parts)
	}
	mu.Lock()
	if confirmed != 3 {
		t.Errorf("%d calls confirmed, want 3", confirmed)
	}
	mu.Unlock()
}

// The npm reference server's tools, called headless with yolo.
func TestMCPReferenceServerHeadless(t *testing.T) {
	settings := everythingSettings(t)
	h := newHeadless(t, map[string]string{".gemini/settings.json": settings},
		call("echo", map[string]any{"message": "hello"}),
		call("get-sum", map[string]any{"a": 2, "b": 40}),
		geminitest.TextTurn("done"),
	)
	res := h.runIn(h.root, trusted(t, h), "run", "-p", "add", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "Echo: hello" {
		t.Errorf("echo = %q", got)
	}
	if got := responseOutput(h.responses(2)[0]); !strings.Contains(got, "42") {
		t.Errorf("get-sum = %q", got)
	}
	if strings.TrimSpace(res.stdout) != "done" {
		t.Errorf("stdout = %q", res.stdout)
	}
}

// Headless without yolo, an untrusted server's tool is not offered (a
// call of it is not found, as in 0.61; the user is told how to allow
// it), and a trusted server's tool runs.
func TestMCPHeadlessAsksOnlyForUntrustedServers(t *testing.T) {
	bin := mcpServerBinary(t)
	h := newHeadless(t, map[string]string{},
		call("echo", map[string]any{"message": "hi"}),
		call("add", map[string]any{"a": 1, "b": 2}),
		geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"untrusted": map[string]any{"command": bin, "includeTools": []string{"echo"}},
		"trusted":   map[string]any{"command": bin, "includeTools": []string{"add"}, "trust": true},
	})})
	r := h.runIn(h.root, trusted(t, h), "run", "-p", "go")
	r.wantExit(t, 0)
	if got := responseError(h.responses(1)[0]); !strings.HasPrefix(got, `Tool "echo" not found.`) {
		t.Errorf("echo = %q, want it not found", got)
	}
	contains(t, "stderr", r.stderr, "echo is not offered to the model in the default approval mode (the yolo approval mode offers it; settings' tools.allowed can allow it)")
	if got := responseOutput(h.responses(2)[0]); got != "3" {
		t.Errorf("a trusted server's add = %q", got)
	}
}

// Four calls of a slow MCP tool in one model answer run at once through
// `gemini-ls run`, their results going back in call order; the same four
// with wait_for_previous run one after another. The server says whether
// each call overlapped another: no clock is read.
func TestMCPSlowCallsOfOneAnswerRunAtOnce(t *testing.T) {
	bin := mcpServerBinary(t)
	answer := func(wait bool) geminitest.Turn {
		var calls []*genai.FunctionCall
		for _, tag := range []string{"a", "b", "c", "d"} {
			args := map[string]any{"ms": 300, "tag": tag}
			if wait {
				args["wait_for_previous"] = true
			}
			calls = append(calls, geminitest.Call("mcp_slowpoke_slow", args))
		}
		return geminitest.CallTurn(calls...)
	}
	h := newHeadless(t, map[string]string{}, answer(false), answer(true), geminitest.TextTurn("done"))
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"slowpoke": map[string]any{"command": bin, "includeTools": []string{"slow"}, "trust": true},
	})})
	h.runIn(h.root, trusted(t, h), "run", "-p", "go").wantExit(t, 0)
	for i, overlapped := range map[int]bool{1: true, 2: false} {
		fr := h.responses(i)
		if len(fr) != 4 {
			t.Fatalf("request %d answers %d calls, want 4", i, len(fr))
		}
		for j, tag := range []string{"a", "b", "c", "d"} {
			args := fmt.Sprintf(`{"ms":300,"tag":"%s"}`, tag)
			if !overlapped {
				args = fmt.Sprintf(`{"ms":300,"tag":"%s","wait_for_previous":true}`, tag)
			}
			if got, want := responseOutput(fr[j]), fmt.Sprintf("overlapped: %v; arguments: %s", overlapped, args); got != want {
				t.Errorf("request %d, response %d = %q, want %q", i, j, got, want)
			}
		}
	}
}
