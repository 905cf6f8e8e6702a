package setup

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/subagents/remote"
)

// /agents learns from the agent's client why its credential is withheld,
// once a call has read its card, and for the definition as it is: the
// card URL on 127.0.0.1 redirects to a card on 127.0.0.2.
func TestAgentCatalogSaysTheCredentialIsWithheld(t *testing.T) {
	elsewhere := origintest.NewServer(t, http.HandlerFunc(answerA2A))
	home := httptest.NewServer(origintest.Redirect(http.StatusTemporaryRedirect, elsewhere.URL))
	t.Cleanup(home.Close)
	def := subagents.Definition{Name: "pay", Kind: subagents.Remote, CardURL: home.URL + "/card",
		Auth: &subagents.Auth{Type: "http", Scheme: "Bearer", Token: "t0k"}}
	b := &Built{remote: newRemoteAgents(remote.Options{})}
	catalog := &AgentCatalog{b: b}

	if got := catalog.CredentialWithheld(def); got != "" {
		t.Errorf("before any call: %q", got)
	}
	if text, err := b.remote.Invoke(t.Context(), def, "Hi", func(dialog.Event) {}); err != nil || text != "Artifact:\ndone" {
		t.Fatalf("Invoke = %q, %v", text, err)
	}
	want := "redirected to " + elsewhere.URL + "/card, on another origin"
	if got := catalog.CredentialWithheld(def); !strings.Contains(got, want) {
		t.Errorf("CredentialWithheld = %q, want %q in it", got, want)
	}
	changed := def
	changed.Auth = &subagents.Auth{Type: "apiKey", Key: "k"}
	if got := catalog.CredentialWithheld(changed); got != "" {
		t.Errorf("for a definition changed since the call: %q", got)
	}
	if got := (&AgentCatalog{b: &Built{}}).CredentialWithheld(def); got != "" {
		t.Errorf("without remote agents: %q", got)
	}
}

// answerA2A is an agent that does not stream: its card at /card, and a
// completed task for any message.
func answerA2A(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/card" {
		w.Write([]byte(`{"name":"P","url":"http://` + r.Host + `/rpc","capabilities":{"streaming":false}}`))
		return
	}
	var req struct {
		ID string `json:"id"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"done"}]}]}}`))
}
