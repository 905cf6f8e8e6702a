package codeassist_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// A refreshed token is written back only once the file's lock, held by
// another writer, is released, with the fields the file holds kept.
func TestLoginRefreshWaitsForTheLock(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{})
	path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1, "other": "x"})
	login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL(), Warn: func(err error) { t.Error(err) }})
	locktest.Waits(t, path, func(ctx context.Context) error {
		_, err := login.Token(ctx)
		return err
	})
	data, _ := os.ReadFile(path)
	if file := decode(t, data); file["access_token"] != "granted-1" || file["other"] != "x" {
		t.Errorf("after the wait the file is %s", data)
	}
}

// A refresh whose write-back cannot have the lock still serves its
// token, and warns, naming the file and saying nothing was changed.
func TestLoginRefreshNotWrittenUnderAnothersLock(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{})
	path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1})
	var warned error
	login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL(), Warn: func(err error) { warned = err }})
	locktest.Refused(t, path, func(ctx context.Context) error {
		if tok, err := login.Token(ctx); err != nil || tok != "granted-1" {
			t.Errorf("the token = %q, %v; want the refreshed one all the same", tok, err)
		}
		return warned
	})
}

// A new sign-in and a sign-out wait for the file's lock, and give up,
// the file unchanged, on one never released.
func TestSaveAndRemoveLoginHonourTheLock(t *testing.T) {
	path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh"})
	tok := &oauth2.Token{AccessToken: "new", RefreshToken: "r2", Expiry: time.Now().Add(time.Hour)}
	save := func(ctx context.Context) error { return codeassist.SaveLogin(ctx, path, tok) }
	locktest.Waits(t, path, save)
	if data, _ := os.ReadFile(path); decode(t, data)["access_token"] != "new" {
		t.Errorf("after the wait the file is %s", data)
	}
	locktest.Refused(t, path, save)
	unlock(t, path)

	remove := func(ctx context.Context) error {
		_, err := codeassist.RemoveLogin(ctx, path)
		return err
	}
	locktest.Refused(t, path, remove)
	unlock(t, path)
	locktest.Waits(t, path, remove)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the login is still there after the sign-out: %v", err)
	}
}

// A sign-in or a sign-out made while a token is being refreshed is kept:
// the refreshed token of the login it replaced is not written over it.
func TestLoginRefreshKeepsASignInOrOutMadeMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name      string
		meanwhile func(path string) error
		want      string // the file's access token after; "" for no file
	}{
		{"sign-in", func(path string) error {
			return codeassist.SaveLogin(context.Background(), path, &oauth2.Token{AccessToken: "second", RefreshToken: "r2", Expiry: time.Now().Add(time.Hour)})
		}, "second"},
		{"sign-out", func(path string) error {
			_, err := codeassist.RemoveLogin(context.Background(), path)
			return err
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1})
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := tc.meanwhile(path); err != nil {
					t.Error(err)
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"access_token": "refreshed", "token_type": "Bearer", "expires_in": 3600}`))
			}))
			defer endpoint.Close()
			login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: endpoint.URL, Warn: func(err error) { t.Error(err) }})
			if tok, err := login.Token(t.Context()); err != nil || tok != "refreshed" {
				t.Fatalf("the token = %q, %v", tok, err)
			}
			switch data, err := os.ReadFile(path); {
			case err == nil:
				if got := decode(t, data)["access_token"]; got != tc.want {
					t.Errorf("the file holds %q, want %q: %s", got, tc.want, data)
				}
			case tc.want != "" || !errors.Is(err, fs.ErrNotExist):
				t.Errorf("the file: %v, want it to hold %q", err, tc.want)
			}
			// The next call uses the file's login, not the refreshed token.
			tok, err := login.Token(t.Context())
			if tc.want == "" && err == nil || tc.want != "" && tok != tc.want {
				t.Errorf("the next token = %q, %v; want the file's", tok, err)
			}
		})
	}
}

// unlock removes the lock directory locktest.Refused leaves behind.
func unlock(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path + ".lock"); err != nil {
		t.Fatal(err)
	}
}
