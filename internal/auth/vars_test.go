package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// connectProxy is an HTTPS proxy on loopback that records the host of each
// CONNECT and refuses it: it shows where a request would have gone, and
// nothing leaves the machine.
func connectProxy(t *testing.T) (proxyURL string, targets func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodConnect {
			seen = append(seen, r.Host)
		} else {
			seen = append(seen, r.Method+" "+r.URL.String())
		}
		mu.Unlock()
		http.Error(w, "refused by the test proxy", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// An untrusted .env may set GOOGLE_CLOUD_LOCATION, and genai makes the
// Vertex AI host of it ({location}-aiplatform.googleapis.com): a location
// that is not a region name would send the bearer token of the user's
// Application Default Credentials to a host of the attacker's choosing.
// Through a refusing HTTPS proxy on loopback the host each request was
// for is seen: a region's own host, or, for a malformed location, no
// request at all (Resolve refuses it, and no token is minted).
func TestVertexTokenGoesOnlyToTheRegionHost(t *testing.T) {
	for _, tc := range []struct {
		location string
		want     string // the one CONNECT target; "" when Resolve must refuse
	}{
		{"us-central1", "us-central1-aiplatform.googleapis.com:443"},
		{"europe-west4", "europe-west4-aiplatform.googleapis.com:443"},
		{"global", "aiplatform.googleapis.com:443"},
		{"eu", "aiplatform.eu.rep.googleapis.com:443"},
		{"attacker.example/x", ""},      // passes the untrusted .env's character filter
		{"attacker.example?", ""},       // from the process environment
		{"attacker.example#", ""},       //
		{"attacker.example:443/x", ""},  //
		{"us-central1.evil.com", ""},    // not a region, though it stays under googleapis.com
		{"user@attacker.example/x", ""}, //
	} {
		t.Run(tc.location, func(t *testing.T) {
			a := newADC(t)
			tokenURL, grants := a.tokenServer("adc-token")
			a.writeCredentials(tokenURL)
			// genai reads this from the process when the config names no
			// base URL; the host must be the one it makes of the location.
			t.Setenv("GOOGLE_VERTEX_BASE_URL", "")
			proxy, targets := connectProxy(t)

			resolved, err := auth.Resolve("", env(map[string]string{
				"GOOGLE_GENAI_USE_VERTEXAI":      "true",
				"GOOGLE_CLOUD_PROJECT":           "my-project",
				"GOOGLE_CLOUD_LOCATION":          tc.location,
				"GOOGLE_APPLICATION_CREDENTIALS": a.credsPath,
				"HTTPS_PROXY":                    proxy,
			}))
			var genErr error
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, genErr = auth.NewGenerator(resolved).GenerateContent(ctx, "gemini-x", genai.Text("hello"), nil)
			}

			if tc.want == "" {
				var authErr *auth.Error
				if !errors.As(err, &authErr) || authErr.Type != auth.VertexAI || !strings.HasPrefix(authErr.Message, "GOOGLE_CLOUD_LOCATION is not a Google Cloud region name.") {
					t.Errorf("Resolve = %v, want an *auth.Error naming GOOGLE_CLOUD_LOCATION", err)
				}
				if got := targets(); len(got) != 0 || grants.Load() != 0 {
					t.Errorf("the bearer token (%d minted) would have gone to %q", grants.Load(), got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if genErr == nil {
				t.Fatal("the request succeeded through a proxy that refuses everything")
			}
			if got := targets(); len(got) != 1 || got[0] != tc.want || grants.Load() != 1 {
				t.Errorf("proxy saw %q after %d tokens, want one CONNECT to %s", got, grants.Load(), tc.want)
			}
		})
	}
}

// The generator holds an Auth not made by Resolve to the same checks
// before it mints a token for the host made of the location.
func TestGeneratorRefusesMalformedVertexLocation(t *testing.T) {
	a := newADC(t)
	tokenURL, grants := a.tokenServer("adc-token")
	a.writeCredentials(tokenURL)
	t.Setenv("GOOGLE_VERTEX_BASE_URL", "")
	proxy, targets := connectProxy(t)
	resolved := resolve(t, "vertex-ai", map[string]string{
		"GOOGLE_CLOUD_PROJECT":           "my-project",
		"GOOGLE_CLOUD_LOCATION":          "us-central1",
		"GOOGLE_APPLICATION_CREDENTIALS": a.credsPath,
		"HTTPS_PROXY":                    proxy,
	})
	resolved.Config.Location = "attacker.example/x"
	gen := auth.NewGenerator(resolved)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := gen.GenerateContent(ctx, "gemini-x", genai.Text("hello"), nil)
	if err == nil || !strings.Contains(err.Error(), "the Vertex AI location is not a Google Cloud region name") {
		t.Errorf("err = %v, want the location refused", err)
	}
	if got := targets(); len(got) != 0 || grants.Load() != 0 {
		t.Errorf("the bearer token (%d minted) would have gone to %q", grants.Load(), got)
	}
}

// Every auth variable that becomes part of an endpoint is held to its
// form, for the auth type that reads it; the message names the variable
// and what it must be, never the value.
func TestResolveRefusesMalformedVariables(t *testing.T) {
	home := t.TempDir()
	writeLogin(t, home, map[string]any{"access_token": "a", "refresh_token": "r", "expiry_date": 1})
	const (
		notRegion  = "GOOGLE_CLOUD_LOCATION is not a Google Cloud region name. Set it to a region such as us-central1 or europe-west4, or to global: lowercase letters, digits and hyphens."
		notProject = " is not a Google Cloud project ID. Set it to your project's ID, such as my-project-123: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen."
	)
	for _, tc := range []struct {
		name     string
		selected string
		vars     map[string]string
		wantType string
		wantErr  string
	}{
		{"vertex location", "", map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "attacker.example/x"},
			auth.VertexAI, notRegion},
		{"vertex location unused by express mode", "vertex-ai", map[string]string{"GOOGLE_API_KEY": "k", "GOOGLE_CLOUD_LOCATION": "a/b"},
			auth.VertexAI, notRegion},
		{"vertex project", "", map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "../../v1/x", "GOOGLE_CLOUD_LOCATION": "us-central1"},
			auth.VertexAI, "GOOGLE_CLOUD_PROJECT" + notProject},
		{"vertex base URL", "vertex-ai", map[string]string{"GOOGLE_API_KEY": "k", "GOOGLE_VERTEX_BASE_URL": "aiplatform.example"},
			auth.VertexAI, "GOOGLE_VERTEX_BASE_URL is not an http or https URL, such as https://example.com/gemini."},
		{"gemini base URL", "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "localhost:8080"},
			auth.GeminiAPIKey, "GOOGLE_GEMINI_BASE_URL is not an http or https URL, such as https://example.com/gemini."},
		{"code assist project", "", map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "HOME": home, "USERPROFILE": home, "GOOGLE_CLOUD_PROJECT": "x@y"},
			auth.OAuthPersonal, "GOOGLE_CLOUD_PROJECT" + notProject},
		{"code assist project id", "cloud-shell", map[string]string{"GOOGLE_CLOUD_PROJECT_ID": "my-project/x"},
			auth.CloudShell, "GOOGLE_CLOUD_PROJECT_ID" + notProject},
		{"code assist endpoint", "cloud-shell", map[string]string{"CODE_ASSIST_ENDPOINT": "cloudcode-pa.example"},
			auth.CloudShell, "CODE_ASSIST_ENDPOINT is not an http or https URL, such as https://example.com/gemini."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := auth.Resolve(tc.selected, env(tc.vars))
			var authErr *auth.Error
			if !errors.As(err, &authErr) || authErr.Type != tc.wantType || authErr.Message != tc.wantErr {
				t.Fatalf("err = %#v, want an *auth.Error of %s: %q", err, tc.wantType, tc.wantErr)
			}
		})
	}
}

