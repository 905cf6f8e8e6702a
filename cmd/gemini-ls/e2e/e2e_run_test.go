package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// headless is a workspace on disk and a fake model for `gemini-ls run`.
type headless struct {
	t     *testing.T
	model *geminitest.Server
	root  string
	env   []string
}

// cliResult is how one invocation of the binary ended.
type cliResult struct {
	code           int
	stdout, stderr string
}

func newHeadless(t *testing.T, files map[string]string, turns ...geminitest.Turn) *headless {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	writeFiles(t, root, files)
	model := geminitest.NewTestServer(t, turns...)
	// A trusted folder: Gemini CLI 0.61 refuses to run headless in any
	// other (TestRunRefusesAnUntrustedFolder).
	home := t.TempDir()
	trustFolder(t, home, root)
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CACHE_HOME=" + t.TempDir(),
		"GOOGLE_GEMINI_BASE_URL=" + model.URL,
		"GEMINI_API_KEY=test-key",
		pinnedModel,
	}
	return &headless{t: t, model: model, root: root, env: env}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// withoutEnv returns the environment minus the variable name.
func (h *headless) withoutEnv(name string) []string {
	var env []string
	for _, kv := range h.env {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// run runs `gemini-ls args...` in the workspace root.
func (h *headless) run(args ...string) cliResult {
	h.t.Helper()
	return h.runIn(h.root, h.env, args...)
}

func (h *headless) runIn(dir string, env []string, args ...string) cliResult {
	h.t.Helper()
	return h.runWith(dir, env, nil, args...)
}

// runWith runs `gemini-ls args...` in dir with env, stdin its stdin (nil:
// none, as /dev/null).
func (h *headless) runWith(dir string, env []string, stdin io.Reader, args ...string) cliResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		h.t.Fatalf("running gemini-ls %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	if ctx.Err() != nil {
		h.t.Fatalf("gemini-ls %q did not finish: %v\nstderr:\n%s", args, ctx.Err(), stderr.String())
	}
	return res
}

func (h *headless) path(name string) string { return filepath.Join(h.root, name) }

func (h *headless) disk(name string) string {
	b, err := os.ReadFile(h.path(name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (h *headless) exists(name string) bool {
	_, err := os.Stat(h.path(name))
	return err == nil
}

// responses are the functionResponse parts the agent sent in request i.
func (h *headless) responses(i int) []*genai.FunctionResponse {
	h.t.Helper()
	reqs := h.model.Requests()
	if i >= len(reqs) {
		h.t.Fatalf("the model saw %d requests, want at least %d", len(reqs), i+1)
	}
	contents := reqs[i].Contents
	var out []*genai.FunctionResponse
	for _, p := range contents[len(contents)-1].Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

// wantExit fails the test unless r ended with code.
func (r cliResult) wantExit(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

func responseError(fr *genai.FunctionResponse) string {
	s, _ := fr.Response["error"].(string)
	return s
}

func responseOutput(fr *genai.FunctionResponse) string {
	s, _ := fr.Response["output"].(string)
	return s
}

// shellSucceeded says out, what run_shell_command told the model, is of a
// command that exited 0: its output is told, and no exit code or signal,
// which are told only when they happened.
func shellSucceeded(out string) bool {
	return strings.HasPrefix(out, "Output: ") && !strings.Contains(out, "\nExit Code: ") && !strings.Contains(out, "\nSignal: ")
}

// Text streams to stdout and nothing else does: no thoughts, no tool
// results, no logs at the default level. Each call that ran is one line
// on stderr (Gemini CLI 0.61 says nothing of it), on a line of its own
// where the answer's text had not ended one.
func TestRunTextPrintsOnlyTheAnswer(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "the contents\n"},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Planning** the reply"},
			{Text: "Reading "},
			{Text: "the file. "},
			{Call: geminitest.Call("read_file", map[string]any{"path": "a.txt"})},
		}},
		geminitest.TextTurn("It says: ", "the contents"),
	)
	r := h.run("run", "-p", "what does a.txt say?")
	r.wantExit(t, 0)
	if want := "Reading the file. \n\nIt says: the contents\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if want := "\ngemini-ls: \u2713 read_file (ReadFile a.txt)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want only the call that ran, %q, at the default log level", r.stderr, want)
	}
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model saw %d requests, want 2", len(reqs))
	}
	if c := withoutSessionContext(reqs[0].Contents); len(c) != 1 || c[0].Role != genai.RoleUser || len(c[0].Parts) != 1 || c[0].Parts[0].Text != "what does a.txt say?" {
		t.Errorf("first request contents = %s", reqs[0].Body)
	}
	if reqs[0].APIKey != "test-key" {
		t.Errorf("x-goog-api-key = %q, want the GEMINI_API_KEY", reqs[0].APIKey)
	}
	if fr := h.responses(1); len(fr) != 1 || responseOutput(fr[0]) != "the contents\n" {
		t.Errorf("read_file response = %+v", fr)
	}
}

