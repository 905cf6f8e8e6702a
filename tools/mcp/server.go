package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateWait is how long a stdio server gets to exit after its stdin
// closes, and again after SIGTERM, before it is killed.
const terminateWait = 500 * time.Millisecond

// stderrTail is how much of a stdio server's stderr is kept to explain its
// failure.
const stderrTail = 2048

// server is one configured MCP server.
type server struct {
	alias   string
	cfg     serverConfig
	dir     string
	version string

	cmd    *exec.Cmd // stdio servers only; set before the goroutines start
	stderr tail

	// gone is closed once the connection has ended and the tools are
	// withdrawn; calls fail at once after that.
	gone     chan struct{}
	goneOnce sync.Once
}

// start connects to the server and lists its tools.
func (s *server) start(ctx context.Context) (*sdk.ClientSession, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	transport, err := s.transport()
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "gemini-ls", Version: s.version}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting: %w", err)
	}
	var listed []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return nil, nil, fmt.Errorf("listing tools: %w", err)
		}
		listed = append(listed, t)
	}
	return session, listed, nil
}

// transport is how to reach the server: a process speaking on its stdin
// and stdout, or streamable HTTP (httpUrl, else url, as Gemini CLI reads
// a url without a type).
func (s *server) transport() (sdk.Transport, error) {
	url := s.cfg.HTTPURL
	if url == "" {
		url = s.cfg.URL
	}
	switch {
	case s.cfg.Command != "":
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Dir = s.dir
		if s.cfg.Cwd != "" {
			cmd.Dir = s.cfg.Cwd
			if !filepath.IsAbs(s.cfg.Cwd) && s.dir != "" {
				cmd.Dir = filepath.Join(s.dir, s.cfg.Cwd)
			}
		}
		cmd.Env = serverEnv(os.Environ(), s.cfg.Env)
		cmd.Stderr = &s.stderr
		// The pipes' copying must not wait for a child that kept them.
		cmd.WaitDelay = terminateWait
		ownGroup(cmd)
		s.cmd = cmd
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateWait}, nil
	case url != "":
		client := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, base: http.DefaultTransport}}
		return &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil
	}
	return nil, errors.New("no command, httpUrl or url is configured")
}

// kill ends whatever is left of the server's process group.
func (s *server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		killGroup(s.cmd.Process.Pid)
	}
}

func (s *server) markDead() {
	s.goneOnce.Do(func() { close(s.gone) })
}

func (s *server) isDead() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

// explain is err with what the process said and how it ended.
func (s *server) explain(err error) string {
	msg := err.Error()
	if s.cmd != nil {
		if st := s.cmd.ProcessState; st != nil && !st.Success() {
			msg += "; the process " + st.String()
		}
		if out := strings.TrimSpace(s.stderr.String()); out != "" {
			msg += "; its stderr ended with: " + out
		}
	}
	return msg
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}

// tail keeps the last stderrTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
