package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// startedWith starts the servers of cfg and waits for them.
func startedWith(t *testing.T, cfg Config) (*Manager, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	cfg.Logger = zap.New(core)
	cfg.Dir = t.TempDir()
	m := Start(cfg)
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatalf("the servers never finished starting: %v", err)
	}
	return m, logs
}

// An SSE server is reached over SSE with its headers, whether its type says
// "sse" or a url without a type falls back to SSE after streamable HTTP.
func TestSSEServers(t *testing.T) {
	sse := mcptest.NewSSE(t)
	m, logs := startedWith(t, Config{Servers: map[string]settings.MCPServer{
		"typed":    {URL: sse.URL, Type: "sse", Headers: map[string]string{"X-Team": "typed"}, IncludeTools: []string{"echo"}},
		"fallback": {URL: sse.URL, Headers: map[string]string{"X-Team": "fallback"}, IncludeTools: []string{"add"}},
		"mistyped": {URL: sse.URL, Type: "websocket"},
	}})
	if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], `server=mistyped error=its "type" is "websocket": it must be "http" (streamable HTTP) or "sse"`) {
		t.Fatalf("warnings: %v, want one about the mistyped server", w)
	}
	if got := run(t, find(t, m, "mcp_typed_echo"), map[string]any{"message": "hi"}); got.Output != "sse echo: hi" {
		t.Errorf("echo = %+v", got)
	}
	if got := run(t, find(t, m, "mcp_fallback_add"), map[string]any{"a": 2, "b": 3}); got.Output != "5" {
		t.Errorf("add = %+v", got)
	}
	teams := map[string]bool{}
	for _, r := range sse.Requests() {
		teams[r.Header.Get("X-Team")] = true
	}
	if !teams["typed"] || !teams["fallback"] {
		t.Errorf("headers seen: %v", teams)
	}
}

// tokenFile reads the Gemini CLI token file.
func tokenFile(t *testing.T, path string) []oauth.Credentials {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var creds []oauth.Credentials
	if err := json.Unmarshal(data, &creds); err != nil {
		t.Fatalf("the token file is not Gemini CLI's shape: %v\n%s", err, data)
	}
	return creds
}

// An OAuth server with "oauth": {"enabled": true} is signed in to at start:
// discovery, registration, the URL shown, the code exchanged; the token is
// stored 0600 in Gemini CLI's shape, reused by the next start without a
// sign-in, and refreshed once expired.
func TestOAuthSignInAtStartStoresReusesAndRefreshes(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	file := filepath.Join(t.TempDir(), ".gemini", oauth.FileName)
	servers := map[string]settings.MCPServer{"secure": {HTTPURL: srv.URL, OAuth: &settings.MCPOAuth{Enabled: true}}}
	shown := make(chan string, 4)
	browse := func(_, authURL string) {
		shown <- authURL
		go func() {
			if err := mcptest.Browse(authURL); err != nil {
				t.Errorf("browsing: %v", err)
			}
		}()
	}
	m, logs := startedWith(t, Config{Servers: servers, TokenFile: file, ShowAuthURL: browse})
	if w := warnings(logs); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if got := run(t, find(t, m, "mcp_secure_echo"), map[string]any{"message": "hi"}); got.Output != "oauth echo: hi" {
		t.Errorf("echo = %+v", got)
	}
	if c := srv.Counts(); c.Registrations != 1 || c.Authorizations != 1 || c.CodeGrants != 1 {
		t.Errorf("counts after the sign-in: %+v", c)
	}
	if len(shown) != 1 {
		t.Errorf("%d URLs shown", len(shown))
	}
	info, err := os.Stat(file)
	// Windows has no file modes: there the file need only be there.
	if err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", info, err)
	}
	creds := tokenFile(t, file)
	if len(creds) != 1 || creds[0].ServerName != "secure" || creds[0].Token.AccessToken == "" || creds[0].Token.RefreshToken == "" ||
		creds[0].ClientID == "" || creds[0].TokenURL != srv.Issuer+"/token" || creds[0].MCPServerURL != srv.URL || creds[0].Token.ExpiresAt == 0 {
		t.Errorf("stored: %+v", creds)
	}
	m.Close()

	// The next start reuses the token.
	m, _ = startedWith(t, Config{Servers: servers, TokenFile: file, ShowAuthURL: browse})
	find(t, m, "mcp_secure_echo")
	if c := srv.Counts(); c.Authorizations != 1 || c.Refreshes != 0 {
		t.Errorf("counts after a restart: %+v", c)
	}
	m.Close()

	// Expired: refreshed, no new sign-in.
	srv.RevokeAccessTokens()
	creds[0].Token.ExpiresAt = time.Now().Add(-time.Minute).UnixMilli()
	data, _ := json.Marshal(creds)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ = startedWith(t, Config{Servers: servers, TokenFile: file, ShowAuthURL: browse})
	if got := run(t, find(t, m, "mcp_secure_add"), map[string]any{"a": 1, "b": 1}); got.Output != "2" {
		t.Errorf("add after the refresh = %+v", got)
	}
	if c := srv.Counts(); c.Authorizations != 1 || c.Refreshes != 1 {
		t.Errorf("counts after the expiry: %+v", c)
	}
	if now := tokenFile(t, file); now[0].Token.AccessToken == creds[0].Token.AccessToken || now[0].Token.ExpiresAt <= time.Now().UnixMilli() {
		t.Errorf("the refreshed token was not stored: %+v", now)
	}
}