// An answer that already ends with a newline gets no second one.
func TestRunTextKeepsTheModelsFinalNewline(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("line one\n", "line two\n"))
	r := h.run("run", "-p", "two lines")
	r.wantExit(t, 0)
	if r.stdout != "line one\nline two\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
}

// Logs go to stderr or the log file, never stdout, at any level.
func TestRunLogsNeverReachStdout(t *testing.T) {
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{
			geminitest.CallTurn(geminitest.Call("list_directory", map[string]any{"path": "."})),
			geminitest.TextTurn("Listed."),
		}
	}
	t.Run("stderr", func(t *testing.T) {
		h := newHeadless(t, nil, turns()...)
		r := h.run("run", "-p", "list", "--log-level", "debug")
		r.wantExit(t, 0)
		if r.stdout != "Listed.\n" {
			t.Errorf("stdout = %q", r.stdout)
		}
		if !strings.Contains(r.stderr, `"api_request"`) || !strings.Contains(r.stderr, `"api_response"`) {
			t.Errorf("stderr = %q, want the debug logs", r.stderr)
		}
	})
	t.Run("file", func(t *testing.T) {
		h := newHeadless(t, nil, turns()...)
		logFile := filepath.Join(t.TempDir(), "run.log")
		r := h.run("run", "-p", "list", "--log-level", "debug", "--log-file", logFile)
		r.wantExit(t, 0)
		if r.stdout != "Listed.\n" || !strings.HasPrefix(r.stderr, "gemini-ls: \u2713 list_directory") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stdout = %q, stderr = %q; want only the answer, and the call that ran", r.stdout, r.stderr)
		}
		b, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"api_request"`) {
			t.Errorf("log file = %q, want the debug logs", b)
		}
	})
}

// jsonResult is the object --output-format json prints.
type jsonResult struct {
	SessionID string          `json:"session_id"`
	Response  string          `json:"response"`
	Stats     stats           `json:"stats"`
	Error     json.RawMessage `json:"error"`
	Warnings  []string        `json:"warnings"`
}

// decodeOne decodes stdout as exactly one JSON object with exactly the keys
// of jsonResult, warnings only when there are some.
func decodeOne(t *testing.T, stdout string) jsonResult {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value:\n%s", stdout)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	// 0.61's JsonFormatter: error and warnings only when there are some.
	want := 3
	if raw["warnings"] != nil {
		want++
	}
	if raw["error"] != nil {
		want++
	}
	if len(keys) != want || raw["session_id"] == nil || raw["response"] == nil || raw["stats"] == nil {
		t.Errorf("keys = %q, want session_id, response, stats, and error and warnings only when there are some", keys)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// withoutTimes is s with its durations and latencies zero: how long
// things took is no test's business.
func withoutTimes(s stats) stats {
	s.DurationMS, s.Tools.TotalDurationMS = 0, 0
	byName := map[string]toolCount{}
	for name, c := range s.Tools.ByName {
		c.DurationMS = 0
		byName[name] = c
	}
	s.Tools.ByName = byName
	models := map[string]modelStats{}
	for name, m := range s.Models {
		m.API.TotalLatencyMS = 0
		roles := map[string]roleStats{}
		for r, st := range m.Roles {
			st.TotalLatencyMS = 0
			roles[r] = st
		}
		m.Roles = roles
		models[name] = m
	}
	s.Models = models
	return s
}

// cached is u with cachedTokens of its prompt served from the cache and
// toolTokens of a tool-use prompt.
func cached(u *genai.GenerateContentResponseUsageMetadata, cachedTokens, toolTokens int32) *genai.GenerateContentResponseUsageMetadata {
	u.CachedContentTokenCount, u.ToolUsePromptTokenCount = cachedTokens, toolTokens
	return u
}

func usageOf(prompt, candidates, thoughts int32) *genai.GenerateContentResponseUsageMetadata {
	return &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount: prompt, CandidatesTokenCount: candidates, ThoughtsTokenCount: thoughts,
		TotalTokenCount: prompt + candidates + thoughts,
	}
}

func TestRunJSONPrintsOneObject(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "a\n"},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Looking** around"},
			{Text: "Looking. "},
			{Call: geminitest.Call("read_file", map[string]any{"path": "a.txt"})},
			{Call: geminitest.Call("list_directory", map[string]any{"path": "."})},
		}, Usage: usageOf(10, 5, 3)},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Call: geminitest.Call("read_file", map[string]any{"path": "missing.txt"})},
		}, Usage: usageOf(20, 2, 0)},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "All "}, {Text: "done."}}, Usage: cached(usageOf(30, 4, 1), 25, 2)},
	)
	r := h.run("run", "-p", "look", "--output-format", "json")
	r.wantExit(t, 0)
	if want := "gemini-ls: read_file (ReadFile missing.txt) failed: File not found: " + h.path("missing.txt") + "\n"; r.stderr != want {
		t.Errorf("stderr = %q, want only the call that failed: %q", r.stderr, want)
	}
	res := decodeOne(t, r.stdout)
	if res.SessionID == "" {
		t.Error("session_id is empty")
	}
	if res.Response != "Looking. \n\nAll done." {
		t.Errorf("response = %q", res.Response)
	}
	if len(res.Error) != 0 {
		t.Errorf("error = %s, want none, as 0.61 leaves it out", res.Error)
	}
	// Each call ran with nobody asked: accepted, as 0.61 counts them
	// (TestRunCountsDecisionsAsGeminiCLIDoes).
	wantTools := toolStats{
		TotalCalls: 3, TotalSuccess: 2, TotalFail: 1, TotalDecisions: decisions{Accept: 3},
		ByName: map[string]toolCount{
			"read_file":      {Count: 2, Success: 1, Fail: 1, Decisions: decisions{Accept: 2}},
			"list_directory": {Count: 1, Success: 1, Decisions: decisions{Accept: 1}},
		},
	}
	if got := withoutTimes(res.Stats); !reflect.DeepEqual(got.Tools, wantTools) {
		t.Errorf("stats.tools = %+v, want %+v", got.Tools, wantTools)
	}
	// 0.61's shape: input is the prompt less the cached tokens; tool the
	// tool-use prompt's; one role, main.
	tokens := tokenStats{Input: 35, Prompt: 60, Candidates: 11, Total: 75, Cached: 25, Thoughts: 4, Tool: 2}
	wantModels := map[string]modelStats{"gemini-2.5-pro": {
		API:    apiStats{TotalRequests: 3, ErrorsByType: map[string]int{}},
		Tokens: tokens,
		Roles:  map[string]roleStats{"main": {TotalRequests: 3, Tokens: tokens}},
	}}
	if got := withoutTimes(res.Stats); !reflect.DeepEqual(got.Models, wantModels) {
		t.Errorf("stats.models = %+v, want %+v", res.Stats.Models, wantModels)
	}
	if fr := h.responses(2); len(fr) != 1 || !strings.Contains(responseError(fr[0]), "missing.txt") {
		t.Errorf("missing.txt response = %+v", fr)
	}
}

// An API error that is not retried ends the run with the error in the
// object and exit code 1.
func TestRunJSONReportsAnAPIError(t *testing.T) {
	h := newHeadless(t, nil, geminitest.ErrorTurn(400, "bad request"))
	r := h.run("run", "-p", "hi", "--output-format", "json")
	r.wantExit(t, 1)
	res := decodeOne(t, r.stdout)
	var e struct{ Type, Message string }
	if err := json.Unmarshal(res.Error, &e); err != nil || string(res.Error) == "null" {
		t.Fatalf("error = %s (%v), want an object", res.Error, err)
	}
	if e.Type != "error" || !strings.Contains(e.Message, "bad request") || !strings.Contains(e.Message, "400") {
		t.Errorf("error = %+v", e)
	}
	if res.SessionID == "" || res.Response != "" || res.Stats.Tools.TotalCalls != 0 || res.Stats.Tools.ByName == nil {
		t.Errorf("result = %+v", res)
	}
	// Counted by Gemini CLI 0.61's name for it, @google/genai's ApiError.
	for name, m := range res.Stats.Models {
		if want := map[string]int{"ApiError": 1}; m.API.TotalErrors != 1 || !reflect.DeepEqual(m.API.ErrorsByType, want) {
			t.Errorf("stats.models[%s].api = %+v, want 1 error, errorsByType %v", name, m.API, want)
		}
	}
	if len(res.Stats.Models) != 1 {
		t.Errorf("stats.models = %+v, want the one model asked", res.Stats.Models)
	}
	if !strings.Contains(r.stderr, "bad request") {
		t.Errorf("stderr = %q, want the error", r.stderr)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("the model saw %d requests; a 400 is not retried", n)
	}
}

// In text mode an error goes to stderr and leaves stdout empty.
func TestRunTextReportsAnAPIErrorOnStderr(t *testing.T) {
	h := newHeadless(t, nil, geminitest.ErrorTurn(400, "bad request"))
	r := h.run("run", "-p", "hi")
	r.wantExit(t, 1)
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	// The error log line comes first (logs go to stderr by default), then
	// the error for the user.
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "gemini-ls: ") || !strings.Contains(last, "bad request") {
		t.Errorf("stderr = %q, want it to end with the error", r.stderr)
	}
}

// streamLine is one line of --output-format stream-json.
type streamLine struct {
	Type        string         `json:"type"`
	Timestamp   string         `json:"timestamp"`
	SessionID   string         `json:"session_id"`
	Model       string         `json:"model"`
	Role        string         `json:"role"`
	Content     string         `json:"content"`
	Delta       bool           `json:"delta"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	ToolName    string         `json:"tool_name"`
	ToolID      string         `json:"tool_id"`
	Parameters  map[string]any `json:"parameters"`
	Status      string         `json:"status"`
	Output      string         `json:"output"`
	Severity    string         `json:"severity"`
	Message     string         `json:"message"`
	Error       *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *streamStats `json:"stats"`
}