// A variable the chosen type does not read is not its concern: the Gemini
// API does not read GOOGLE_CLOUD_LOCATION. An unset one keeps the default.
func TestResolveIgnoresVariablesItDoesNotRead(t *testing.T) {
	a, err := auth.Resolve("", env(map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_CLOUD_LOCATION": "a/b", "GOOGLE_CLOUD_PROJECT": "x"}))
	if err != nil || a.Type != auth.GeminiAPIKey || a.Config.Location != "" || a.Config.Project != "" {
		t.Errorf("Resolve = %+v, %v", a, err)
	}
}

// Status reports a malformed variable as the problem, without its value.
func TestStatusMalformedLocation(t *testing.T) {
	got := auth.Status("vertex-ai", env(map[string]string{"GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "attacker.example/x"}))
	if got.Usable || !strings.HasPrefix(got.Problem, "GOOGLE_CLOUD_LOCATION is not a Google Cloud region name.") || strings.Contains(toJSON(got), "attacker") {
		t.Errorf("status = %s", toJSON(got))
	}
}

// A base URL over plain http to another machine would carry the API key
// or the Google token in the clear: Resolve refuses it at start-up,
// naming the variable and the origin and saying why, as Gemini CLI 0.61
// refuses its two base URLs (docs/reference/configuration.md); http to
// this machine (the fake model the tests run) passes.
func TestResolveRefusesPlainHTTPBaseURLs(t *testing.T) {
	home := t.TempDir()
	writeLogin(t, home, map[string]any{"access_token": "a", "refresh_token": "r", "expiry_date": 1})
	const why = ", over plain http: the credential gemini-ls sends with every request there (the API key or Google token) could be read on the way. Use https, or http only to this machine (localhost, 127.0.0.1, ::1)."
	for _, tc := range []struct {
		name, selected, variable string
		vars                     map[string]string
		wantType                 string
	}{
		{"gemini api", "", "GOOGLE_GEMINI_BASE_URL", map[string]string{"GEMINI_API_KEY": "k"}, auth.GeminiAPIKey},
		{"vertex express", "vertex-ai", "GOOGLE_VERTEX_BASE_URL", map[string]string{"GOOGLE_API_KEY": "k"}, auth.VertexAI},
		{"vertex adc", "vertex-ai", "GOOGLE_VERTEX_BASE_URL", map[string]string{"GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "us-central1"}, auth.VertexAI},
		{"code assist login", "oauth-personal", "CODE_ASSIST_ENDPOINT", map[string]string{"HOME": home, "USERPROFILE": home}, auth.OAuthPersonal},
		{"cloud shell", "cloud-shell", "CODE_ASSIST_ENDPOINT", map[string]string{}, auth.CloudShell},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for value, refused := range map[string]string{
				"http://gemini.example/v1":          "http://gemini.example:80",
				"HTTP://10.0.0.5:8080":              "http://10.0.0.5:8080",
				"http://user:pw@proxy.example:3128": "http://proxy.example:3128",
				"http://localhost.attacker.example": "http://localhost.attacker.example:80",
				"http://localhost:8080":             "",
				"http://127.0.0.1:9/v1":             "",
				"http://[::1]:9":                    "",
				"https://gemini.example/v1":         "",
			} {
				vars := map[string]string{tc.variable: value}
				for k, v := range tc.vars {
					vars[k] = v
				}
				_, err := auth.Resolve(tc.selected, env(vars))
				if refused == "" {
					if err != nil {
						t.Errorf("%s=%s: %v, want it accepted", tc.variable, value, err)
					}
					continue
				}
				want := tc.variable + " names " + refused + why
				var authErr *auth.Error
				if !errors.As(err, &authErr) || authErr.Type != tc.wantType || authErr.Message != want {
					t.Errorf("%s=%s: err = %v, want an *auth.Error of %s: %q", tc.variable, value, err, tc.wantType, want)
				}
			}
		})
	}
}
