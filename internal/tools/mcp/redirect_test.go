package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// A remote server that redirects to another origin (127.0.0.2) is followed
// there, over SSE and streamable HTTP alike, without the configured
// headers or the stored OAuth token; one that redirects within its origin
// keeps them on every request. (The Google token, added by the same
// authTransport, goes only to a Google host over https, which these
// loopback servers are not: TestGoogleCredentialsGoNowhereElse.)
func TestCredentialsDoNotFollowARedirectToAnotherOrigin(t *testing.T) {
	const header, stored = "configured-secret", "stored-oauth-token"
	file := filepath.Join(t.TempDir(), oauth.FileName)
	store := oauth.NewStore(file)
	type target struct {
		srv        *mcptest.Redirected
		sameOrigin bool
		secrets    []string
	}
	targets := map[string]target{}
	servers := map[string]settings.MCPServer{}
	for _, sse := range []bool{false, true} {
		for _, sameOrigin := range []bool{false, true} {
			alias := fmt.Sprintf("sse=%v,same=%v", sse, sameOrigin)
			srv := mcptest.NewRedirected(t, sse, sameOrigin)
			entry := settings.MCPServer{URL: srv.URL, Type: settings.MCPTypeHTTP, Headers: map[string]string{"X-Api-Key": header}}
			if sse {
				entry.Type = settings.MCPTypeSSE
			}
			secrets := []string{header, stored}
			if err := store.Save(t.Context(), oauth.Credentials{ServerName: alias, Token: oauth.Token{
				AccessToken: stored, TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour).UnixMilli(),
			}}); err != nil {
				t.Fatal(err)
			}
			servers[alias] = entry
			targets[alias] = target{srv, sameOrigin, secrets}
		}
	}
	m, _ := startedWith(t, Config{Servers: servers, TokenFile: file})
	for _, st := range m.Servers() {
		tg := targets[st.Name]
		if st.State != StateReady || st.Tools != 2 {
			t.Errorf("%s: %+v, want it ready with its tools", st.Name, st)
			continue
		}
		reached := tg.srv.Server.Headers()
		if len(reached) == 0 || len(tg.srv.Front.Headers()) < len(reached) {
			t.Errorf("%s: %d requests reached the server, %d its front", st.Name, len(reached), len(tg.srv.Front.Headers()))
			continue
		}
		for _, secret := range tg.secrets {
			if got := tg.srv.Front.Carried(secret); len(got) != len(tg.srv.Front.Headers()) {
				t.Errorf("%s: %d of %d requests to the configured URL carried %q", st.Name, len(got), len(tg.srv.Front.Headers()), secret)
			}
			got := tg.srv.Server.Carried(secret)
			switch {
			case tg.sameOrigin && len(got) != len(reached):
				t.Errorf("%s: redirected within the origin, %d of %d requests carried %q", st.Name, len(got), len(reached), secret)
			case !tg.sameOrigin && len(got) > 0:
				t.Errorf("%s: another origin received %v", st.Name, got)
			}
		}
	}
}

// An SSE server whose endpoint event names another origin is refused, as
// Gemini CLI refuses it: nothing is sent there.
func TestSSEEndpointOnAnotherOriginIsRefused(t *testing.T) {
	elsewhere := origintest.Record(nil)
	other := origintest.NewServer(t, elsewhere)
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionid=1\n\n", other.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(sse.Close)
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{
		"elsewhere": {URL: sse.URL, Type: settings.MCPTypeSSE, Headers: map[string]string{"X-Api-Key": "k"}},
	}})
	st := m.Servers()[0]
	if st.State != StateFailed || !strings.Contains(st.Error, "not to its own origin") {
		t.Errorf("status: %+v", st)
	}
	if n := len(elsewhere.Headers()); n != 0 {
		t.Errorf("%d requests went to the other origin", n)
	}
}