func streamLines(t *testing.T, stdout string) ([]streamLine, []string) {
	t.Helper()
	if !strings.HasSuffix(stdout, "\n") {
		t.Errorf("stdout does not end with a newline: %q", stdout)
	}
	var lines []streamLine
	var types []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var l streamLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(lines)+1, err, sc.Text())
		}
		if _, err := time.Parse(time.RFC3339Nano, l.Timestamp); err != nil {
			t.Errorf("line %d timestamp %q: %v", len(lines)+1, l.Timestamp, err)
		}
		typ := l.Type
		if l.Role != "" {
			typ += "(" + l.Role + ")"
		}
		lines = append(lines, l)
		types = append(types, typ)
	}
	return lines, types
}

func TestRunStreamJSONEmitsOneEventPerLine(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "hi\n"},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Checking** the file"},
			{Call: geminitest.Call("read_file", map[string]any{"path": "a.txt"})},
		}},
		geminitest.TextTurn("It ", "says hi."),
	)
	r := h.run("run", "-p", "read a.txt", "--output-format", "stream-json", "--model", "gemini-s")
	r.wantExit(t, 0)
	lines, types := streamLines(t, r.stdout)
	want := []string{"init", "message(user)", "thought", "tool_use", "tool_result", "message(assistant)", "message(assistant)", "result"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("types = %q, want %q\n%s", types, want, r.stdout)
	}
	if l := lines[0]; l.SessionID == "" || l.Model != "gemini-s" {
		t.Errorf("init = %+v", l)
	}
	if l := lines[1]; l.Content != "read a.txt" {
		t.Errorf("user message = %+v", l)
	}
	if l := lines[2]; l.Subject != "Checking" || l.Description != "the file" {
		t.Errorf("thought = %+v", l)
	}
	use, result := lines[3], lines[4]
	if use.ToolName != "read_file" || use.ToolID == "" || !reflect.DeepEqual(use.Parameters, map[string]any{"path": "a.txt"}) {
		t.Errorf("tool_use = %+v", use)
	}
	if result.ToolID != use.ToolID || result.ToolName != "read_file" || result.Status != "success" {
		t.Errorf("tool_result = %+v, want the id %q and status success", result, use.ToolID)
	}
	if fr := h.responses(1); len(fr) != 1 || fr[0].ID != use.ToolID {
		t.Errorf("the functionResponse answers %+v, want the id %q", fr, use.ToolID)
	}
	if a, b := lines[5], lines[6]; a.Content != "It " || b.Content != "says hi." || !a.Delta || !b.Delta {
		t.Errorf("assistant deltas = %+v, %+v", a, b)
	}
	end := lines[7]
	if end.Status != "success" || end.Error != nil || end.Stats == nil || end.Stats.ToolCalls != 1 {
		t.Errorf("result = %+v", end)
	}
	if end.Stats != nil && end.Stats.Models["gemini-s"].TotalTokens == 0 {
		t.Errorf("result stats models = %+v", end.Stats.Models)
	}
}

