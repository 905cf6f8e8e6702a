package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// floodFailure is what a server that sent an endless message is failed
// with.
const floodFailure = "the server sent a message of more than 16 MiB: gemini-ls stopped reading it and disconnected the server"

// Headless, a streamable HTTP server that answers a call with one endless
// `data:` line does not take the run down: the call fails saying why, the
// server's tools are withdrawn, another tool works and the prompt
// completes. A server that floods its tool listing is failed at start-up,
// and /mcp says so.
func TestMCPEndlessMessageHeadless(t *testing.T) {
	atCall := mcptest.NewFlood(t, mcptest.FloodOptions{In: "tools/call"})
	atList := mcptest.NewFlood(t, mcptest.FloodOptions{In: "tools/list"})
	h := newHeadless(t, map[string]string{"notes.txt": "still readable\n"},
		call("flood", nil),
		call("read_file", map[string]any{"path": "notes.txt"}),
		geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"hostile": map[string]any{"httpUrl": atCall.URL, "includeTools": []string{"flood"}},
		"listing": map[string]any{"httpUrl": atList.URL},
	})})
	env := trusted(t, h)
	res := h.runIn(h.root, env, "run", "-p", "flood me", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if !strings.Contains(res.stdout, "done") {
		t.Errorf("stdout = %q, want the answer", res.stdout)
	}
	if got := responseError(h.responses(1)[0]); !strings.Contains(got, floodFailure) {
		t.Errorf("the flooded call answered the model %q", got)
	}
	if got := responseOutput(h.responses(2)[0]); !strings.Contains(got, "still readable") {
		t.Errorf("read_file after the flood = %q", got)
	}
	reqs := h.model.Requests()
	if !slices.Contains(declared(reqs, 0), "mcp_hostile_flood") || slices.Contains(declared(reqs, 1), "mcp_hostile_flood") {
		t.Errorf("declared: first %v, after the flood %v; want flood withdrawn", declared(reqs, 0), declared(reqs, 1))
	}
	for _, want := range []string{": " + floodFailure + " (server: hostile)\n", ": " + floodFailure + " (server: listing)\n"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
		}
	}

	res = h.runIn(h.root, env, "run", "-p", "/mcp")
	res.wantExit(t, 0)
	if !strings.Contains(res.stdout, "`listing`: failed: "+floodFailure) {
		t.Errorf("/mcp said:\n%s", res.stdout)
	}
}

// Through the editor, the same server does not take the language server
// down: the prompt completes with another tool's answer after the flooded
// call failed, and /mcp shows the server failed, saying why.
func TestMCPEndlessMessageThroughTheEditor(t *testing.T) {
	flood := mcptest.NewFlood(t, mcptest.FloodOptions{In: "tools/call"})
	h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), opts: map[string]any{"approvalMode": "yolo"}, files: map[string]string{
		"notes.txt":             "still readable\n",
		".gemini/settings.json": settingsJSON(t, map[string]any{"hostile": map[string]any{"httpUrl": flood.URL, "includeTools": []string{"flood"}}}),
	}},
		call("flood", nil),
		call("read_file", map[string]any{"path": "notes.txt"}),
		geminitest.TextTurn("done"),
	)
	h.waitLog("MCP server ready")
	if res := h.prompt(map[string]any{"prompt": "flood me"}); res.Text != "done" {
		t.Fatalf("prompt = %+v", res)
	}
	if got := h.toolOutputs(1); len(got) != 1 || !strings.Contains(got[0], floodFailure) {
		t.Errorf("the flooded call answered the model %q", got)
	}
	if got := h.toolOutputs(2); len(got) != 1 || !strings.Contains(got[0], "still readable") {
		t.Errorf("read_file after the flood = %q", got)
	}
	if res := h.prompt(map[string]any{"prompt": "/mcp"}); !strings.Contains(res.Text, "`hostile`: failed: "+floodFailure) {
		t.Errorf("/mcp said %+v", res)
	}
}

// Headless, a server that redirects to another origin is used there
// without the headers its entry configures.
func TestMCPRedirectElsewhereHeadless(t *testing.T) {
	srv := mcptest.NewRedirected(t, false, false)
	h := newHeadless(t, map[string]string{},
		call("echo", map[string]any{"message": "moved"}),
		geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"moved": map[string]any{"httpUrl": srv.URL, "headers": map[string]string{"X-Api-Key": "configured-secret"}},
	})})
	res := h.runIn(h.root, trusted(t, h), "run", "-p", "echo", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "redirected echo: moved" {
		t.Errorf("echo = %q\nstderr:\n%s", got, res.stderr)
	}
	if len(srv.Front.Carried("configured-secret")) == 0 {
		t.Error("the configured URL never received the header")
	}
	if got := srv.Server.Carried("configured-secret"); len(srv.Server.Headers()) == 0 || len(got) > 0 {
		t.Errorf("the other origin received %d requests, carrying %v", len(srv.Server.Headers()), got)
	}
}
