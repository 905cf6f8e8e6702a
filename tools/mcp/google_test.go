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
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/settings"
)

// With authProviderType "google_credentials", every request carries the
// Application Default Credentials' token, granted for the oauth block's
// scopes.
func TestGoogleCredentialsSendTheADCToken(t *testing.T) {
	var mu sync.Mutex
	var scopes []string
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		// The service account's signed assertion names the scopes.
		parts := strings.Split(r.PostForm.Get("assertion"), ".")
		if len(parts) == 3 {
			var claims struct {
				Scope string `json:"scope"`
			}
			if b, err := decodeSegment(parts[1]); err == nil && json.Unmarshal(b, &claims) == nil {
				mu.Lock()
				scopes = append(scopes, claims.Scope)
				mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "adc-token", "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(tokens.Close)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	creds, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "gemini-ls-test@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokens.URL,
	})
	file := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(file, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", file)

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

	m, logs := startedWith(t, Config{Servers: map[string]settings.MCPServer{"google": {
		HTTPURL: mcpServer.URL, AuthProviderType: settings.MCPAuthGoogleCredentials,
		OAuth: &settings.MCPOAuth{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}},
	}}})
	if w := warnings(logs); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if got := run(t, find(t, m, "whoami"), nil); got.Output != "ok" {
		t.Errorf("whoami = %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if unauthorized != 0 || len(scopes) == 0 || scopes[0] != "https://www.googleapis.com/auth/cloud-platform" {
		t.Errorf("%d requests without the token; scopes asked %q", unauthorized, scopes)
	}
}

func decodeSegment(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