func TestRunStreamJSONReportsAnAPIError(t *testing.T) {
	h := newHeadless(t, nil, geminitest.ErrorTurn(400, "bad request"))
	r := h.run("run", "-p", "hi", "--output-format", "stream-json")
	r.wantExit(t, 1)
	lines, types := streamLines(t, r.stdout)
	if want := []string{"init", "message(user)", "error", "result"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("types = %q, want %q", types, want)
	}
	if !strings.Contains(lines[2].Message, "bad request") || lines[2].Severity != "error" {
		t.Errorf("error event = %+v", lines[2])
	}
	if end := lines[3]; end.Status != "error" || end.Error == nil || end.Error.Type != "error" || !strings.Contains(end.Error.Message, "bad request") {
		t.Errorf("result = %+v", end)
	}
}

// editAndShellTurns asks for an edit, a new file and a shell command, then
// answers "Finished."
func editAndShellTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(
			geminitest.Call("replace", map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "TWO"}),
			geminitest.Call("replace", map[string]any{"file_path": "crlf.txt", "old_string": "alpha\nbeta", "new_string": "alpha\ngamma"}),
			geminitest.Call("write_file", map[string]any{"file_path": "new/file.txt", "content": "fresh\n"}),
			geminitest.Call("run_shell_command", map[string]any{"command": "touch marker && echo made"}),
		),
		geminitest.TextTurn("Finished."),
	}
}

