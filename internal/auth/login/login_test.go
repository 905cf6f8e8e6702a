package login_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/auth/login/logintest"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
)

// hangGuard bounds a test that waits for the sign-in; the sign-ins here
// end in milliseconds.
const hangGuard = 30 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

// browseAsync plays the browser on the URL the flow gives, and hands back
// where it ended up.
func browseAsync(ctx context.Context, visits chan<- logintest.Visit) func(string) {
	return func(u string) {
		go func() {
			v, err := logintest.Browse(ctx, u)
			if err != nil {
				v.Body = err.Error()
			}
			visits <- v
		}()
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// The loopback sign-in: the authorization request is Gemini CLI's (its
// client, scopes, offline access, a 127.0.0.1 redirect URI, PKCE S256 and
// a state), the browser comes back with the code, the code is redeemed
// with its verifier, the login is written as Gemini CLI writes it (0600)
// and the account recorded, and the browser is sent to the success page.
func TestBrowserSignIn(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{AccessToken: "signed-in", RefreshToken: "r1", Email: "ada@example.com"})
	home := t.TempDir()
	userDir := filepath.Join(home, ".gemini") // not there yet: the sign-in makes it
	cfg := login.Config{UserDir: userDir, Endpoints: srv.Endpoints()}
	visits := make(chan logintest.Visit, 1)
	res, err := cfg.Browser(ctx, browseAsync(ctx, visits))
	if err != nil {
		t.Fatalf("Browser: %v", err)
	}
	if res.Email != "ada@example.com" || res.CredsPath != filepath.Join(userDir, "oauth_creds.json") || res.Warning != "" {
		t.Errorf("result = %+v", res)
	}
	if v := <-visits; v.Location != login.SuccessURL {
		t.Errorf("the browser ended at %+v, want the success page", v)
	}

	auths := srv.Authorizations()
	if len(auths) != 1 {
		t.Fatalf("%d authorization requests", len(auths))
	}
	q := auths[0].Query
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme != "http" || redirect.Hostname() != "127.0.0.1" || redirect.Path != "/oauth2callback" {
		t.Errorf("redirect_uri = %q", q.Get("redirect_uri"))
	}
	if q.Get("access_type") != "offline" || q.Get("scope") != strings.Join(codeassist.OAuthScopes, " ") ||
		q.Get("code_challenge_method") != "S256" || len(q.Get("state")) != 64 {
		t.Errorf("authorization query = %v", q)
	}
	if srv.Exchanges() != 1 {
		t.Errorf("%d codes redeemed", srv.Exchanges())
	}

	info, err := os.Stat(res.CredsPath)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("credentials mode = %v, want 0600", info.Mode().Perm())
	}
	creds := readJSON(t, res.CredsPath)
	if creds["access_token"] != "signed-in" || creds["refresh_token"] != "r1" || creds["token_type"] != "Bearer" ||
		creds["id_token"] != "id-token" || !strings.Contains(creds["scope"].(string), "cloud-platform") {
		t.Errorf("credentials = %v", creds)
	}
	if exp, ok := creds["expiry_date"].(float64); !ok || time.UnixMilli(int64(exp)).Before(time.Now()) {
		t.Errorf("expiry_date = %v, want milliseconds in the future", creds["expiry_date"])
	}
	accounts := readJSON(t, filepath.Join(userDir, "google_accounts.json"))
	if accounts["active"] != "ada@example.com" || len(accounts["old"].([]any)) != 0 {
		t.Errorf("google_accounts.json = %v", accounts)
	}
	// The file is a login the Code Assist backend uses as it is.
	tok, err := codeassist.NewLogin(codeassist.LoginConfig{Path: res.CredsPath}).Token(ctx)
	if err != nil || tok != "signed-in" {
		t.Errorf("the cached login gives %q, %v", tok, err)
	}
}

// An answer with another state than the one sent ends the sign-in with
// Gemini CLI's error, redeems nothing and leaves the login there was.
func TestBrowserRefusesAWrongState(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{})
	userDir := t.TempDir()
	before := `{"access_token": "old", "refresh_token": "old-refresh"}`
	credsPath := filepath.Join(userDir, "oauth_creds.json")
	if err := os.WriteFile(credsPath, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := login.Config{UserDir: userDir, Endpoints: srv.Endpoints()}
	visits := make(chan logintest.Visit, 1)
	_, err := cfg.Browser(ctx, func(authURL string) {
		u, _ := url.Parse(authURL)
		forged := logintest.WithParams(u.Query().Get("redirect_uri"), url.Values{"code": {"stolen"}, "state": {"not-the-state"}})
		browseAsync(ctx, visits)(forged)
	})
	if !errors.Is(err, login.ErrStateMismatch) {
		t.Fatalf("err = %v, want the state mismatch", err)
	}
	if v := <-visits; v.Status != http.StatusBadRequest || !strings.Contains(v.Body, "State mismatch") {
		t.Errorf("the browser was shown %+v", v)
	}
	if srv.Exchanges() != 0 {
		t.Error("a code was redeemed")
	}
	if data, _ := os.ReadFile(credsPath); string(data) != before {
		t.Errorf("the login was changed: %s", data)
	}
}

