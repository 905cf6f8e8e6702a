package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// syncBuffer lets the test read what serve writes from another goroutine.
type syncBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	close(s.wrote)
	return n, err
}

func TestServeScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turns.json")
	err := os.WriteFile(script, []byte(`[
		{"chunks":[{"thought":true,"text":"**Plan** reading"},{"call":{"name":"read_file","args":{"path":"a.go"}}}]},
		{"text":"hello"}
	]`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{wrote: make(chan struct{})}
	done := make(chan error, 1)
	record := filepath.Join(t.TempDir(), "requests.jsonl")
	go func() { done <- serve(ctx, script, "127.0.0.1:0", record, out, t.Logf) }()
	<-out.wrote
	out.mu.Lock()
	line := out.b.String()
	out.mu.Unlock()
	base, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "GOOGLE_GEMINI_BASE_URL=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}

	// The environment variable is what the binary under test would read.
	t.Setenv("GOOGLE_GEMINI_BASE_URL", base)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := resp.FunctionCalls(); len(calls) != 1 || calls[0].Name != "read_file" || calls[0].Args["path"] != "a.go" {
		t.Errorf("calls = %v", calls)
	}
	resp, err = client.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil)
	if err != nil || resp.Text() != "hello" {
		t.Fatalf("second answer = %v, %v", resp, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve = %v", err)
	}

	// --record kept both requests, as sent, one line each.
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("recorded %d lines: %s", len(lines), b)
	}
	for _, l := range lines {
		var r struct {
			Method, Model string
			Body          struct {
				Contents []*genai.Content `json:"contents"`
			}
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Method != "generateContent" || r.Model != "m" || len(r.Body.Contents) != 1 || r.Body.Contents[0].Parts[0].Text != "hi" {
			t.Errorf("recorded %s (%v)", l, err)
		}
	}
}

func TestServeRejectsBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turns.json")
	if err := os.WriteFile(script, []byte(`[{"txt":"typo"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := serve(context.Background(), script, "127.0.0.1:0", "", io.Discard, t.Logf)
	if err == nil || !strings.Contains(err.Error(), `turn 1`) || !strings.Contains(err.Error(), `"txt"`) {
		t.Errorf("err = %v, want the bad field of turn 1 named", err)
	}
	if err := serve(context.Background(), "", "", "", io.Discard, t.Logf); err == nil || !strings.Contains(err.Error(), "--script") {
		t.Errorf("err = %v without --script", err)
	}
}

// TestMain lets the test binary stand in for the command fakegemini runs:
// with FAKEGEMINI_TEST_CHILD set it plays that part instead of testing.
func TestMain(m *testing.M) {
	switch os.Getenv("FAKEGEMINI_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "ask":
		os.Exit(askChild())
	case "wait":
		// Killed by the signal fakegemini passes on (default disposition).
		fmt.Println("waiting")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(99)
}

// askChild asks the model "hi" through the environment fakegemini set,
// prints what it saw as JSON, and exits with FAKEGEMINI_TEST_EXIT.
func askChild() int {
	ctx := context.Background()
	seen := map[string]string{
		"url":    os.Getenv("GOOGLE_GEMINI_BASE_URL"),
		"key":    os.Getenv("GEMINI_API_KEY"),
		"vertex": os.Getenv("GOOGLE_GENAI_USE_VERTEXAI"),
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: seen["key"], Backend: genai.BackendGeminiAPI})
	if err == nil {
		var resp *genai.GenerateContentResponse
		if resp, err = client.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil); err == nil {
			seen["answer"] = resp.Text()
		}
	}
	if err != nil {
		seen["error"] = err.Error()
	}
	_ = json.NewEncoder(os.Stdout).Encode(seen)
	code, _ := strconv.Atoi(os.Getenv("FAKEGEMINI_TEST_EXIT"))
	return code
}

func writeScript(t *testing.T, turns string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "turns.json")
	if err := os.WriteFile(script, []byte(turns), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// refused fails t unless nothing answers at url any more.
func refused(t *testing.T, url string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 2*time.Second)
	if err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after fakegemini returned", url)
	}
}

func TestServeCommandRunsItAgainstTheFake(t *testing.T) {
	script := writeScript(t, `[{"text":"hello"}]`)
	t.Setenv("FAKEGEMINI_TEST_CHILD", "ask")
	t.Setenv("FAKEGEMINI_TEST_EXIT", "3")
	// Either would send the child to Google rather than to the fake.
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	t.Setenv("GEMINI_API_KEY", "")
	var stdout, stderr strings.Builder
	var mu sync.Mutex // logf runs on the fake's goroutines too
	var url string
	var logged []string
	logf := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		t.Log(line)
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, line)
		if u, _, ok := strings.Cut(strings.TrimPrefix(line, "serving "), " for: "); ok && url == "" {
			url = u
		}
	}
	code, err := serveCommand(script, "127.0.0.1:0", "", []string{os.Args[0]}, nil, nil, &stdout, &stderr, logf)
	if err != nil || code != 3 {
		t.Fatalf("serveCommand = %d, %v; want the command's status 3\nstderr: %s", code, err, stderr.String())
	}
	var seen map[string]string
	if err := json.Unmarshal([]byte(stdout.String()), &seen); err != nil {
		t.Fatalf("child printed %q: %v", stdout.String(), err)
	}
	if seen["answer"] != "hello" || seen["url"] == "" || seen["url"] != url || seen["key"] != placeholderKey || seen["vertex"] != "" {
		t.Errorf("the child saw %v; want the fake's answer, its URL %q, the placeholder key and no Vertex AI", seen, url)
	}
	// The output is the command's: no line per request.
	if len(logged) != 1 {
		t.Errorf("fakegemini logged %q; want only where it serves", logged)
	}
	refused(t, url)
}

func TestServeCommandKeepsTheGivenKey(t *testing.T) {
	env := commandEnv([]string{"GEMINI_API_KEY=mine", "GOOGLE_GEMINI_BASE_URL=http://example.com", "HOME=/h"}, "http://127.0.0.1:1")
	want := []string{"GEMINI_API_KEY=mine", "HOME=/h", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("commandEnv = %q, want %q", env, want)
	}
}

func TestServeCommandPassesSignalsOn(t *testing.T) {
	script := writeScript(t, `[]`)
	t.Setenv("FAKEGEMINI_TEST_CHILD", "wait")
	sigs := make(chan os.Signal, 1)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	done := make(chan int, 1)
	go func() {
		code, err := serveCommand(script, "127.0.0.1:0", "", []string{os.Args[0]}, sigs, nil, w, io.Discard, t.Logf)
		if err != nil {
			t.Errorf("serveCommand: %v", err)
		}
		w.Close()
		done <- code
	}()
	started := make(chan struct{})
	go func() {
		if line, _ := bufio.NewReader(r).ReadString('\n'); line == "waiting\n" {
			close(started)
		}
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the child did not start")
	}
	sigs <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != 128+int(syscall.SIGTERM) {
			t.Errorf("status = %d, want %d (the child killed by SIGTERM)", code, 128+int(syscall.SIGTERM))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not end on the SIGTERM fakegemini got")
	}
}

func TestServeCommandReportsUnscriptedRequests(t *testing.T) {
	script := writeScript(t, `[]`)
	t.Setenv("FAKEGEMINI_TEST_CHILD", "ask")
	t.Setenv("FAKEGEMINI_TEST_EXIT", "0")
	code, err := serveCommand(script, "127.0.0.1:0", "", []string{os.Args[0]}, nil, nil, io.Discard, io.Discard, t.Logf)
	if code != 1 || err == nil || !strings.Contains(err.Error(), "request 1") {
		t.Errorf("serveCommand = %d, %v; want 1 and the request the script lacked", code, err)
	}
	if code, err := serveCommand(script, "127.0.0.1:0", "", []string{filepath.Join(t.TempDir(), "missing")}, nil, nil, io.Discard, io.Discard, t.Logf); code != 1 || err == nil {
		t.Errorf("a command that cannot start: %d, %v; want 1 and why", code, err)
	}
}

// TestReadmeDemo runs the headless demo exactly as README.md gives it, from
// the repository root, and checks that it works and leaves nothing behind:
// no temporary files, no process (the output pipe would stay open), and no
// fake still listening.
func TestReadmeDemo(t *testing.T) {
	platformtest.UnixShell(t) // the demo line is bash's
	platformtest.Tool(t, "go")
	root, err := filepath.Abs("../../../../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var demo string
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "go run ./internal/agent/geminitest/cmd/fakegemini ") {
			if demo != "" {
				t.Fatal("README.md has two demo commands")
			}
			demo = strings.TrimSpace(line)
		}
	}
	if demo == "" {
		t.Fatal("README.md has no line starting with `go run ./internal/agent/geminitest/cmd/fakegemini`")
	}
	tmp := t.TempDir()
	// A hang guard only: the demo builds both programs with go run,
	// which on a loaded two-core machine has taken over five minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", demo)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GEMINI_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", demo, err, stdout.String(), stderr.String())
	}

	var tools, answers []string
	var result string
	for line := range strings.Lines(stdout.String()) {
		var ev struct {
			Type, Role, Content, Status string
			ToolName                    string `json:"tool_name"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a stream-json line: %q", line)
		}
		switch {
		case ev.Type == "tool_result":
			tools = append(tools, ev.ToolName+" "+ev.Status)
		case ev.Type == "message" && ev.Role == "assistant":
			answers = append(answers, ev.Content)
		case ev.Type == "result":
			result = ev.Status
		}
	}
	if len(tools) != 1 || tools[0] != "grep_search success" || result != "success" {
		t.Errorf("tool results = %q, result %q; want grep_search success and success\n%s", tools, result, stdout.String())
	}
	// The answer quotes what the real grep_search found in the checkout
	// (the script's template), and says it is a script.
	answer := strings.Join(answers, "")
	for _, want := range []string{"Here is what grep_search found in this checkout", `matches for pattern "\bTODO\b"`, "\nFile: ", "the demo's scripted model"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer does not say %q:\n%s", want, answer)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil || len(left) > 0 {
		t.Errorf("left in TMPDIR: %v (%v)", left, err)
	}
	_, rest, _ := strings.Cut(stderr.String(), "fakegemini: serving ")
	url, _, ok := strings.Cut(rest, " for: ")
	if !ok {
		t.Fatalf("fakegemini did not say where it served:\n%s", stderr.String())
	}
	refused(t, url)
}