var editAndShellFiles = map[string]string{
	"a.txt":    "one\ntwo\n",
	"crlf.txt": "alpha\r\nbeta\r\n",
}

// runEditAndShell runs the edit-and-shell turns headless with args added;
// the run must finish ("Finished.", exit 0) with four function responses.
func runEditAndShell(t *testing.T, args ...string) (*headless, []*genai.FunctionResponse) {
	t.Helper()
	h := newHeadless(t, editAndShellFiles, editAndShellTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), append([]string{"run", "-p", "change things"}, args...)...)
	r.wantExit(t, 0)
	if r.stdout != "Finished.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	fr := h.responses(1)
	if len(fr) != 4 {
		t.Fatalf("function responses = %+v", fr)
	}
	return h, fr
}

// With nobody to ask, the default mode offers the model no edits and no
// shell (as Gemini CLI 0.61, which declares only what would run): their
// calls are not found, as 0.61 answers them, and the user is told the
// mode that offers each; the turn goes on.
func TestRunDefaultModeRefusesEditsAndShell(t *testing.T) {
	h := newHeadless(t, editAndShellFiles, editAndShellTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "change things")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if r.stdout != "Finished.\n" || len(fr) != 4 {
		t.Fatalf("stdout = %q, function responses = %+v", r.stdout, fr)
	}
	for i, mode := range []string{"auto_edit", "auto_edit", "auto_edit", "yolo"} {
		if e := responseError(fr[i]); !strings.HasPrefix(e, `Tool "`+fr[i].Name+`" not found. Did you mean`) {
			t.Errorf("%s response %d error = %q, want it not found", fr[i].Name, i, e)
		}
		contains(t, "stderr", r.stderr, fr[i].Name+" is not offered to the model in the default approval mode (the "+mode+" approval mode offers it; settings' tools.allowed can allow it)")
	}
	if got := h.disk("a.txt"); got != "one\ntwo\n" {
		t.Errorf("a.txt = %q, want it unchanged", got)
	}
	if got := h.disk("crlf.txt"); got != "alpha\r\nbeta\r\n" {
		t.Errorf("crlf.txt = %q, want it unchanged", got)
	}
	if h.exists("new/file.txt") {
		t.Error("write_file created new/file.txt")
	}
	if h.exists("marker") {
		t.Error("the shell command ran")
	}
}

