package mcp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// googleADC is Application Default Credentials from a service account
// file whose token endpoint grants token, on loopback.
type googleADC struct {
	mu     sync.Mutex
	scopes []string // asked for, one entry per grant
}

// newGoogleADC sets GOOGLE_APPLICATION_CREDENTIALS for the test; tokenURL,
// when not "", is where the file says tokens are granted instead of the
// fake's own endpoint.
func newGoogleADC(t *testing.T, token, tokenURL string) *googleADC {
	g := &googleADC{}
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		// The service account's signed assertion names the scopes.
		parts := strings.Split(r.PostForm.Get("assertion"), ".")
		if len(parts) == 3 {
			var claims struct {
				Scope string `json:"scope"`
			}
			if b, err := decodeSegment(parts[1]); err == nil && json.Unmarshal(b, &claims) == nil {
				g.mu.Lock()
				g.scopes = append(g.scopes, claims.Scope)
				g.mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(tokens.Close)
	if tokenURL == "" {
		tokenURL = tokens.URL
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	creds, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "gemini-ls-test@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURL,
	})
	file := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(file, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)
	return g
}

// Scopes are the scopes asked for, one entry per token granted.
func (g *googleADC) Scopes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.scopes)
}

// withGoogle is the server entry s authenticating with the ADC.
func withGoogle(s settings.MCPServer) settings.MCPServer {
	s.AuthProviderType = settings.MCPAuthGoogleCredentials
	s.OAuth = &settings.MCPOAuth{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}}
	return s
}

// googleServer serves handler over TLS as host (https://host), which
// names no real server: the Config it returns reaches it whatever the
// name, and trusts its certificate.
func googleServer(t *testing.T, host string, handler http.Handler) (Config, string) {
	t.Helper()
	srv := httptest.NewTLSServer(handler)
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	addr := srv.Listener.Addr().String()
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
		// httptest's certificate is example.com's.
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "example.com"},
	}
	t.Cleanup(transport.CloseIdleConnections)
	return Config{Transport: transport}, "https://" + host + "/mcp"
}