// A sign-in nobody finishes ends after its timeout with Gemini CLI's
// words, and its loopback port is closed.
func TestBrowserTimesOut(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{})
	cfg := login.Config{UserDir: t.TempDir(), Endpoints: srv.Endpoints(), Timeout: 50 * time.Millisecond}
	var redirect string
	_, err := cfg.Browser(ctx, func(authURL string) {
		u, _ := url.Parse(authURL)
		redirect = u.Query().Get("redirect_uri")
	})
	if err == nil || !strings.Contains(err.Error(), "Authentication timed out after 50ms") || !strings.Contains(err.Error(), "NO_BROWSER=true") {
		t.Fatalf("err = %v, want the timeout", err)
	}
	u, _ := url.Parse(redirect)
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("the loopback server still listens on %s", u.Host)
	}
}

// The caller's cancel ends the wait.
func TestBrowserCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	srv := logintest.NewTestServer(t, logintest.Options{})
	cfg := login.Config{UserDir: t.TempDir(), Endpoints: srv.Endpoints()}
	_, err := cfg.Browser(ctx, func(string) { cancel() })
	if err == nil || !strings.Contains(err.Error(), "cancelled") || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

// A user who declines is sent to the failure page, and the error is
// Google's.
func TestBrowserDeclined(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{Deny: true})
	userDir := t.TempDir()
	cfg := login.Config{UserDir: userDir, Endpoints: srv.Endpoints()}
	visits := make(chan logintest.Visit, 1)
	_, err := cfg.Browser(ctx, browseAsync(ctx, visits))
	if err == nil || err.Error() != "Google OAuth error: access_denied. The user declined." {
		t.Fatalf("err = %v", err)
	}
	if v := <-visits; v.Location != login.FailureURL {
		t.Errorf("the browser ended at %+v", v)
	}
	if _, err := os.Stat(filepath.Join(userDir, "oauth_creds.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a login was written: %v", err)
	}
}

// A request to another path of the loopback server (a favicon) is not the
// answer and does not end the sign-in.
func TestBrowserIgnoresOtherPaths(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{})
	cfg := login.Config{UserDir: t.TempDir(), Endpoints: srv.Endpoints()}
	visits := make(chan logintest.Visit, 1)
	_, err := cfg.Browser(ctx, func(authURL string) {
		u, _ := url.Parse(authURL)
		favicon := strings.Replace(u.Query().Get("redirect_uri"), "/oauth2callback", "/favicon.ico", 1)
		if v, err := logintest.Browse(ctx, favicon); err != nil || v.Status != http.StatusNotFound {
			t.Errorf("favicon: %+v, %v", v, err)
		}
		browseAsync(ctx, visits)(authURL)
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := <-visits; v.Location != login.SuccessURL {
		t.Errorf("the browser ended at %+v", v)
	}
}

// The pasted-code sign-in: Gemini CLI's code page as the redirect URI,
// PKCE, and the code redeemed with its own verifier only.
func TestManualSignIn(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{AccessToken: "pasted"})
	userDir := t.TempDir()
	cfg := login.Config{UserDir: userDir, Endpoints: srv.Endpoints()}
	first, err := cfg.Manual()
	if err != nil {
		t.Fatal(err)
	}
	other, err := cfg.Manual()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(first.URL)
	if u.Query().Get("redirect_uri") != login.ManualRedirectURI || u.Query().Get("code_challenge_method") != "S256" {
		t.Errorf("manual URL = %s", first.URL)
	}
	code, err := srv.Code(first.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Another attempt's verifier does not redeem it.
	if _, err := other.Finish(ctx, code); err == nil || !strings.Contains(err.Error(), "Invalid code verifier") {
		t.Fatalf("redeemed with another verifier: %v", err)
	}
	code, _ = srv.Code(first.URL)
	if _, err := first.Finish(ctx, "  "); err == nil || err.Error() != "Authorization code is required." {
		t.Errorf("empty code: %v", err)
	}
	res, err := first.Finish(ctx, " "+code+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if creds := readJSON(t, res.CredsPath); creds["access_token"] != "pasted" {
		t.Errorf("credentials = %v", creds)
	}
}

// Signing in with another account makes it the active one and keeps the
// one before among the old, as Gemini CLI's google_accounts.json does.
func TestAccountsFileKeepsTheOldAccount(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{Email: "new@example.com"})
	userDir := t.TempDir()
	path := filepath.Join(userDir, "google_accounts.json")
	if err := os.WriteFile(path, []byte(`{"active": "old@example.com", "old": ["new@example.com"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := login.Config{UserDir: userDir, Endpoints: srv.Endpoints()}.Manual()
	if err != nil {
		t.Fatal(err)
	}
	code, _ := srv.Code(m.URL)
	if _, err := m.Finish(ctx, code); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, path)
	if got["active"] != "new@example.com" || len(got["old"].([]any)) != 1 || got["old"].([]any)[0] != "old@example.com" {
		t.Errorf("google_accounts.json = %v", got)
	}
}
