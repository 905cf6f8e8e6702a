package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// freeTierCodeAssist is a fake Code Assist server whose user is on the
// free tier, and the files of a home signed in to it with Google.
func freeTierCodeAssist(t *testing.T) (*codeassisttest.Server, map[string]string) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "cached-token",
		CurrentTier: &codeassisttest.Tier{ID: "free-tier", Name: "Gemini Code Assist for individuals"},
		Project:     "managed-project",
	})
	login := map[string]string{
		".gemini/settings.json":    `{"security": {"auth": {"selectedType": "oauth-personal"}}}`,
		".gemini/oauth_creds.json": fmt.Sprintf(`{"access_token": "cached-token", "refresh_token": "refresh", "token_type": "Bearer", "expiry_date": %d}`, time.Now().Add(time.Hour).UnixMilli()),
	}
	return ca, login
}

// Headless, /privacy shows the notice, but /privacy optin and optout are
// refused (issue 62: text from a pipe or -p changes no account's
// setting) and the Code Assist server holds nothing new; with an API key
// /upgrade is refused in Gemini CLI 0.61's words.
func TestPrivacyAndUpgradeHeadless(t *testing.T) {
	ca, login := freeTierCodeAssist(t)
	h := newHeadless(t, nil)
	writeFiles(t, envValue(h.env, "HOME"), login)
	h.env = append(h.withoutEnv("GEMINI_API_KEY"), "CODE_ASSIST_ENDPOINT="+ca.URL)

	for _, line := range []string{"/privacy optout", "/privacy optin"} {
		r := h.run("run", "-p", line)
		r.wantExit(t, exitInput)
		contains(t, line+"'s stderr", r.stderr, "only where a person types it")
	}
	if held := ca.DataCollectionOptIn(); held != nil {
		t.Fatalf("the Code Assist server holds %v after refused commands", *held)
	}
	shown := h.run("run", "-p", "/privacy")
	shown.wantExit(t, 0)
	contains(t, "/privacy's output", shown.stdout, "Gemini Code Assist for Individuals Privacy Notice")

	withAPIKey := newHeadless(t, nil)
	refused := withAPIKey.run("run", "-p", "/upgrade")
	refused.wantExit(t, exitInput)
	contains(t, "/upgrade's stderr", refused.stderr, "The /upgrade command is only available when logged in with Google.")
	if n := len(ca.RequestsFor("streamGenerateContent")) + len(withAPIKey.model.Requests()); n != 0 {
		t.Errorf("the commands made %d model requests", n)
	}
}

// Over LSP, signed in with Google on the free tier: /privacy shows the
// opt-in the server holds (none: in, as 0.61 defaults it), /privacy
// optout changes it there, and /upgrade answers the page's URL.
func TestPrivacyAndUpgradeOverLSP(t *testing.T) {
	ca, login := freeTierCodeAssist(t)
	home := t.TempDir()
	writeFiles(t, home, login)
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: []string{"HOME=" + home, "CODE_ASSIST_ENDPOINT=" + ca.URL}})
	notice := h.prompt(map[string]any{"prompt": "/privacy"})
	if notice.StopReason != "end_turn" || !strings.Contains(notice.Text, "**Yes, grant permission to use my data for product improvement (Opt-in)**: chosen now") {
		t.Errorf("/privacy answered %+v", notice)
	}
	if res := h.prompt(map[string]any{"prompt": "/privacy optout"}); !strings.Contains(res.Text, "Saved on the Code Assist server: No, deny") {
		t.Errorf("/privacy optout answered %+v", res)
	}
	if held := ca.DataCollectionOptIn(); held == nil || *held {
		t.Errorf("the Code Assist server holds %v after /privacy optout", held)
	}
	if res := h.prompt(map[string]any{"prompt": "/upgrade"}); res.Text != "Please open this URL in a browser: https://goo.gle/set-up-gemini-code-assist" {
		t.Errorf("/upgrade answered %+v", res)
	}
	if n := len(ca.RequestsFor("streamGenerateContent")) + len(h.model.Requests()); n != 0 {
		t.Errorf("the commands made %d model requests", n)
	}
}
