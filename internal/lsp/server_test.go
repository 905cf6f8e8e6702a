package lsp_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// The server runs in process as well as behind the binary: a prompt, then
// shutdown and exit with status 0.
func TestServeInProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	model := geminitest.NewTestServer(t, geminitest.TextTurn("in process"))
	env := map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": model.URL}
	conn, exit := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, map[string]any{"model": "gemini-test"}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		StopReason string `json:"stopReason"`
		Text       string `json:"text"`
	}
	if err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "end_turn" || res.Text != "in process" {
		t.Errorf("result = %+v", res)
	}
	if got := model.Requests()[0].Model; got != "gemini-test" {
		t.Errorf("model = %q, want the client's initializationOptions.model", got)
	}
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctx, "exit", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("exit status %d, want 0", code)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return after exit")
	}
}

// Closing the stream without shutdown ends Serve with status 1.
func TestServeEndsWhenTheClientGoes(t *testing.T) {
	conn, exit := lsptest.StartInProcess(t, lsp.Options{Getenv: func(string) string { return "" }})
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != 1 {
			t.Errorf("exit status %d, want 1", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when the stream closed")
	}
}

// brokenOutput is a client that stopped reading: every write fails as
// one to a pipe whose reading end is closed, while its input stays open.
type brokenOutput struct{ io.Reader }

func (brokenOutput) Write([]byte) (int, error) { return 0, syscall.EPIPE }
func (brokenOutput) Close() error              { return nil }

// A write that fails ends Serve, with status 1 as when the input ends,
// though the input stays open.
func TestServeEndsWhenAWriteFails(t *testing.T) {
	in, client := io.Pipe()
	t.Cleanup(func() { _ = in.Close() })
	exit := make(chan int, 1)
	go func() {
		exit <- lsp.Serve(context.Background(), brokenOutput{in}, lsp.Options{Getenv: func(string) string { return "" }})
	}()
	// The request's answer is the write that fails.
	body := `{"jsonrpc":"2.0","id":1,"method":"gemini/nothing","params":{}}`
	if _, err := fmt.Fprintf(client, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != 1 {
			t.Errorf("exit status %d, want 1", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when a write to the client failed")
	}
}

// initializationOptions the agent could not use fail initialize with
// InvalidParams naming the key, and the server stays uninitialized: a
// corrected initialize then succeeds.
func TestUnusableInitializationOptionsAreRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	home := t.TempDir()
	env := platformtest.HomeVars(map[string]string{"GEMINI_API_KEY": "k"}, home)
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	root := t.TempDir()
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"model": map[string]any{"name": 42}}, "model.name"},
		{map[string]any{"approvalMode": "sometimes"}, `"sometimes" is not one of default, auto_edit, plan, yolo`},
		{map[string]any{"general": map[string]any{"defaultApprovalMode": "always"}}, "general.defaultApprovalMode"},
		{map[string]any{"workspaceTrust": "yes"}, "workspaceTrust must be true or false"},
	} {
		_, err := c.Initialize(ctx, []string{root}, tc.opts)
		if err == nil || !strings.Contains(err.Error(), "invalid params: initializationOptions") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("initialize with %v: %v, want InvalidParams naming %s", tc.opts, err, tc.want)
		}
	}
	if _, err := c.Initialize(ctx, []string{root}, map[string]any{"model": "gemini-test"}); err != nil {
		t.Fatalf("a corrected initialize: %v", err)
	}
}
