// Package logintest fakes Google's OAuth authorization server on a
// loopback port, for tests of the sign-in (package internal/auth/login) without a
// network, and plays the user's browser.
//
// The authorization endpoint signs the user in at once: it redirects the
// browser to the redirect URI with a code and the state it was given. The
// token endpoint redeems a code once, for Gemini CLI's client, with the
// redirect URI it was issued for and the PKCE verifier whose S256
// challenge came with it; the user-info endpoint answers the address for
// the access token it granted.
//
//	srv := logintest.NewTestServer(t, logintest.Options{AccessToken: "t", Email: "me@example.com"})
//	cfg := login.Config{UserDir: dir, Endpoints: srv.Endpoints()}
//	res, err := cfg.Browser(ctx, func(u string) { go logintest.Browse(ctx, u) })
package logintest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
)

// Gemini CLI's OAuth client id; the fake refuses others.
const geminiCLIClientID = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"

// Options configure the fake.
type Options struct {
	// AccessToken and RefreshToken are granted for a code; "access" and
	// "refresh" when empty.
	AccessToken  string
	RefreshToken string
	// Email is the account's address; "me@example.com" when empty.
	Email string
	// Deny makes the authorization endpoint answer error=access_denied,
	// as when the user declines.
	Deny bool
}

// Authorization is one request the authorization endpoint received.
type Authorization struct {
	Query url.Values
}

// Server is the fake.
type Server struct {
	URL  string
	opts Options

	mu        sync.Mutex
	issued    map[string]grantable // code → what redeems it
	authorize []Authorization
	exchanges int
}

type grantable struct {
	redirectURI string
	challenge   string
}

// NewTestServer starts a fake closed when t ends.
func NewTestServer(t testing.TB, opts Options) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting the fake OAuth server: %v", err)
	}
	if opts.AccessToken == "" {
		opts.AccessToken = "access"
	}
	if opts.RefreshToken == "" {
		opts.RefreshToken = "refresh"
	}
	if opts.Email == "" {
		opts.Email = "me@example.com"
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, issued: map[string]grantable{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth", s.authorizeHandler)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /userinfo", s.userinfo)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Endpoints are the fake's, for login.Config.
func (s *Server) Endpoints() login.Endpoints {
	return login.Endpoints{AuthURL: s.URL + "/auth", TokenURL: s.URL + "/token", UserInfoURL: s.URL + "/userinfo"}
}

// Authorizations returns the authorization requests received so far.
func (s *Server) Authorizations() []Authorization {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Authorization(nil), s.authorize...)
}

// Exchanges is how many codes were redeemed.
func (s *Server) Exchanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exchanges
}

// Code issues a code as the manual flow's page would show it, for an
// authorization URL the user opened elsewhere: the URL's redirect URI
// and challenge redeem it.
func (s *Server) Code(authURL string) (string, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", err
	}
	return s.issue(u.Query())
}

func (s *Server) issue(q url.Values) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authorize = append(s.authorize, Authorization{Query: q})
	switch {
	case q.Get("client_id") != geminiCLIClientID:
		return "", fmt.Errorf("client_id %q is not Gemini CLI's", q.Get("client_id"))
	case q.Get("response_type") != "code":
		return "", fmt.Errorf("response_type %q", q.Get("response_type"))
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		return "", fmt.Errorf("no S256 code challenge")
	case q.Get("redirect_uri") == "":
		return "", fmt.Errorf("no redirect_uri")
	}
	code := fmt.Sprintf("code-%d", len(s.authorize))
	s.issued[code] = grantable{redirectURI: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
	return code, nil
}

func (s *Server) authorizeHandler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	code, err := s.issue(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	back := url.Values{"state": {q.Get("state")}}
	if s.opts.Deny {
		back.Set("error", "access_denied")
		back.Set("error_description", "The user declined.")
	} else {
		back.Set("code", code)
	}
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	if f.Get("client_id") != geminiCLIClientID || f.Get("client_secret") == "" {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if f.Get("grant_type") != "authorization_code" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	s.mu.Lock()
	g, ok := s.issued[f.Get("code")]
	delete(s.issued, f.Get("code")) // a code redeems once
	s.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case !ok:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Malformed auth code."})
		return
	case g.redirectURI != f.Get("redirect_uri"):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "redirect_uri_mismatch"})
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Invalid code verifier."})
		return
	}
	s.mu.Lock()
	s.exchanges++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": s.opts.AccessToken, "expires_in": 3599, "refresh_token": s.opts.RefreshToken,
		"scope":      "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile openid",
		"token_type": "Bearer", "id_token": "id-token",
	})
}

func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.opts.AccessToken {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "status": "UNAUTHENTICATED"}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "1", "email": s.opts.Email, "verified_email": true})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// isLoopback reports whether u's host is this machine.
func isLoopback(u *url.URL) bool {
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