// With authProviderType "google_credentials", every request carries the
// Application Default Credentials' token, granted for the oauth block's
// scopes, to a Google host over https.
func TestGoogleCredentialsSendTheADCToken(t *testing.T) {
	adc := newGoogleADC(t, "adc-token", "")
	var mu sync.Mutex
	server := sdk.NewServer(&sdk.Implementation{Name: "google", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	})
	// Served on loopback as a Google host, which the SDK would take for
	// DNS rebinding.
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{DisableLocalhostProtection: true})
	var unauthorized int
	cfg, endpoint := googleServer(t, "us-central1-mcp.googleapis.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer adc-token" {
			mu.Lock()
			unauthorized++
			mu.Unlock()
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	cfg.Servers = map[string]settings.MCPServer{"google": withGoogle(settings.MCPServer{HTTPURL: endpoint})}
	m, logs := startedWith(t, cfg)
	if w := warnings(logs); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if got := run(t, find(t, m, "mcp_google_whoami"), nil); got.Output != "ok" {
		t.Errorf("whoami = %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if scopes := adc.Scopes(); unauthorized != 0 || len(scopes) == 0 || scopes[0] != "https://www.googleapis.com/auth/cloud-platform" {
		t.Errorf("%d requests without the token; scopes asked %q", unauthorized, scopes)
	}
}

// The hosts the token may go to are 0.61's: a subdomain of googleapis.com,
// luci.app and its subdomains; nothing else, whatever it ends or starts
// with.
func TestGoogleHosts(t *testing.T) {
	for host, ok := range map[string]bool{
		"mcp.googleapis.com":            true,
		"us-central1-x.googleapis.com":  true,
		"a.b.googleapis.com":            true,
		"BigQuery.GoogleAPIs.COM":       true,
		"luci.app":                      true,
		"ci.chromium.luci.app":          true,
		"googleapis.com":                false,
		"evilgoogleapis.com":            false,
		"x.googleapis.com.evil.example": false,
		"x.googleapis.com.":             false,
		"googleapis.com.evil.example":   false,
		"evilluci.app":                  false,
		"luci.app.evil.example":         false,
		"run.app":                       false,
		"my-service.run.app":            false,
		"127.0.0.1":                     false,
		"169.254.169.254":               false,
		"metadata.google.internal":      false,
		"localhost":                     false,
		"":                              false,
	} {
		if got := googleHost(host); got != ok {
			t.Errorf("googleHost(%q) = %v, want %v", host, got, ok)
		}
	}
}

// The user's Google credentials never leave for another host than
// Google's, nor over plain http: the server is refused before any
// request, with a sentence naming the host and why, and no request
// carries an Authorization header.
func TestGoogleCredentialsGoNowhereElse(t *testing.T) {
	newGoogleADC(t, "adc-token", "")
	seen := origintest.Record(nil)
	plain := httptest.NewServer(seen)
	t.Cleanup(plain.Close)
	refusedTLS, foreign := googleServer(t, "mcp.example.com", seen)
	_, plainGoogle := googleServer(t, "mcp.googleapis.com", seen)
	plainGoogle = "http" + strings.TrimPrefix(plainGoogle, "https")
	for name, tc := range map[string]struct {
		cfg  Config
		url  string
		want []string
	}{
		"plain http on loopback":     {url: plain.URL + "/mcp", want: []string{`"127.0.0.1" is not one of them`, "*.googleapis.com", "no token was sent"}},
		"another host over https":    {cfg: refusedTLS, url: foreign, want: []string{`"mcp.example.com" is not one of them`}},
		"a Google host, plain http":  {cfg: refusedTLS, url: plainGoogle, want: []string{"only over https", "http://mcp.googleapis.com:80 is http"}},
		"another host, sse, no type": {url: "http://attacker.example/sse", want: []string{`"attacker.example" is not one of them`}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Servers = map[string]settings.MCPServer{"google": withGoogle(settings.MCPServer{URL: tc.url})}
			m, _ := startedWith(t, cfg)
			st := m.Servers()[0]
			if st.State != StateFailed {
				t.Errorf("state %v, want failed", st.State)
			}
			for _, w := range tc.want {
				if !strings.Contains(st.Error, w) {
					t.Errorf("status error %q does not say %q", st.Error, w)
				}
			}
		})
	}
	for _, h := range seen.Headers() {
		if auth := h.Get("Authorization"); auth != "" {
			t.Errorf("a request carried Authorization %q", auth)
		}
	}
	if n := len(seen.Headers()); n != 0 {
		t.Errorf("%d requests reached a refused server", n)
	}
}

func decodeSegment(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

// A token endpoint that redirects to another origin gets no token request
// there: the signed assertion in its body stays home, and the server,
// without a token, is reported failed.
func TestGoogleTokenRequestDoesNotFollowARedirectElsewhere(t *testing.T) {
	elsewhere := origintest.Record(nil)
	other := origintest.NewServer(t, elsewhere)
	redirect := httptest.NewServer(origintest.Redirect(http.StatusTemporaryRedirect, other.URL))
	t.Cleanup(redirect.Close)
	newGoogleADC(t, "adc-token", redirect.URL+"/token")
	cfg, endpoint := googleServer(t, "mcp.googleapis.com", http.NotFoundHandler())
	cfg.Servers = map[string]settings.MCPServer{"google": withGoogle(settings.MCPServer{HTTPURL: endpoint})}
	m, _ := startedWith(t, cfg)
	if st := m.Servers()[0]; st.State != StateFailed || !strings.Contains(st.Error, "another origin") {
		t.Errorf("status: %+v", st)
	}
	if n := len(elsewhere.Headers()); n != 0 {
		t.Errorf("%d token requests reached the other origin", n)
	}
}
