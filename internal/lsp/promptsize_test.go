package lsp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// A gemini/prompt, or a gemini.prompt command, whose params are over
// MaxPromptParams is refused with InvalidParams naming the limit, before
// any session starts; one at the limit is read (and here refused for
// another reason: it is only whitespace).
func TestPromptParamsOverTheLimitAreRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(string) string { return "" }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
		t.Fatal(err)
	}
	const around = len(`{"prompt":""}`)
	over := strings.Repeat(" ", lsp.MaxPromptParams-around+1)
	for _, call := range []struct {
		method string
		params any
		size   int
	}{
		{"gemini/prompt", map[string]any{"prompt": over}, lsp.MaxPromptParams + 1},
		{"workspace/executeCommand", map[string]any{"command": "gemini.prompt", "arguments": []any{over}}, 0},
	} {
		err := c.Call(ctx, call.method, call.params, nil)
		var rpcErr *jsonrpc2.Error
		want := fmt.Sprintf("over the limit of %d MiB (%d bytes) of a prompt", lsp.MaxPromptParams>>20, lsp.MaxPromptParams)
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, want) {
			t.Errorf("%s over the limit: %v, want InvalidParams saying %q", call.method, err, want)
		}
		if call.size != 0 && !strings.Contains(err.Error(), fmt.Sprintf("params are %d bytes", call.size)) {
			t.Errorf("%s: %v, want the params' size, %d bytes", call.method, err, call.size)
		}
	}
	err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": over[1:]}, nil)
	if err == nil || !strings.Contains(err.Error(), `field "prompt" is empty`) {
		t.Errorf("a prompt at the limit: %v, want it read (and refused as empty)", err)
	}
}
