package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// vertexADC is the user's own Vertex AI set-up: Application Default
// Credentials from a service account whose tokens a loopback server
// grants, and an HTTPS proxy on loopback that records the host of each
// CONNECT and refuses it, so where a request would have gone is seen and
// nothing leaves the machine.
type vertexADC struct {
	env     []string
	grants  *atomic.Int32
	mu      sync.Mutex
	targets []string
}

func newVertexADC(t *testing.T) *vertexADC {
	t.Helper()
	v := &vertexADC{grants: &atomic.Int32{}}
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.grants.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "adc-token", "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(tokens.Close)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		v.targets = append(v.targets, r.Method+" "+r.Host)
		v.mu.Unlock()
		http.Error(w, "refused by the test proxy", http.StatusForbidden)
	}))
	t.Cleanup(proxy.Close)

	pk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "my-project",
		"private_key_id": "k1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "gemini-ls-test@my-project.iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      tokens.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	credsPath := filepath.Join(home, "adc.json")
	if err := os.WriteFile(credsPath, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	v.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CACHE_HOME=" + t.TempDir(),
		"CLOUDSDK_CONFIG=" + home,
		pinnedModel,
		"GOOGLE_API_USE_CLIENT_CERTIFICATE=false",
		"GOOGLE_GENAI_USE_VERTEXAI=true",
		"GOOGLE_APPLICATION_CREDENTIALS=" + credsPath,
		"HTTPS_PROXY=" + proxy.URL,
	}
	return v
}

func (v *vertexADC) seen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.targets)
}

// A cloned repository's .env may set GOOGLE_CLOUD_PROJECT and
// GOOGLE_CLOUD_LOCATION (as in Gemini CLI; an editor's reads them even
// from a folder nobody trusted, a headless run needs it trusted), and
// attacker.example/x passes the character filter its values go through.
// gemini-ls refuses a location that is not a region name before any token
// is minted, so the user's Vertex AI bearer token goes nowhere; a region's
// location sends it only to that region's host.
func TestRunDotenvCannotRedirectVertexToken(t *testing.T) {
	for _, tc := range []struct {
		location string
		want     string // the CONNECT target; "" when gemini-ls must refuse
	}{
		{"us-central1", "CONNECT us-central1-aiplatform.googleapis.com:443"},
		{"attacker.example/x", ""},
	} {
		t.Run(tc.location, func(t *testing.T) {
			v := newVertexADC(t)
			h := newHeadless(t, map[string]string{
				".env": "GOOGLE_CLOUD_PROJECT=my-project\nGOOGLE_CLOUD_LOCATION=" + tc.location + "\n",
			})
			for _, kv := range v.env {
				if home, ok := strings.CutPrefix(kv, "HOME="); ok {
					trustFolder(t, home, h.root)
				}
			}
			r := h.runIn(h.root, v.env, "run", "-p", "hi")
			if tc.want == "" {
				r.wantExit(t, exitAuth)
			} else {
				r.wantExit(t, exitError)
			}
			seen := v.seen()
			if tc.want == "" {
				const msg = "GOOGLE_CLOUD_LOCATION is not a Google Cloud region name."
				if !strings.HasPrefix(r.stderr, msg) || strings.Contains(r.stderr, "attacker") {
					t.Errorf("stderr = %q, want it to start %q and not to echo the value", r.stderr, msg)
				}
				if len(seen) != 0 || v.grants.Load() != 0 {
					t.Errorf("the bearer token (%d minted) would have gone to %q", v.grants.Load(), seen)
				}
				return
			}
			if len(seen) == 0 || v.grants.Load() == 0 {
				t.Fatalf("no request reached the proxy (%d tokens); stderr:\n%s", v.grants.Load(), r.stderr)
			}
			for _, s := range seen {
				if s != tc.want {
					t.Errorf("proxy saw %q, want only %q", seen, tc.want)
					break
				}
			}
		})
	}
}
