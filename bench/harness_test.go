package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// binary is gemini-ls, built once when benchmarks run.
var binary string

// TestMain builds the binary only when benchmarks were asked for, so that
// `go test ./...` pays nothing for this package beyond its quick tests.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run())
	}
	lsptest.RunWithInstalledBinary(m, &binary)
}

// timedModel is the fake Gemini API behind a handler that adds up how long
// the fake spent answering, so that time can be taken out of the server's.
// It counts from the handler's start (request headers read) to its return
// (last chunk flushed): reading the request body and streaming the answer
// are charged to the fake, connection handling before that to gemini-ls.
type timedModel struct {
	*geminitest.Server
	// URL is the timing front's; it shadows the fake's own, which would
	// bypass the timing.
	URL string
	answerClock
}

func newTimedModel(b *testing.B) *timedModel {
	b.Helper()
	m := &timedModel{Server: geminitest.NewTestServer(b)}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.Server.ServeHTTP(w, r)
		m.answered(time.Since(start))
	}))
	b.Cleanup(front.Close)
	m.URL = front.URL
	return m
}

// answerClock sums the time a fake model spent answering, and wakes who
// waits for an answer. The zero value is ready.
type answerClock struct {
	mu    sync.Mutex
	spent time.Duration
	calls int
	next  chan struct{} // closed and replaced after each answer
}

// answered records an answer that took d.
func (c *answerClock) answered(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spent += d
	c.calls++
	if c.next != nil {
		close(c.next)
	}
	c.next = make(chan struct{})
}

// Spent is the total time spent answering and the number of requests.
func (c *answerClock) Spent() (time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spent, c.calls
}

// WaitSpent is Spent once n requests were answered: the handler's last
// bookkeeping may trail the client's reading of the answer.
func (c *answerClock) WaitSpent(ctx context.Context, n int) (time.Duration, error) {
	for {
		c.mu.Lock()
		if c.next == nil {
			c.next = make(chan struct{})
		}
		spent, calls, answered := c.spent, c.calls, c.next
		c.mu.Unlock()
		if calls >= n {
			return spent, nil
		}
		select {
		case <-answered:
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for the fake model's answer %d of %d: %w", calls+1, n, ctx.Err())
		}
	}
}

// editor is what the benchmarks ask of the editor attached to a server.
type editor interface {
	Initialize(ctx context.Context, roots []string, opts map[string]any) (map[string]any, error)
	Open(ctx context.Context, path, text string) error
	Buffer(path string) (string, bool)
	Call(ctx context.Context, method string, params, result any) error
	Notify(ctx context.Context, method string, params any) error
}

// server is one gemini-ls process with an editor attached.
type server struct {
	proc   *lsptest.Process
	wire   *wireLog
	editor editor
	// client is the editor when it is lsptest's scripted one.
	client *lsptest.Client

	// peakRSS is the process's peak RSS in bytes as stop read it, once
	// shutdown was answered; 0 where it cannot be read.
	peakRSS int64
}

// spawn starts `gemini-ls serve` with lsptest's scripted editor speaking
// profile.
func spawn(b *testing.B, env []string, profile lsptest.Profile) *server {
	return spawnBinary(b, binary, env, profile)
}

// spawnBinary starts `bin serve` with lsptest's scripted editor speaking
// profile: gemini-ls, or the trivial server it is compared with.
func spawnBinary(b *testing.B, bin string, env []string, profile lsptest.Profile) *server {
	b.Helper()
	var client *lsptest.Client
	s := spawnCommand(b, bin, env, func(rwc io.ReadWriteCloser) editor {
		client = lsptest.New(b, rwc, profile)
		return client
	})
	s.client = client
	return s
}

// spawnEditor starts `gemini-ls serve` as an editor would (default log
// level, logs on stderr, here a file) and connects the editor connect
// makes. Every frame in both directions is timestamped in s.wire.
func spawnEditor(b *testing.B, env []string, connect func(io.ReadWriteCloser) editor) *server {
	return spawnCommand(b, binary, env, connect)
}

func spawnCommand(b *testing.B, bin string, env []string, connect func(io.ReadWriteCloser) editor) *server {
	b.Helper()
	proc := lsptest.StartCommand(b, bin, env, filepath.Join(b.TempDir(), filepath.Base(bin)), "serve")
	s := &server{proc: proc, wire: &wireLog{}}
	s.editor = connect(s.wire.tap(proc))
	return s
}

// stop sends shutdown and exit, closes the server's stdin as an editor
// does when it lets a server go, and waits for the process to end.
// (With stdin left open, gemini-ls gives its blocked stdin reader 100 ms
// at exit before it goes.)
func (s *server) stop(ctx context.Context) error {
	if err := s.editor.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	rss, ok, err := peakRSS(s.proc.Cmd.Process.Pid)
	if err != nil {
		return err
	}
	if ok {
		s.peakRSS = rss
	}
	if err := s.editor.Notify(ctx, "exit", nil); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	// A server that exits at once on exit (the trivial one) may be gone
	// already, and its stdin closed by the wait for its end.
	if err := s.proc.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("closing gemini-ls's stdin: %w", err)
	}
	code, err := s.proc.Wait(ctx)
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("gemini-ls exited with status %d after shutdown and exit", code)
	}
	return nil
}

// env is the environment of a server talking to modelURL, with its home
// and caches in temporary directories, and a model named outright: the
// default, auto, would first ask its classifier, taking a turn of the
// fake's script.
func env(b *testing.B, modelURL string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + b.TempDir(),
		"XDG_CACHE_HOME=" + b.TempDir(),
		"XDG_CONFIG_HOME=" + b.TempDir(),
		"GEMINI_API_KEY=bench-key",
		"GEMINI_MODEL=gemini-2.5-pro",
		"GOOGLE_GEMINI_BASE_URL=" + modelURL,
		// A trusted workspace, as a user's is: headless refuses others.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}
}

// tempRoot is a workspace root with symlinks resolved, as the server
// resolves it.
func tempRoot(b *testing.B) string {
	root := b.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root
}

func writeFiles(b *testing.B, root string, files map[string]string) {
	b.Helper()
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// promptResult is gemini/prompt's result.
type promptResult struct {
	SessionID  string `json:"sessionId"`
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
	Error      string `json:"error"`
}
