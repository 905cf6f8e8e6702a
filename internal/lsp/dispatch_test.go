package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Dispatch by the method table answers each request as the connection's
// phase and the method's params rule say, with the codes and messages
// clients match: refused before initialize, once initialized, and after
// shutdown; a notification's name sent as a request is unknown; optional
// params may be absent or null, ignored params may be anything, and
// required ones are read strictly.
func TestDispatchFollowsTheLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, exit := lsptest.StartInProcess(t, lsp.Options{Getenv: func(string) string { return "" }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.Plugin())

	type want struct {
		code    jsonrpc2.Code // 0: answered
		message string
	}
	check := func(method string, params json.RawMessage, w want) {
		t.Helper()
		var err error
		shown := "without params"
		if params == nil {
			err = c.Call(ctx, method, nil, nil)
		} else {
			shown = string(params)
			err = c.Call(ctx, method, params, nil)
		}
		var rpcErr *jsonrpc2.Error
		switch {
		case w.code == 0 && err != nil:
			t.Errorf("%s %s: %v, want an answer", method, shown, err)
		case w.code == 0:
		case !errors.As(err, &rpcErr):
			t.Errorf("%s %s: %v, want error %d %q", method, shown, err, w.code, w.message)
		case rpcErr.Code != w.code || rpcErr.Message != w.message:
			t.Errorf("%s %s: error %d %q, want %d %q", method, shown, rpcErr.Code, rpcErr.Message, w.code, w.message)
		}
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }

	notInitialized := jsonrpc2.Code(-32002)
	check("gemini/listSessions", nil, want{notInitialized, "server not initialized: send initialize before gemini/listSessions"})
	check("textDocument/hover", nil, want{notInitialized, "server not initialized: send initialize before textDocument/hover"})
	check("shutdown", nil, want{notInitialized, "server not initialized: send initialize before shutdown"})

	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
		t.Fatal(err)
	}
	check("initialize", raw(`{}`), want{jsonrpc2.InvalidRequest, "initialize was already called"})
	check("textDocument/didOpen", raw(`{}`), want{jsonrpc2.MethodNotFound, "method not found: textDocument/didOpen"})
	check("textDocument/hover", nil, want{jsonrpc2.MethodNotFound, "method not found: textDocument/hover"})
	// Optional params.
	check("gemini/commands", nil, want{})
	check("gemini/commands", raw(`null`), want{})
	check("gemini/commands", raw(`[1]`), want{jsonrpc2.InvalidParams, "params must be a JSON object, not array"})
	check("gemini/listSessions", raw(`{"root": 3}`), want{jsonrpc2.InvalidParams, `invalid params: field "root" must be a string, not number`})
	// Ignored params.
	check("gemini/authStatus", raw(`5`), want{})
	// Required params.
	check("gemini/resumeSession", nil, want{jsonrpc2.InvalidParams, "missing params"})
	check("gemini/resumeSession", raw(`{}`), want{jsonrpc2.InvalidParams, `invalid params: missing required field "sessionId"`})

	check("shutdown", nil, want{})
	check("shutdown", nil, want{})
	check("gemini/listSessions", nil, want{jsonrpc2.InvalidRequest, "server is shutting down: gemini/listSessions refused"})
	check("textDocument/hover", nil, want{jsonrpc2.InvalidRequest, "server is shutting down: textDocument/hover refused"})
	check("initialize", raw(`{}`), want{jsonrpc2.InvalidRequest, "initialize was already called"})

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