// auto_edit applies edits to disk but offers no shell: a command is not
// found, as in Gemini CLI 0.61.
func TestRunAutoEditAppliesEditsOnly(t *testing.T) {
	h, fr := runEditAndShell(t, "--approval-mode", "auto_edit")
	for i, want := range []string{
		"Successfully modified file: " + h.path("a.txt") + " (1 replacements).",
		"Successfully modified file: " + h.path("crlf.txt") + " (1 replacements).",
		"Successfully created and wrote to new file: " + h.path("new/file.txt"),
	} {
		if got := responseOutput(fr[i]); got != want || responseError(fr[i]) != "" {
			t.Errorf("response %d = %+v, want output %q", i, fr[i].Response, want)
		}
	}
	if e := responseError(fr[3]); !strings.HasPrefix(e, `Tool "run_shell_command" not found.`) {
		t.Errorf("shell error = %q, want the shell, which auto_edit does not offer, not found", e)
	}
	for name, want := range map[string]string{
		"a.txt":        "one\nTWO\n",
		"crlf.txt":     "alpha\r\ngamma\r\n",
		"new/file.txt": "fresh\n",
	} {
		if got := h.disk(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if h.exists("marker") {
		t.Error("the shell command ran under auto_edit")
	}
}

// yolo runs shell commands too, in the workspace root.
func TestRunYoloRunsShell(t *testing.T) {
	h, fr := runEditAndShell(t, "--approval-mode", "yolo")
	out := responseOutput(fr[3])
	if !strings.HasPrefix(out, "Output: made\n") || !shellSucceeded(out) {
		t.Errorf("shell output = %q, want made, and succeeded", out)
	}
	if !h.exists("marker") {
		t.Error("the shell command did not run")
	}
	if got := h.disk("a.txt"); got != "one\nTWO\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// -C picks the workspace: relative paths resolve against it, not the
// current directory, and paths outside it are refused without ending the
// turn.
func TestRunInDirectory(t *testing.T) {
	h := newHeadless(t, map[string]string{
		"a.txt":      "outside the project\n",
		"proj/a.txt": "inside the project\n",
	})
	h.model.Push(
		geminitest.CallTurn(
			geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
			geminitest.Call("read_file", map[string]any{"path": "../a.txt"}),
			geminitest.Call("read_file", map[string]any{"path": h.path("a.txt")}),
			geminitest.Call("write_file", map[string]any{"file_path": "../escape.txt", "content": "x"}),
			geminitest.Call("write_file", map[string]any{"file_path": "made.txt", "content": "made\n"}),
		),
		geminitest.TextTurn("ok"),
	)
	elsewhere := t.TempDir()
	r := h.runIn(elsewhere, append(h.env, trustTheWorkspace()...), "run", "-p", "read", "-C", h.path("proj"), "--approval-mode", "auto_edit")
	r.wantExit(t, 0)
	if r.stdout != "ok\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	fr := h.responses(1)
	if len(fr) != 5 {
		t.Fatalf("function responses = %+v", fr)
	}
	if got := responseOutput(fr[0]); got != "inside the project\n" {
		t.Errorf("read_file a.txt = %q, want the project's a.txt", got)
	}
	for _, i := range []int{1, 2, 3} {
		if e := responseError(fr[i]); !strings.Contains(e, "Path must be within one of the workspace directories") {
			t.Errorf("%s outside -C: response %+v, want it refused", fr[i].Name, fr[i].Response)
		}
	}
	if got := responseOutput(fr[4]); got != "Successfully created and wrote to new file: "+h.path("proj/made.txt") {
		t.Errorf("write_file made.txt = %q", got)
	}
	if got := h.disk("proj/made.txt"); got != "made\n" {
		t.Errorf("proj/made.txt = %q", got)
	}
	if h.exists("escape.txt") {
		t.Error("write_file wrote outside -C")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "made.txt")); err == nil {
		t.Error("write_file wrote in the current directory, not -C")
	}
}

// Without -C the workspace is the current directory, and a relative -C is
// taken from it.
func TestRunDefaultsToTheCurrentDirectory(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "top\n", "sub/a.txt": "sub\n"},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("one"),
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("two"),
	)
	h.run("run", "-p", "read").wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "top\n" {
		t.Errorf("without -C, read_file a.txt = %q", got)
	}
	h.run("run", "-p", "read", "-C", "sub").wantExit(t, 0)
	if got := responseOutput(h.responses(3)[0]); got != "sub\n" {
		t.Errorf("with -C sub, read_file a.txt = %q", got)
	}
}

