package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
)

// Every backend's credential stays with the endpoint's origin: a redirect
// that drops the body (302) is followed to another origin without it, be
// that another host or the same host on another port (where Go's own rule
// would keep an Authorization header); one that would carry the body
// there (307) is refused, nothing sent.
func TestCredentialsDoNotFollowARedirectToAnotherOrigin(t *testing.T) {
	elsewhere := origintest.Record(nil)
	otherHost := origintest.NewServer(t, elsewhere)
	otherPort := httptest.NewServer(elsewhere)
	t.Cleanup(otherPort.Close)

	backends := []struct {
		name, secret string
		auth         func(t *testing.T, endpoint string) auth.Auth
	}{
		{"gemini api", "the-api-key", func(t *testing.T, endpoint string) auth.Auth {
			return resolve(t, "", map[string]string{"GEMINI_API_KEY": "the-api-key", "GOOGLE_GEMINI_BASE_URL": endpoint})
		}},
		{"vertex express", "the-api-key", func(t *testing.T, endpoint string) auth.Auth {
			return resolve(t, "", map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": "the-api-key", "GOOGLE_VERTEX_BASE_URL": endpoint})
		}},
		{"vertex adc", "the-adc-token", func(t *testing.T, endpoint string) auth.Auth {
			a := newADC(t)
			tokenURL, _ := a.tokenServer("the-adc-token")
			a.writeCredentials(tokenURL)
			a.auth.Config.HTTPOptions.BaseURL = endpoint
			return a.auth
		}},
		{"code assist", "the-login-token", func(t *testing.T, endpoint string) auth.Auth {
			home := t.TempDir()
			writeLogin(t, home, map[string]any{"access_token": "the-login-token", "refresh_token": "r", "expiry_date": time.Now().Add(time.Hour).UnixMilli()})
			return resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": endpoint})
		}},
	}
	for _, b := range backends {
		for _, to := range []*httptest.Server{otherHost, otherPort} {
			for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
				t.Run(fmt.Sprintf("%s %d to %s", b.name, code, to.URL), func(t *testing.T) {
					front := origintest.Record(origintest.Redirect(code, to.URL))
					srv := httptest.NewServer(front)
					t.Cleanup(srv.Close)
					before := len(elsewhere.Headers())
					_, err := auth.NewGenerator(b.auth(t, srv.URL)).GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
					if len(front.Carried(b.secret)) == 0 {
						t.Fatalf("the endpoint never received the credential: %v", err)
					}
					reached := elsewhere.Headers()[before:]
					if code == http.StatusTemporaryRedirect {
						if len(reached) != 0 || !strings.Contains(err.Error(), "another origin") {
							t.Errorf("%d requests reached the other origin; error %v, want the redirect refused", len(reached), err)
						}
						return
					}
					if len(reached) == 0 {
						t.Fatalf("the redirect was not followed: %v", err)
					}
					for _, h := range reached {
						for name, values := range h {
							if strings.Contains(strings.Join(values, " "), b.secret) {
								t.Errorf("the other origin received %s: %q", name, values)
							}
						}
					}
				})
			}
		}
	}
}

// A token endpoint that redirects to another origin is not followed: the
// signed assertion of Application Default Credentials, or the Google
// login's refresh token, in the token request's body stays home.
func TestTokenRequestDoesNotFollowARedirectElsewhere(t *testing.T) {
	elsewhere := origintest.Record(nil)
	other := origintest.NewServer(t, elsewhere)
	tokens := httptest.NewServer(origintest.Redirect(http.StatusTemporaryRedirect, other.URL))
	t.Cleanup(tokens.Close)
	for name, backend := range map[string]func(t *testing.T) auth.Auth{
		"adc": func(t *testing.T) auth.Auth {
			a := newADC(t)
			a.writeCredentials(tokens.URL + "/token")
			return a.auth
		},
		"google login": func(t *testing.T) auth.Auth {
			home := t.TempDir()
			writeLogin(t, home, map[string]any{"access_token": "stale", "refresh_token": "the-refresh-token", "expiry_date": 1})
			a := resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": "http://127.0.0.1:1"})
			a.CodeAssist.TokenURL = tokens.URL + "/token"
			return a
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := auth.NewGenerator(backend(t)).GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
			if err == nil || !strings.Contains(err.Error(), "another origin") {
				t.Errorf("GenerateContent: %v, want the token request's redirect refused", err)
			}
			if n := len(elsewhere.Headers()); n != 0 {
				t.Errorf("%d token requests reached the other origin", n)
			}
		})
	}
}
