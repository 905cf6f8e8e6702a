package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// showMessages is the text of every window/showMessage so far.
func (h *harness) showMessages() []string {
	var out []string
	for _, p := range messagesAs[struct{ Message string }](h, "window/showMessage") {
		out = append(out, p.Message)
	}
	return out
}

// The user's, the workspace's and the editor's settings layer as Gemini
// CLI layers them, and workspace/didChangeConfiguration changes the model
// and the approval mode of the running server; what needs a restart is
// said, and settings that cannot be used change nothing.
func TestSettingsLayersAndDidChangeConfiguration(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{
  // the user's model, overridden by the workspace
  "model": {"name": "user-model"},
  "general": {"defaultApprovalMode": "auto_edit"},
}`})
	h := start(t, setup{
		profile: lsptest.Plugin(),
		env:     []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_MODEL="},
		files:   map[string]string{".gemini/settings.json": `{"model": {"name": "workspace-model"}}`},
	}, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))

	first := h.prompt(map[string]any{"prompt": "hi"})
	if got := h.model.Requests()[0].Model; got != "workspace-model" {
		t.Errorf("first request's model = %q, want the workspace's", got)
	}

	notify := func(settings any) {
		t.Helper()
		if err := h.client.Notify(h.ctx, "workspace/didChangeConfiguration", map[string]any{"settings": settings}); err != nil {
			t.Fatal(err)
		}
	}
	// gemini/models says the approval mode the server runs in, before a
	// change and after it (the server reads its messages in order).
	mode := func() string {
		t.Helper()
		var r modelsReply
		if err := h.client.Call(h.ctx, "gemini/models", nil, &r); err != nil {
			t.Fatalf("gemini/models: %v", err)
		}
		return r.ApprovalMode
	}
	if got := mode(); got != "auto_edit" {
		t.Errorf("gemini/models' approval mode = %q, want the user's auto_edit", got)
	}
	notify(map[string]any{"gemini": map[string]any{
		"model":   map[string]any{"name": "editor-model"},
		"general": map[string]any{"defaultApprovalMode": "yolo"},
		"tools":   map[string]any{"exclude": []any{"web_fetch"}},
	}})
	if got := mode(); got != "yolo" {
		t.Errorf("gemini/models' approval mode after the change = %q, want yolo", got)
	}
	h.prompt(map[string]any{"prompt": "again", "sessionId": first.SessionID})
	if got := h.model.Requests()[1].Model; got != "editor-model" {
		t.Errorf("after didChangeConfiguration the model = %q", got)
	}
	shown := strings.Join(h.showMessages(), "\n")
	for _, want := range []string{"now using model editor-model and approval mode YOLO", "the changes to tools take effect when gemini-ls restarts"} {
		if !strings.Contains(shown, want) {
			t.Errorf("showMessage = %q, want %q", shown, want)
		}
	}

	// A value of the wrong type is refused whole: the model stays.
	notify(map[string]any{"model": map[string]any{"name": 42}})
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "were not applied")
	}); err != nil {
		t.Fatal(err)
	}
	h.prompt(map[string]any{"prompt": "third", "sessionId": first.SessionID})
	if got := h.model.Requests()[2].Model; got != "editor-model" {
		t.Errorf("after a bad change the model = %q", got)
	}
	if shown := strings.Join(h.showMessages(), "\n"); !strings.Contains(shown, "model.name") {
		t.Errorf("the refusal does not name the key: %q", shown)
	}
}

// The user's and the project's GEMINI.md files reach the model in the
// first user content, as Gemini CLI sends them (the system instruction
// holds none of them), and a file the user edits counts from the next
// prompt, whose content gives the memory anew.
func TestGeminiMdReachesTheModel(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/GEMINI.md": "Always answer in French."})
	h := start(t, setup{
		profile: lsptest.Plugin(),
		env:     []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		files:   map[string]string{"GEMINI.md": "This project uses tabs.\n@docs/style.md", "docs/style.md": "Imported style rule."},
	}, geminitest.TextTurn("oui"), geminitest.TextTurn("encore"))
	first := h.prompt(map[string]any{"prompt": "hi"})
	got := firstMemory(h.model.Requests()[0])
	for _, want := range []string{
		"--- Context from: " + home + "/.gemini/GEMINI.md ---", "Always answer in French.",
		"--- Context from: " + h.path("GEMINI.md") + " ---", "This project uses tabs.", "Imported style rule.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the first user content's memory lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "Always answer in French.") > strings.Index(got, "This project uses tabs.") {
		t.Error("the global file must come before the project's")
	}
	if system := systemText(t, h.model.Requests(), 0); strings.Contains(system, "Always answer in French.") {
		t.Errorf("the memory is in the system instruction:\n%s", system)
	}
	writeFiles(t, home, map[string]string{".gemini/GEMINI.md": "Always answer in German."})
	h.prompt(map[string]any{"prompt": "again", "sessionId": first.SessionID})
	second := h.model.Requests()[1].Contents
	if got := givenMemory(geminitest.Request{Contents: second[len(second)-1:]}); !strings.Contains(got, "Always answer in German.") || strings.Contains(got, "French") {
		t.Errorf("the edited global file is not given with the next prompt:\n%s", got)
	}
}

// gemini/authStatus says which auth mode is chosen and what is missing,
// never a secret; a key in the workspace's .env is used as Gemini CLI
// uses it, and one set in the environment wins over it.
func TestAuthStatusAndDotEnv(t *testing.T) {
	type report struct {
		Type      string   `json:"type"`
		Source    string   `json:"source"`
		Usable    bool     `json:"usable"`
		Problem   string   `json:"problem"`
		Variables []string `json:"variables"`
	}
	status := func(h *harness) (r report) {
		t.Helper()
		if err := h.client.Call(h.ctx, "gemini/authStatus", nil, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}

	none := start(t, setup{profile: lsptest.Plugin(), noKey: true})
	if r := status(none); r.Usable || r.Type != "gemini-api-key" || r.Problem != noCredentials {
		t.Errorf("without credentials: %+v", r)
	}

	const secret = "dotenv-secret-key"
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, files: map[string]string{".env": "GEMINI_API_KEY=" + secret + "\n"}},
		geminitest.TextTurn("hello"))
	r := status(h)
	if !r.Usable || r.Type != "gemini-api-key" || !strings.Contains(strings.Join(r.Variables, ","), "GEMINI_API_KEY") {
		t.Errorf("with the key in .env: %+v", r)
	}
	var raw json.RawMessage
	if err := h.client.Call(h.ctx, "gemini/authStatus", nil, &raw); err != nil || strings.Contains(string(raw), secret) {
		t.Errorf("authStatus shows the key: %s (%v)", raw, err)
	}
	if res := h.prompt(map[string]any{"prompt": "hi"}); res.StopReason != "end_turn" {
		t.Fatalf("prompt with the .env key: %+v", res)
	}
	if got := h.model.Requests()[0].Header.Get("x-goog-api-key"); got != secret {
		t.Errorf("the request's key = %q, want the .env's", got)
	}

	// The environment wins over .env.
	env := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{".env": "GEMINI_API_KEY=" + secret + "\n"}}, geminitest.TextTurn("hello"))
	env.prompt(map[string]any{"prompt": "hi"})
	if got := env.model.Requests()[0].Header.Get("x-goog-api-key"); got != "test-key" {
		t.Errorf("the request's key = %q, want the environment's", got)
	}
}

// A Gemini CLI user who logged in with Google (settings' selectedType
// oauth-personal, the cached login in ~/.gemini) prompts through the Code
// Assist server: the bearer token, the project from loadCodeAssist, and
// the Gemini request wrapped as Gemini CLI wraps it.
func TestGoogleLoginThroughCodeAssist(t *testing.T) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "cached-token",
		CurrentTier: &codeassisttest.Tier{ID: "standard-tier", Name: "Standard"},
		Project:     "my-project",
	}, geminitest.TextTurn("hello from Code Assist"))
	home := t.TempDir()
	expiry := time.Now().Add(time.Hour).UnixMilli()
	writeFiles(t, home, map[string]string{
		".gemini/settings.json":    `{"security": {"auth": {"selectedType": "oauth-personal"}}}`,
		".gemini/oauth_creds.json": fmt.Sprintf(`{"access_token": "cached-token", "refresh_token": "refresh", "token_type": "Bearer", "expiry_date": %d}`, expiry),
	})
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: []string{"HOME=" + home, "CODE_ASSIST_ENDPOINT=" + ca.URL}})
	var r struct {
		Type   string `json:"type"`
		Source string `json:"source"`
		Usable bool   `json:"usable"`
	}
	if err := h.client.Call(h.ctx, "gemini/authStatus", nil, &r); err != nil || r.Type != "oauth-personal" || r.Source != "settings" || !r.Usable {
		t.Fatalf("authStatus = %+v, %v", r, err)
	}
	if res := h.prompt(map[string]any{"prompt": "hi"}); res.StopReason != "end_turn" || res.Text != "hello from Code Assist" {
		t.Fatalf("prompt: %+v", res)
	}
	streams := ca.RequestsFor("streamGenerateContent")
	if len(streams) != 1 {
		t.Fatalf("%d stream requests", len(streams))
	}
	req := streams[0]
	if got := req.Header.Get("Authorization"); got != "Bearer cached-token" {
		t.Errorf("Authorization = %q", got)
	}
	if req.Path != "/v1internal:streamGenerateContent" || req.Query != "alt=sse" {
		t.Errorf("path = %s?%s", req.Path, req.Query)
	}
	var body struct {
		Model        string         `json:"model"`
		Project      string         `json:"project"`
		UserPromptID string         `json:"user_prompt_id"`
		Request      map[string]any `json:"request"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gemini-2.5-pro" || body.Project != "my-project" || body.UserPromptID == "" || body.Request["contents"] == nil {
		t.Errorf("wrapped body = %s", req.Body)
	}
	if len(ca.RequestsFor("loadCodeAssist")) != 1 {
		t.Errorf("loadCodeAssist called %d times", len(ca.RequestsFor("loadCodeAssist")))
	}
}