// noCredentials is what every front end says when nothing chose a way
// in: the reference's words about the key, then the other ways.
const noCredentials = "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!\n" +
	"Get a key at https://aistudio.google.com/apikey, or choose another way in:\n" +
	"• Sign in with Google: run `gemini-ls login` (or your editor's \"Gemini: Sign in with Google\"), or run `gemini` and choose \"Sign in with Google\"; both cache the same login.\n" +
	"• Vertex AI: set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or with GOOGLE_API_KEY (express mode)."

// Missing credentials: the reference's message on stderr, with the other
// ways in, nothing on stdout, no request, exit 41.
func TestRunWithoutCredentials(t *testing.T) {
	t.Run("gemini", func(t *testing.T) {
		h := newHeadless(t, nil)
		r := h.runIn(h.root, h.withoutEnv("GEMINI_API_KEY"), "run", "-p", "hi")
		r.wantExit(t, exitAuth)
		const want = noCredentials + "\n"
		if r.stderr != want || r.stdout != "" {
			t.Errorf("stdout = %q, stderr = %q; want stderr %q", r.stdout, r.stderr, want)
		}
		if n := len(h.model.Requests()); n != 0 {
			t.Errorf("the model saw %d requests", n)
		}
	})
	// Vertex needs a project and a location, or an API key: a project alone
	// or a Gemini key is not enough.
	for name, extra := range map[string][]string{
		"vertex":              {"GOOGLE_GENAI_USE_VERTEXAI=true"},
		"vertex project only": {"GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_CLOUD_PROJECT=my-project"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHeadless(t, nil)
			r := h.runIn(h.root, append(h.env, extra...), "run", "-p", "hi", "--output-format", "json")
			r.wantExit(t, exitAuth)
			const want = "When using Vertex AI, you must specify either:\n" +
				"• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.\n" +
				"• GOOGLE_API_KEY environment variable (if using express mode).\n" +
				"Update your environment and try again (no reload needed if using .env)!\n"
			// -o json: 0.61's error object (handleError's), on stderr
			// in the message's place; nothing on stdout.
			var res struct {
				SessionID string `json:"session_id"`
				Error     struct {
					Type    string `json:"type"`
					Message string `json:"message"`
					Code    int    `json:"code"`
				} `json:"error"`
			}
			if r.stdout != "" || json.Unmarshal([]byte(r.stderr), &res) != nil || res.SessionID == "" ||
				res.Error.Type != "Error" || res.Error.Message+"\n" != want || res.Error.Code != exitAuth {
				t.Errorf("stdout = %q, stderr = %q; want on stderr an Error object saying %q", r.stdout, r.stderr, want)
			}
		})
	}
}

// --model, else GEMINI_MODEL, is the model in the request path (the
// default, auto, routes: TestRunDefaultModelRoutes).
func TestRunModelChoice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		model string
	}{
		{"flag", nil, []string{"--model", "gemini-x"}, "gemini-x"},
		{"flag over env", []string{"GEMINI_MODEL=gemini-env"}, []string{"--model", "gemini-x"}, "gemini-x"},
		{"env", []string{"GEMINI_MODEL=gemini-env"}, nil, "gemini-env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHeadless(t, nil, geminitest.TextTurn("hi"))
			args := append([]string{"run", "-p", "hi", "--output-format", "json"}, tc.args...)
			r := h.runIn(h.root, append(h.env, tc.env...), args...)
			r.wantExit(t, 0)
			reqs := h.model.Requests()
			if len(reqs) != 1 || reqs[0].Model != tc.model || reqs[0].Method != "streamGenerateContent" {
				t.Fatalf("requests = %+v, want one streamGenerateContent to %q", reqs, tc.model)
			}
			if res := decodeOne(t, r.stdout); len(res.Stats.Models) != 1 || res.Stats.Models[tc.model].Tokens.Total == 0 {
				t.Errorf("stats.models = %+v, want %q", res.Stats.Models, tc.model)
			}
		})
	}
}

