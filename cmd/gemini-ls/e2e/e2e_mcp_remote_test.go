package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// signInURL finds the authorization URL gemini-ls shows.
var signInURL = regexp.MustCompile(`https?://127\.0\.0\.1:\d+/authorize\?[^\s"\\]+`)

// runSigningIn runs `gemini-ls args...` headless, playing the user's
// browser on every authorization URL it prints on stderr.
func (h *headless) runSigningIn(env []string, args ...string) (res cliResult, signIns int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = h.root, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		lines := bufio.NewScanner(io.TeeReader(pipe, &stderr))
		for lines.Scan() {
			if u := signInURL.FindString(lines.Text()); u != "" {
				signIns++
				if err := mcptest.Browse(u); err != nil {
					h.t.Errorf("browsing %s: %v", u, err)
				}
			}
		}
	}()
	wg.Wait()
	err = cmd.Wait()
	res = cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		h.t.Fatalf("running gemini-ls %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	return res, signIns
}

// Headless, an SSE-only server is used over SSE, whether "type": "sse"
// says so or a url without a type falls back to it.
func TestMCPSSEServerHeadless(t *testing.T) {
	sse := mcptest.NewSSE(t)
	h := newHeadless(t, map[string]string{},
		call("echo", map[string]any{"message": "over sse"}),
		call("add", map[string]any{"a": 20, "b": 22}),
		geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"typed":   map[string]any{"url": sse.URL, "type": "sse", "includeTools": []string{"echo"}},
		"untyped": map[string]any{"url": sse.URL, "includeTools": []string{"add"}, "headers": map[string]string{"X-Api-Key": "k1"}},
	})})
	res := h.runIn(h.root, trusted(t, h), "run", "-p", "use the sse server", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "sse echo: over sse" {
		t.Errorf("echo = %q\nstderr:\n%s", got, res.stderr)
	}
	if got := responseOutput(h.responses(2)[0]); got != "42" {
		t.Errorf("add = %q", got)
	}
	keyed := false
	for _, r := range sse.Requests() {
		keyed = keyed || r.Header.Get("X-Api-Key") == "k1"
	}
	if !keyed {
		t.Error("the configured header never reached the server")
	}
}

// Headless, an OAuth-protected streamable HTTP server: the first run
// discovers, registers, prints the URL on stderr (the test is the
// browser), stores the token 0600 in Gemini CLI's file and calls the tool;
// a second run reuses the token with no sign-in; a third, after the token
// expired, refreshes it.
func TestMCPOAuthServerHeadless(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	h := newHeadless(t, map[string]string{},
		call("echo", map[string]any{"message": "signed in"}), geminitest.TextTurn("one"),
		call("echo", map[string]any{"message": "again"}), geminitest.TextTurn("two"),
		call("add", map[string]any{"a": 1, "b": 2}), geminitest.TextTurn("three"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"secure": map[string]any{"httpUrl": srv.URL, "oauth": map[string]any{"enabled": true}},
	})})
	env := trusted(t, h)
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	tokens := filepath.Join(home, ".gemini", oauth.FileName)

	res, signIns := h.runSigningIn(env, "run", "-p", "first", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "oauth echo: signed in" || signIns != 1 {
		t.Fatalf("first run: echo = %q after %d sign-ins\nstderr:\n%s", got, signIns, res.stderr)
	}
	info, err := os.Stat(tokens)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", info, err)
	}
	var stored []oauth.Credentials
	data, _ := os.ReadFile(tokens)
	if err := json.Unmarshal(data, &stored); err != nil || len(stored) != 1 || stored[0].ServerName != "secure" || stored[0].Token.RefreshToken == "" {
		t.Fatalf("token file %s: %v", data, err)
	}
	if !strings.Contains(res.stderr, "gemini-ls: MCP server 'secure' requires authentication. Open this URL in your browser to sign in:\n"+srv.Issuer+"/authorize?") {
		t.Errorf("stderr does not show the sign-in URL on a line of its own:\n%s", res.stderr)
	}
	if strings.Contains(res.stderr, stored[0].Token.AccessToken) || strings.Contains(res.stderr, stored[0].Token.RefreshToken) {
		t.Error("a token reached the log")
	}

	res, signIns = h.runSigningIn(env, "run", "-p", "second", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(3)[0]); got != "oauth echo: again" || signIns != 0 {
		t.Errorf("second run: echo = %q after %d sign-ins\nstderr:\n%s", got, signIns, res.stderr)
	}

	srv.RevokeAccessTokens()
	stored[0].Token.ExpiresAt = time.Now().Add(-time.Minute).UnixMilli()
	data, _ = json.Marshal(stored)
	if err := os.WriteFile(tokens, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res, signIns = h.runSigningIn(env, "run", "-p", "third", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(5)[0]); got != "3" || signIns != 0 {
		t.Errorf("third run: add = %q after %d sign-ins\nstderr:\n%s", got, signIns, res.stderr)
	}
	if c := srv.Counts(); c.Authorizations != 1 || c.Refreshes != 1 {
		t.Errorf("the authorization server saw %+v, want one sign-in and one refresh", c)
	}
}

