package login_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/auth/login/logintest"
	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
)

// The sign-in's requests keep their credentials to their origin: the
// account's address is read without the new token from wherever the
// user-info endpoint redirects (here the same host's other port, where
// Go's own rule keeps an Authorization header), and the code is not
// redeemed where the token endpoint redirects the form with it.
func TestSignInCredentialsDoNotFollowARedirectElsewhere(t *testing.T) {
	ctx := testContext(t)
	srv := logintest.NewTestServer(t, logintest.Options{AccessToken: "the-new-token"})
	elsewhere := origintest.Record(nil)
	other := httptest.NewServer(elsewhere)
	t.Cleanup(other.Close)
	moved := func(code int) string {
		r := httptest.NewServer(origintest.Redirect(code, other.URL))
		t.Cleanup(r.Close)
		return r.URL
	}

	endpoints := srv.Endpoints()
	endpoints.UserInfoURL = moved(http.StatusFound) + "/userinfo"
	m, err := login.Config{UserDir: t.TempDir(), Endpoints: endpoints}.Manual()
	if err != nil {
		t.Fatal(err)
	}
	code, err := srv.Code(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Finish(ctx, code)
	if err != nil || res.Warning == "" {
		t.Fatalf("Finish: %+v, %v; want signed in, the address unread", res, err)
	}
	if n, carried := len(elsewhere.Headers()), elsewhere.Carried("the-new-token"); n != 1 || len(carried) > 0 {
		t.Errorf("the user-info redirect: %d requests, carrying %v", n, carried)
	}

	endpoints = srv.Endpoints()
	endpoints.TokenURL = moved(http.StatusTemporaryRedirect) + "/token"
	m, err = login.Config{UserDir: t.TempDir(), Endpoints: endpoints}.Manual()
	if err != nil {
		t.Fatal(err)
	}
	if code, err = srv.Code(m.URL); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Finish(ctx, code); !errors.Is(err, origin.ErrBodyElsewhere) {
		t.Errorf("Finish: %v, want the token request's redirect refused", err)
	}
	if n := len(elsewhere.Headers()); n != 1 {
		t.Errorf("%d requests reached the other origin, want only the user-info one", n)
	}
}
