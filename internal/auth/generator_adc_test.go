package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// adc is Vertex AI with Application Default Credentials from a service
// account file, every endpoint on loopback.
type adc struct {
	t         *testing.T
	credsPath string
	key       []byte // PEM
	model     *geminitest.Server
	auth      auth.Auth
}

func newADC(t *testing.T, turns ...geminitest.Turn) *adc {
	dir := t.TempDir()
	a := &adc{t: t, credsPath: filepath.Join(dir, "application_default_credentials.json")}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", a.credsPath)
	// Nothing of this machine's gcloud set-up (client certificates, the
	// well-known credentials file) takes part.
	platformtest.SetHome(t, dir)
	t.Setenv("CLOUDSDK_CONFIG", dir)
	t.Setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "false")
	t.Setenv("GOOGLE_AUTH_TRUST_BOUNDARY_ENABLED", "")
	pk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	a.key = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	a.model = geminitest.NewTestServer(t, turns...)
	a.auth, err = auth.Resolve("", env(map[string]string{
		"GOOGLE_GENAI_USE_VERTEXAI": "true",
		"GOOGLE_CLOUD_PROJECT":      "my-project",
		"GOOGLE_CLOUD_LOCATION":     "us-central1",
		"GOOGLE_VERTEX_BASE_URL":    a.model.URL,
	}))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tokenServer is an OAuth token endpoint that grants token and counts the
// grants.
func (a *adc) tokenServer(token string) (url string, grants *atomic.Int32) {
	grants = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		grants.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600})
	}))
	a.t.Cleanup(srv.Close)
	return srv.URL, grants
}

// writeCredentials writes the service account file, its tokens granted at
// tokenURL.
func (a *adc) writeCredentials(tokenURL string) {
	a.t.Helper()
	f, err := os.OpenFile(a.credsPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		a.t.Fatal(err)
	}
	a.writeCredentialsTo(f, tokenURL)
}

// writeCredentialsTo writes the service account file to f and closes it.
func (a *adc) writeCredentialsTo(f *os.File, tokenURL string) {
	a.t.Helper()
	creds, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "p",
		"private_key_id": "k1",
		"private_key":    string(a.key),
		"client_email":   "gemini-ls-test@p.iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      tokenURL,
	})
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := f.Write(creds); err != nil {
		a.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		a.t.Fatal(err)
	}
}

// The credentials are read when the first request goes out, not when the
// generator is made (a front end makes it while answering initialize).
func TestGeneratorReadsCredentialsAtFirstRequest(t *testing.T) {
	a := newADC(t, geminitest.TextTurn("hi"))
	staleURL, staleGrants := a.tokenServer("stale-token")
	freshURL, _ := a.tokenServer("fresh-token")
	a.writeCredentials(staleURL)
	gen := auth.NewGenerator(a.auth)
	a.writeCredentials(freshURL) // e.g. `gcloud auth application-default login` after the server started

	resp, err := gen.GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("GenerateContent = %v, %v", resp, err)
	}
	if got := a.model.Requests()[0].Header.Get("Authorization"); got != "Bearer fresh-token" {
		t.Errorf("Authorization = %q, want the token of the credentials present at the first request", got)
	}
	if n := staleGrants.Load(); n != 0 {
		t.Errorf("the credentials replaced before the first request were used %d times", n)
	}
}

// A failed credential lookup is the request's error, and the next request
// looks again.
func TestGeneratorRetriesCredentialLookup(t *testing.T) {
	a := newADC(t, geminitest.TextTurn("hi"))
	gen := auth.NewGenerator(a.auth)

	_, err := gen.GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "creating vertex-ai client: ") || !strings.Contains(err.Error(), a.credsPath) {
		t.Fatalf("error without credentials = %v, want one naming the credentials file", err)
	}
	var streamErr error
	for _, err := range gen.GenerateContentStream(context.Background(), "gemini-x", genai.Text("hello"), nil) {
		streamErr = err
	}
	if streamErr == nil || !strings.Contains(streamErr.Error(), a.credsPath) {
		t.Fatalf("stream error without credentials = %v", streamErr)
	}
	if n := len(a.model.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model without credentials", n)
	}

	tokenURL, grants := a.tokenServer("adc-token")
	a.writeCredentials(tokenURL)
	var text strings.Builder
	for resp, err := range gen.GenerateContentStream(context.Background(), "gemini-x", genai.Text("hello"), nil) {
		if err != nil {
			t.Fatalf("stream once the credentials exist: %v", err)
		}
		text.WriteString(resp.Text())
	}
	if text.String() != "hi" {
		t.Errorf("streamed %q, want hi", text.String())
	}
	if got := a.model.Requests()[0].Header.Get("Authorization"); got != "Bearer adc-token" || grants.Load() != 1 {
		t.Errorf("Authorization = %q after %d grants", got, grants.Load())
	}
}
