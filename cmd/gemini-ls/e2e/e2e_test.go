package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// binary is the gemini-ls built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	// --sandbox means bubblewrap in these tests wherever they run, even
	// where docker or podman answers (the sandbox's own tests install
	// podman); a test of podman asks for it (sandboxtest.Podman).
	if err := sandboxtest.HideContainerDaemons(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lsptest.RunWithBinary(m, &binary)
}

// Gemini CLI 0.61's exit statuses, which a run of gemini-ls ends with as
// 0.61's would.
const (
	exitError     = 1
	exitAuth      = 41 // FatalAuthenticationError
	exitInput     = 42 // FatalInputError
	exitMaxTurns  = 53 // FatalTurnLimitedError
	exitUntrusted = 55 // FatalUntrustedWorkspaceError
)

// harness is one editor connected to the real binary, with a fake model
// and a workspace on disk.
type harness struct {
	t      *testing.T
	ctx    context.Context
	model  *geminitest.Server
	root   string
	proc   *lsptest.Process
	client *lsptest.Client
	log    string
	// initialized is initialize's result.
	initialized map[string]any
}

type setup struct {
	profile lsptest.Profile
	// root is a workspace made earlier (a second server on the same
	// project); else a new one holding files.
	root  string
	files map[string]string
	opts  map[string]any
	env   []string // extra environment
	noKey bool
	bin   string // the binary to run; the one TestMain built when ""
	// keepStdin: the client leaves the server's stdin open when it
	// closes (lsptest.Process.KeepingStdin).
	keepStdin bool
}

// pinnedModel is the model the harnesses name, as a user could with
// GEMINI_MODEL, for tests not about routing: a concrete model, so the
// default auto's classifier request does not come ahead of the prompt's in
// the fake's script. Tests about the default or routing leave it out.
const pinnedModel = "GEMINI_MODEL=gemini-2.5-pro"

func start(t *testing.T, s setup, turns ...geminitest.Turn) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	root := s.root
	if root == "" {
		root = newRoot(t, s.files)
	}
	model := geminitest.NewTestServer(t, turns...)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(), "GOOGLE_GEMINI_BASE_URL=" + model.URL, pinnedModel}
	if !s.noKey {
		env = append(env, "GEMINI_API_KEY=test-key")
	}
	env = append(env, s.env...)
	log := filepath.Join(t.TempDir(), "gemini-ls.log")
	bin := s.bin
	if bin == "" {
		bin = binary
	}
	proc := lsptest.StartBinary(t, bin, env, log)
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
	var conn io.ReadWriteCloser = proc
	if s.keepStdin {
		conn = proc.KeepingStdin()
	}
	client := lsptest.New(t, conn, s.profile)
	initialized, err := client.Initialize(ctx, []string{root}, s.opts)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return &harness{t: t, ctx: ctx, model: model, root: root, proc: proc, client: client, log: log, initialized: initialized}
}

// newRoot is a workspace root (symlinks resolved) holding files.
func newRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func (h *harness) path(name string) string { return filepath.Join(h.root, name) }

// waitLog waits until the server's log holds text.
func (h *harness) waitLog(text string) {
	h.t.Helper()
	for !strings.Contains(h.readLog(), text) {
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("the server never logged %q", text)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (h *harness) readLog() string {
	b, _ := os.ReadFile(h.log)
	return string(b)
}

// promptResult is gemini/prompt's result.
type promptResult struct {
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
	Error      string `json:"error"`
}

func (h *harness) prompt(params map[string]any) promptResult {
	h.t.Helper()
	var res promptResult
	if err := h.client.Call(h.ctx, "gemini/prompt", params, &res); err != nil {
		h.t.Fatalf("gemini/prompt: %v", err)
	}
	return res
}

// commandStarted is gemini.prompt's answer.
type commandStarted struct {
	SessionID string `json:"sessionId"`
	Status    string `json:"status"`
}

// command runs gemini.prompt with arg through workspace/executeCommand,
// which answers as soon as the turn has started, and waits for the turn's
// final window/showMessage, whose text it returns.
func (h *harness) command(arg any) (commandStarted, string) {
	h.t.Helper()
	before := len(h.client.Messages("window/showMessage"))
	var started commandStarted
	if err := h.client.Call(h.ctx, "workspace/executeCommand", map[string]any{"command": "gemini.prompt", "arguments": []any{arg}}, &started); err != nil {
		h.t.Fatalf("gemini.prompt: %v", err)
	}
	if started.Status != "started" || started.SessionID == "" {
		h.t.Fatalf("gemini.prompt answered %+v", started)
	}
	return started, h.waitAnswerMessage(before)
}

// waitAnswerMessage waits for a gemini.prompt's final window/showMessage
// after the first skip ones, and returns its text.
func (h *harness) waitAnswerMessage(skip int) string {
	h.t.Helper()
	var msg struct {
		Message string `json:"message"`
	}
	m, err := h.client.WaitMessageAfter(h.ctx, "window/showMessage", skip, func(p json.RawMessage) bool {
		return json.Unmarshal(p, &msg) == nil && strings.HasPrefix(msg.Message, "Gemini") && !strings.HasPrefix(msg.Message, "Gemini: a new conversation")
	})
	if err != nil {
		h.t.Fatal(err)
	}
	_ = json.Unmarshal(m.Params, &msg)
	return msg.Message
}

// update is a gemini/update notification.
type update struct {
	SessionID   string         `json:"sessionId"`
	Kind        string         `json:"kind"`
	Text        string         `json:"text"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	CallID      string         `json:"callId"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Args        map[string]any `json:"args"`
	Status      string         `json:"status"`
	Display     string         `json:"display"`
	Outcome     string         `json:"outcome"`
	Message     string         `json:"message"`
	Reason      string         `json:"reason"` // retry
	// ParentCallID and AgentName mark a subagent's update.
	ParentCallID string `json:"parentCallId"`
	AgentName    string `json:"agentName"`
}

func (h *harness) updates(kind string) []update {
	var out []update
	for _, u := range messagesAs[update](h, "gemini/update") {
		if kind == "" || u.Kind == kind {
			out = append(out, u)
		}
	}
	return out
}

// messagesAs decodes the params of what the server sent with method.
func messagesAs[T any](h *harness, method string) []T {
	h.t.Helper()
	var out []T
	for _, m := range h.client.Messages(method) {
		var p T
		if err := json.Unmarshal(m.Params, &p); err != nil {
			h.t.Fatalf("bad %s %s: %v", method, m.Params, err)
		}
		out = append(out, p)
	}
	return out
}

// toolOutputs are the functionResponse outputs (or errors) the agent sent
// back to the model in request i.
func (h *harness) toolOutputs(i int) []string {
	h.t.Helper()
	reqs := h.model.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("model saw %d requests, want at least %d", len(reqs), i+1)
	}
	contents := reqs[i].Contents
	last := contents[len(contents)-1]
	var out []string
	for _, p := range last.Parts {
		if fr := p.FunctionResponse; fr != nil {
			if e, ok := fr.Response["error"]; ok {
				out = append(out, fmt.Sprint("error: ", e))
			} else {
				out = append(out, fmt.Sprint(fr.Response["output"]))
			}
		}
	}
	return out
}

func (h *harness) readFile(name string) string {
	b, err := os.ReadFile(h.path(name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func call(name string, args map[string]any) geminitest.Turn {
	return geminitest.CallTurn(geminitest.Call(name, args))
}

func contains(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %q", what, got, want)
	}
}

func mkdir(path string) error { return os.MkdirAll(path, 0o755) }

// readFile is path's content; "" when it cannot be read.
func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