// Through the editor, an OAuth-protected server: the sign-in page is opened
// in the user's browser (window/showDocument, external) and named in a
// message; once the test, as the browser, completes it, the server's tool
// is declared and called, and the token is in Gemini CLI's file.
func TestMCPOAuthServerThroughTheEditor(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), env: append(trustTheWorkspace(), "HOME="+home), files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{
			"secure": map[string]any{"url": srv.URL, "type": "http", "oauth": map[string]any{"enabled": true}},
		}),
	}},
		call("add", map[string]any{"a": 40, "b": 2}),
		geminitest.TextTurn("done"),
	)
	h.client.OnConfirm = func(context.Context, json.RawMessage) string { return "proceed_once" }
	shown, err := h.client.WaitMessage(h.ctx, "window/showDocument", nil)
	if err != nil {
		t.Fatalf("no window/showDocument: %v", err)
	}
	var doc struct {
		URI      string `json:"uri"`
		External bool   `json:"external"`
	}
	if err := json.Unmarshal(shown.Params, &doc); err != nil || !doc.External || !signInURL.MatchString(doc.URI) {
		t.Fatalf("window/showDocument %s: %v", shown.Params, err)
	}
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "requires authentication") && strings.Contains(string(p), srv.Issuer+"/authorize?")
	}); err != nil {
		t.Errorf("no message names the sign-in URL: %v", err)
	}
	if err := mcptest.Browse(doc.URI); err != nil {
		t.Fatal(err)
	}
	h.waitLog("MCP server ready")
	if res := h.prompt(map[string]any{"prompt": "add"}); res.Text != "done" {
		t.Fatalf("prompt = %+v", res)
	}
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != "42" {
		t.Errorf("add = %q", got)
	}
	info, err := os.Stat(filepath.Join(home, ".gemini", oauth.FileName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v", info, err)
	}
}

// An SSE server the ACP client passes in session/new is reached over SSE
// from its first request (not tried as streamable HTTP), with its headers,
// and its tool runs.
func TestACPClientSSEServer(t *testing.T) {
	sse := mcptest.NewSSE(t)
	h := startACP(t, acpSetup{env: trustTheWorkspace(), mcpServers: []sdk.McpServer{{Sse: &sdk.McpServerSseInline{
		Name: "remote", Type: "sse", Url: sse.URL, Headers: []sdk.HttpHeader{{Name: "X-Api-Key", Value: "k2"}},
	}}}},
		geminitest.CallTurn(geminitest.Call("echo", map[string]any{"message": "from acp"})),
		geminitest.TextTurn("done"))
	h.mustPrompt("use the remote server", sdk.StopReasonEndTurn)
	if got := h.functionResponses(1); len(got) != 1 || got[0]["output"] != "sse echo: from acp" {
		t.Errorf("echo answered the model %v", got)
	}
	reqs := sse.Requests()
	if len(reqs) == 0 || reqs[0].Method != http.MethodGet || reqs[0].Header.Get("X-Api-Key") != "k2" {
		t.Errorf("the SSE server's first request: %+v, want the SSE stream's GET with the client's header", reqs)
	}
}

// Headless, a server that requires a sign-in without oauth.enabled says so
// on stderr; `run -p "/mcp auth NAME"` signs in (the URL on stderr), and
// the next run uses the server.
func TestMCPAuthCommandHeadless(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	h := newHeadless(t, map[string]string{},
		call("echo", map[string]any{"message": "after /mcp auth"}), geminitest.TextTurn("done"),
	)
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"secure": map[string]any{"url": srv.URL},
	})})
	env := trusted(t, h)
	res, signIns := h.runSigningIn(env, "run", "-p", "/mcp auth secure")
	res.wantExit(t, 0)
	if signIns != 1 || !strings.Contains(res.stderr, "MCP server 'secure' requires authentication using: /mcp auth secure") ||
		!strings.Contains(res.stdout, "Successfully authenticated and reloaded tools for 'secure'") {
		t.Fatalf("/mcp auth: %d sign-ins\nstdout:\n%s\nstderr:\n%s", signIns, res.stdout, res.stderr)
	}
	res, signIns = h.runSigningIn(env, "run", "-p", "echo", "--approval-mode", "yolo")
	res.wantExit(t, 0)
	if got := responseOutput(h.responses(1)[0]); got != "oauth echo: after /mcp auth" || signIns != 0 {
		t.Errorf("echo = %q after %d sign-ins\nstderr:\n%s", got, signIns, res.stderr)
	}
}

// Over ACP, /mcp auth puts the sign-in URL in the session's agent message
// while it waits (its reply comes after the sign-in), and the server's
// tool is there once the test, as the browser, has signed in.
func TestACPMCPAuth(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	h := startACP(t, acpSetup{env: trustTheWorkspace(), mcpServers: []sdk.McpServer{{Http: &sdk.McpServerHttpInline{
		Name: "secure", Type: "http", Url: srv.URL, Headers: []sdk.HttpHeader{},
	}}}},
		geminitest.CallTurn(geminitest.Call("echo", map[string]any{"message": "acp"})),
		geminitest.TextTurn("done"))
	go func() {
		var authURL string
		h.client.Wait(h.ctx, "the sign-in URL", func(c *acptest.Client) bool {
			authURL = signInURL.FindString(c.MessageText(h.session))
			return authURL != ""
		})
		if err := mcptest.Browse(authURL); err != nil {
			t.Errorf("browsing: %v", err)
		}
	}()
	h.mustPrompt("/mcp auth secure", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); !strings.Contains(got, "MCP server 'secure' requires authentication. Open this URL") ||
		!strings.Contains(got, "Successfully authenticated and reloaded tools for 'secure'") {
		t.Fatalf("the session's message: %q", got)
	}
	h.mustPrompt("echo", sdk.StopReasonEndTurn)
	if got := h.functionResponses(1); len(got) != 1 || got[0]["output"] != "oauth echo: acp" {
		t.Errorf("echo answered the model %v", got)
	}
}
