package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// refusedAccount is a home signed in with Google (Gemini CLI's cached
// login) and a Code Assist server that refuses the account as the real one
// refuses individual accounts since 2026-06-18; the environment to run in.
func refusedAccount(t *testing.T) (home string, env []string) {
	t.Helper()
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "cached-token", UnsupportedClient: true})
	home = t.TempDir()
	expiry := time.Now().Add(time.Hour).UnixMilli()
	writeFiles(t, home, map[string]string{
		".gemini/settings.json":    `{"security": {"auth": {"selectedType": "oauth-personal"}}}`,
		".gemini/oauth_creds.json": fmt.Sprintf(`{"access_token": "cached-token", "refresh_token": "refresh", "token_type": "Bearer", "expiry_date": %d}`, expiry),
	})
	return home, []string{"CODE_ASSIST_ENDPOINT=" + ca.URL}
}

// wantRefusal fails unless text tells the refusal: the sentence, and the
// server's message word for word.
func wantRefusal(t *testing.T, where, text string) {
	t.Helper()
	if !strings.Contains(text, codeassist.IndividualSignInEnded) || !strings.Contains(text, codeassisttest.UnsupportedClientMessage) {
		t.Errorf("%s does not tell the refusal of an individual account:\n%s", where, text)
	}
}

// Headless, in text and in -o json, the run ends with the sentence.
func TestIndividualSignInRefusedHeadless(t *testing.T) {
	h := newHeadless(t, nil)
	home, extra := refusedAccount(t)
	trustFolder(t, home, h.root)
	env := append(append(h.withoutEnv("HOME"), "HOME="+home), extra...)
	env = withoutVar(env, "GEMINI_API_KEY")

	text := h.runIn(h.root, env, "run", "-p", "hi")
	if text.code == 0 {
		t.Fatalf("the run succeeded:\n%s", text.stdout)
	}
	wantRefusal(t, "text mode's stderr", text.stderr)
	if last := lastLine(text.stderr); !strings.Contains(last, codeassist.IndividualSignInEnded) {
		t.Errorf("text mode does not end with the sentence; its last line: %q", last)
	}
	js := h.runIn(h.root, env, "run", "-p", "hi", "-o", "json")
	if js.code == 0 {
		t.Fatalf("the json run succeeded:\n%s", js.stdout)
	}
	wantRefusal(t, "-o json's output", js.stdout)
}

// Through the language server the prompt's error tells it.
func TestIndividualSignInRefusedLSP(t *testing.T) {
	home, extra := refusedAccount(t)
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: append([]string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}, extra...)})
	var res map[string]any
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, &res)
	got := fmt.Sprint(res)
	if err != nil {
		got = err.Error()
	}
	wantRefusal(t, "gemini/prompt's answer", got)
}

// Through ACP the prompt's error tells it.
func TestIndividualSignInRefusedACP(t *testing.T) {
	home, extra := refusedAccount(t)
	// settings.json's selectedType (oauth-personal) wins over the key the
	// harness sets.
	h := startACP(t, acpSetup{home: home, env: append(trustTheWorkspace(), extra...)})
	res, err := h.prompt("hi")
	if err == nil {
		t.Fatalf("the prompt succeeded: %+v", res)
	}
	wantRefusal(t, "session/prompt's error", err.Error())
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