// Bad usage exits as Gemini CLI 0.61 does, naming the problem in one
// line, before any request: 1 for a flag's mistake, 42 for no input.
func TestRunBadUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"output format", []string{"-p", "hi", "--output-format", "xml"}, `invalid value "xml" for flag -output-format: not one of "text", "json", "stream-json"`, exitError},
		{"approval mode", []string{"-p", "hi", "--approval-mode", "always"}, `invalid value "always" for flag -approval-mode: not one of "default", "auto_edit", "yolo", "plan"`, exitError},
		{"no prompt", nil, "No input provided via stdin", exitInput},
		{"empty prompt", []string{"-p", ""}, "No input provided via stdin", exitInput},
		{"unknown flag", []string{"-p", "hi", "--bogus"}, "Unknown argument: bogus\n", exitError},
		{"mistyped flag", []string{"--promt", "hi"}, "Unknown argument: promt. Did you mean --prompt?\n", exitError},
		{"prompt twice", []string{"-p", "hi", "extra"}, "Cannot use both a positional prompt and the --prompt (-p) flag together", exitError},
		{"yolo twice", []string{"-p", "hi", "-y", "--approval-mode", "yolo"}, "Cannot use both --yolo (-y) and --approval-mode together", exitError},
		{"log level", []string{"-p", "hi", "--log-level", "loud"}, "--log-level", exitError},
		{"missing dir", []string{"-p", "hi", "-C", "does-not-exist"}, "does-not-exist", exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHeadless(t, nil)
			r := h.run(append([]string{"run"}, tc.args...)...)
			r.wantExit(t, tc.code)
			if !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Errorf("stdout = %q, stderr = %q; want stderr to contain %q", r.stdout, r.stderr, tc.want)
			}
			if n := len(h.model.Requests()); n != 0 {
				t.Errorf("the model saw %d requests", n)
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	h := newHeadless(t, nil)
	r := h.run("version")
	r.wantExit(t, 0)
	// A semantic version (main's, which version_test.go's TestVersionLine
	// holds to its exact words), then the commit's 12 digits when go build
	// recorded one (-buildvcs), else why there is none: a -dev build never
	// ends at its version alone.
	want := regexp.MustCompile(`^gemini-ls [0-9]+\.[0-9]+\.[0-9]+(-dev \((commit [0-9a-f]{12}(-dirty)?|commit unknown: built without version control information)\)| \(commit [0-9a-f]{12}(-dirty)?\))?\n$`)
	if !want.MatchString(r.stdout) || r.stderr != "" {
		t.Errorf("stdout = %q, stderr = %q; want stdout to match %s", r.stdout, r.stderr, want)
	}
}

// SIGINT while the model is streaming ends the run promptly with 130,
// keeping what was already printed, and says nothing on stderr.
func TestRunInterrupted(t *testing.T) {
	const partial = "Thinking about it"
	h := newHeadless(t, nil, geminitest.Turn{Chunks: []geminitest.Chunk{{Text: partial}}, Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "-p", "think")
	cmd.Dir, cmd.Env = h.root, h.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt only once the partial answer is out, so the model is hanging.
	got := make([]byte, len(partial))
	if _, err := io.ReadFull(stdout, got); err != nil || string(got) != partial {
		t.Fatalf("stdout began %q (%v), want %q", got, err, partial)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// Prompt means well before the model's hang would end on its own (never):
	// a generous bound keeps this from being a timing test.
	done := make(chan error, 1)
	var rest []byte
	go func() {
		rest, _ = io.ReadAll(stdout)
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Fatalf("gemini-ls did not exit within 10s of SIGINT\nstderr:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit = %v, want code 130\nstderr:\n%s", err, stderr.String())
	}
	if string(got)+string(rest) != partial+"\n" {
		t.Errorf("stdout = %q, want %q", string(got)+string(rest), partial+"\n")
	}
	// Not even the genai SDK's own line on the stream it lost ("Error
	// interrupt signal received"): without --debug, the terminal gets
	// no log line.
	if stderr.Len() > 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

// trustFolder writes home's trustedFolders.json trusting dir, as Gemini
// CLI records it.
func trustFolder(t *testing.T, home, dir string) {
	t.Helper()
	trust, err := json.Marshal(map[string]string{dir: "TRUST_FOLDER"}) // a Windows path's backslashes escaped
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": string(trust)})
}

// untrusted is h's environment with a home that trusts no folder.
func (h *headless) untrusted() []string {
	return append(h.withoutEnv("HOME"), "HOME="+h.t.TempDir())
}