// Without "oauth.enabled" a server that answers 401 is reported
// unauthenticated with Gemini CLI's words; Authenticate (/mcp auth) signs
// in and restarts it.
func TestUnauthenticatedUntilAuthenticate(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	file := filepath.Join(t.TempDir(), oauth.FileName)
	browse := func(_, authURL string) { go func() { _ = mcptest.Browse(authURL) }() }
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"secure": {URL: srv.URL, Type: "http"}}, TokenFile: file, ShowAuthURL: browse})
	st := m.Servers()[0]
	if st.State != StateUnauthenticated || !strings.Contains(st.Error, "requires authentication using: /mcp auth secure") {
		t.Fatalf("status: %+v", st)
	}
	if srv.Counts().Authorizations != 0 {
		t.Error("a sign-in started without oauth.enabled")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Authenticate(ctx, "secure"); err != nil {
		t.Fatal(err)
	}
	if st := m.Servers()[0]; st.State != StateReady || st.Tools != 2 {
		t.Errorf("after /mcp auth: %+v", st)
	}
	if got := run(t, find(t, m, "mcp_secure_echo"), map[string]any{"message": "in"}); got.Output != "oauth echo: in" {
		t.Errorf("echo = %+v", got)
	}
}

// A sign-in nobody completes ends at its timeout, the server reported
// unauthenticated, saying so.
func TestSignInNobodyCompletesTimesOut(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	file := filepath.Join(t.TempDir(), oauth.FileName)
	m, _ := startedWith(t, Config{
		Servers:       map[string]settings.MCPServer{"secure": {HTTPURL: srv.URL, OAuth: &settings.MCPOAuth{Enabled: true}}},
		TokenFile:     file,
		ShowAuthURL:   func(string, string) {},
		SignInTimeout: 200 * time.Millisecond,
	})
	st := m.Servers()[0]
	if st.State != StateUnauthenticated || !strings.Contains(st.Error, "not completed in time") {
		t.Errorf("status: %+v", st)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a token file was written: %v", err)
	}
}

// A stored token the server refuses is reported as such, with Gemini CLI's
// words, and no sign-in starts without oauth.enabled.
func TestRejectedStoredToken(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	file := filepath.Join(t.TempDir(), oauth.FileName)
	if err := oauth.NewStore(file).Save(t.Context(), oauth.Credentials{ServerName: "secure", Token: oauth.Token{AccessToken: "stale", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"secure": {HTTPURL: srv.URL}}, TokenFile: file})
	st := m.Servers()[0]
	if st.State != StateUnauthenticated || !strings.Contains(st.Error, "MCP server 'secure' rejected stored OAuth token. Please re-authenticate using: /mcp auth secure") {
		t.Errorf("status: %+v", st)
	}
	if c := srv.Counts(); c.Unauthorized == 0 || c.Authorizations != 0 {
		t.Errorf("counts: %+v, want the stale token refused and no sign-in", c)
	}
}

