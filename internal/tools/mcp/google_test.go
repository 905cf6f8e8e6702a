package mcp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
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

// With authProviderType "google_credentials", every request carries the
// Application Default Credentials' token, granted for the oauth block's
// scopes.
func TestGoogleCredentialsSendTheADCToken(t *testing.T) {
	adc := newGoogleADC(t, "adc-token", "")
	var mu sync.Mutex
	server := sdk.NewServer(&sdk.Implementation{Name: "google", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	var unauthorized int
	mcpServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer adc-token" {
			mu.Lock()
			unauthorized++
			mu.Unlock()
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(mcpServer.Close)

	m, logs := startedWith(t, Config{Servers: map[string]settings.MCPServer{"google": withGoogle(settings.MCPServer{HTTPURL: mcpServer.URL})}})
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
	mcpServer := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(mcpServer.Close)
	m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"google": withGoogle(settings.MCPServer{HTTPURL: mcpServer.URL})}})
	if st := m.Servers()[0]; st.State != StateFailed || !strings.Contains(st.Error, "another origin") {
		t.Errorf("status: %+v", st)
	}
	if n := len(elsewhere.Headers()); n != 0 {
		t.Errorf("%d token requests reached the other origin", n)
	}
}
