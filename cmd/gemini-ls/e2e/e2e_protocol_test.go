package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

func rpcCode(t *testing.T, err error) jsonrpc2.Code {
	t.Helper()
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a JSON-RPC error", err)
	}
	return e.Code
}

// Bad input gets a clear error and the connection survives all of it.
func TestMalformedInputKeepsTheConnection(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode()}, geminitest.TextTurn("still here"))
	c := h.client

	if err := c.WriteRaw(`{"jsonrpc":"2.0","id":7,"method":`); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitMessage(h.ctx, "(response with id null)", nil)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    *int `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(m.Params, &resp); err != nil || resp.ID != nil || resp.Error.Code != -32700 {
		t.Errorf("parse error response = %s", m.Params)
	}

	// Valid JSON that is no JSON-RPC message: Invalid Request, id null.
	if err := c.WriteRaw(`{"hello":"world"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitMessage(h.ctx, "(response with id null)", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"code":-32600`)
	}); err != nil {
		t.Errorf("no Invalid Request answer: %v", err)
	}

	err = c.Call(h.ctx, "textDocument/hover", map[string]any{}, nil)
	if rpcCode(t, err) != jsonrpc2.MethodNotFound || !strings.Contains(err.Error(), "textDocument/hover") {
		t.Errorf("unknown request: %v", err)
	}
	if err := c.Notify(h.ctx, "gemini/unknownNotification", map[string]any{"x": 1}); err != nil {
		t.Fatal(err)
	}
	// Malformed params of a notification are logged, not fatal.
	if err := c.Notify(h.ctx, "textDocument/didChange", map[string]any{"textDocument": "nope"}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		params any
		field  string
	}{
		{map[string]any{"prompt": 5}, `"prompt"`},
		{map[string]any{}, `"prompt"`},
		{map[string]any{"prompt": "x", "sessionId": 3}, `"sessionId"`},
		{map[string]any{"prompt": "x", "sessionId": "no-such-session"}, `"no-such-session"`},
		{[]int{1}, "object"},
	} {
		err := c.Call(h.ctx, "gemini/prompt", tc.params, nil)
		if rpcCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("gemini/prompt %v: %v, want InvalidParams naming %s", tc.params, err, tc.field)
		}
	}
	err = c.Call(h.ctx, "workspace/executeCommand", map[string]any{"command": "gemini.nope"}, nil)
	if rpcCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "gemini.nope") {
		t.Errorf("unknown command: %v", err)
	}

	// After all that, a prompt still works.
	if res := h.prompt(map[string]any{"prompt": "hello"}); res.Text != "still here" {
		t.Errorf("prompt after bad input = %+v", res)
	}
}

func TestLifecycle(t *testing.T) {
	t.Run("shutdown then exit is status 0", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Neovim()})
		if err := h.client.Call(h.ctx, "shutdown", nil, nil); err != nil {
			t.Fatal(err)
		}
		err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "late"}, nil)
		if rpcCode(t, err) != jsonrpc2.InvalidRequest {
			t.Errorf("request after shutdown: %v", err)
		}
		if err := h.client.Notify(h.ctx, "exit", nil); err != nil {
			t.Fatal(err)
		}
		if code, err := h.proc.Wait(h.ctx); err != nil || code != 0 {
			t.Errorf("exit status %d, %v; want 0", code, err)
		}
	})
	t.Run("exit without shutdown is status 1", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Neovim()})
		if err := h.client.Notify(h.ctx, "exit", nil); err != nil {
			t.Fatal(err)
		}
		if code, err := h.proc.Wait(h.ctx); err != nil || code != 1 {
			t.Errorf("exit status %d, %v; want 1", code, err)
		}
	})
	t.Run("requests before initialize", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		proc := lsptest.StartBinary(t, binary, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, filepath.Join(t.TempDir(), "log"))
		c := lsptest.New(t, proc, lsptest.VSCode())
		err := c.Call(ctx, "gemini/prompt", map[string]any{"prompt": "early"}, nil)
		if rpcCode(t, err) != -32002 {
			t.Errorf("prompt before initialize: %v", err)
		}
		if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
			t.Errorf("initialize after an early request: %v", err)
		}
	})
}

func TestInitializeNegotiates(t *testing.T) {
	for _, tc := range []struct {
		profile lsptest.Profile
		enc     string
	}{
		{lsptest.VSCode(), "utf-16"}, {lsptest.Neovim(), "utf-8"}, {lsptest.Eglot(), "utf-32"}, {lsptest.Helix(), "utf-8"},
		{lsptest.Profile{Name: "bare", Capabilities: json.RawMessage(`{}`)}, "utf-16"},
	} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			proc := lsptest.StartBinary(t, binary, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GEMINI_API_KEY=k"}, filepath.Join(t.TempDir(), "log"))
			c := lsptest.New(t, proc, tc.profile)
			res, err := c.Initialize(ctx, []string{t.TempDir()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			var r struct {
				Capabilities struct {
					PositionEncoding string `json:"positionEncoding"`
					TextDocumentSync struct {
						Change int `json:"change"`
					} `json:"textDocumentSync"`
					ExecuteCommandProvider struct {
						Commands []string `json:"commands"`
					} `json:"executeCommandProvider"`
					CodeActionProvider struct {
						CodeActionKinds []string `json:"codeActionKinds"`
					} `json:"codeActionProvider"`
					Experimental struct {
						Gemini struct {
							ProtocolVersion int `json:"protocolVersion"`
						} `json:"gemini"`
					} `json:"experimental"`
				} `json:"capabilities"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			caps := r.Capabilities
			if caps.PositionEncoding != tc.enc || caps.TextDocumentSync.Change != 2 ||
				strings.Join(caps.ExecuteCommandProvider.Commands, ",") != "gemini.prompt,gemini.newSession,gemini.cancel,gemini.acceptCompletion,gemini.editSelection,gemini.startAgent,gemini.agents,gemini.landAgent,gemini.discardAgent,gemini.delegate,gemini.followUpAgent" ||
				strings.Join(caps.CodeActionProvider.CodeActionKinds, ",") != "quickfix,refactor.rewrite," ||
				caps.Experimental.Gemini.ProtocolVersion != 1 {
				t.Errorf("capabilities = %s", b)
			}
		})
	}
}