// A server reached over plain http on another machine gets no stored
// OAuth token, and no sign-in starts for it: it answers 401 and its status
// says why, naming its origin. On loopback the token goes, as in 0.61
// (TestRejectedStoredToken).
func TestNoOAuthTokenOverPlainHTTP(t *testing.T) {
	seen := origintest.Record(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	srv := httptest.NewServer(seen)
	t.Cleanup(srv.Close)
	// mcp.example is reached at srv, over the network as far as gemini-ls
	// can tell.
	transport := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	t.Cleanup(transport.CloseIdleConnections)
	file := filepath.Join(t.TempDir(), oauth.FileName)
	if err := oauth.NewStore(file).Save(t.Context(), oauth.Credentials{ServerName: "plain", Token: oauth.Token{
		AccessToken: "stored-secret", TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour).UnixMilli()}}); err != nil {
		t.Fatal(err)
	}
	var shown []string
	m, _ := startedWith(t, Config{
		Servers:     map[string]settings.MCPServer{"plain": {HTTPURL: "http://mcp.example/mcp", OAuth: &settings.MCPOAuth{Enabled: true}}},
		TokenFile:   file,
		Transport:   transport,
		ShowAuthURL: func(_, u string) { shown = append(shown, u) },
	})
	st := m.Servers()[0]
	if st.State != StateUnauthenticated || !strings.Contains(st.Error, "plain http") || !strings.Contains(st.Error, "http://mcp.example:80") {
		t.Errorf("status: %+v, want it unauthenticated saying why", st)
	}
	if len(seen.Headers()) == 0 {
		t.Fatal("no request reached the server")
	}
	if got := seen.Carried("stored-secret"); len(got) > 0 {
		t.Errorf("the token went over plain http: %v", got)
	}
	if len(shown) > 0 {
		t.Errorf("a sign-in started: %v", shown)
	}
}

// A header the user configured that carries a credential (Authorization,
// an API key) is not sent over plain http to another machine: the server
// fails before any request, naming the header and the origin. Other
// headers, and the same header on loopback (TestStreamableHTTPWithHeaders),
// go as written.
func TestNoConfiguredCredentialHeaderOverPlainHTTP(t *testing.T) {
	seen := origintest.Record(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	srv := httptest.NewServer(seen)
	t.Cleanup(srv.Close)
	// mcp.example is reached at srv, over the network as far as gemini-ls
	// can tell.
	transport := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	t.Cleanup(transport.CloseIdleConnections)
	m, _ := startedWith(t, Config{
		Servers: map[string]settings.MCPServer{
			"bearer": {HTTPURL: "http://mcp.example/mcp", Headers: map[string]string{"X-User": "ada", "authorization": "Bearer header-secret"}},
			"apikey": {URL: "http://10.9.8.7:3000/sse", Type: settings.MCPTypeSSE, Headers: map[string]string{"X-API-Key": "key-secret"}},
		},
		Transport: transport,
	})
	want := map[string]string{
		"bearer": "not sending its configured Authorization header to http://mcp.example:80: a credential sent there over plain http could be read on the way",
		"apikey": "not sending its configured X-Api-Key header to http://10.9.8.7:3000: a credential sent there over plain http could be read on the way",
	}
	for _, st := range m.Servers() {
		if st.State != StateFailed || !strings.Contains(st.Error, want[st.Name]) {
			t.Errorf("%s: %+v, want it failed saying %q", st.Name, st, want[st.Name])
		}
	}
	if got := seen.Headers(); len(got) != 0 {
		t.Errorf("%d requests reached the server: %v", len(got), got)
	}
	for _, secret := range []string{"header-secret", "key-secret"} {
		if got := seen.Carried(secret); len(got) > 0 {
			t.Errorf("%s went over plain http: %v", secret, got)
		}
	}
}