// Without credentials the server still serves; prompts answer the
// reference's message, with the other ways in.
func TestMissingCredentials(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), noKey: true, files: map[string]string{"a.go": aGo}})
	h.open("a.go")
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, nil)
	if rpcCode(t, err) != -32803 || !strings.Contains(err.Error(), noCredentials) {
		t.Errorf("prompt without a key: %v", err)
	}
	// Warnings reach the editor's log too.
	if _, err := h.client.WaitMessage(h.ctx, "window/logMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "GEMINI_API_KEY")
	}); err != nil {
		t.Errorf("no window/logMessage about the missing key: %v", err)
	}
	if err := h.client.Call(h.ctx, "shutdown", nil, nil); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// Editors start the server with no arguments, or with --stdio (VS Code).
func TestServeIsTheDefaultAndAcceptsStdio(t *testing.T) {
	for _, args := range [][]string{nil, {"--stdio"}, {"serve", "--stdio"}} {
		t.Run(strings.Join(append([]string{"gemini-ls"}, args...), " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			log := filepath.Join(t.TempDir(), "log")
			proc := lsptest.StartCommand(t, binary, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, log, args...)
			c := lsptest.New(t, proc, lsptest.VSCode())
			if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
				t.Fatal(err)
			}
			_ = c.Notify(ctx, "exit", nil)
			if code, err := proc.Wait(ctx); err != nil || code != 0 {
				t.Errorf("exit status %d, %v", code, err)
			}
		})
	}
}
