package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// A save replaces the server's entry, keeps the others byte for byte
// (fields gemini-ls does not know included), keeps a refresh token the new
// token lacks.
func TestStoreKeepsOtherEntriesAndTheRefreshToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	other := `{"serverName":"cli","token":{"accessToken":"x","tokenType":"Bearer"},"futureField":{"kept":true},"updatedAt":1}`
	if err := os.WriteFile(path, []byte("["+other+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewStore(path)
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", Token: Token{AccessToken: "a1", RefreshToken: "r1", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", Token: Token{AccessToken: "a2", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("ls")
	if err != nil || got.Token.AccessToken != "a2" || got.Token.RefreshToken != "r1" || got.UpdatedAt == 0 {
		t.Errorf("Get = %+v, %v", got, err)
	}
	data, _ := os.ReadFile(path)
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) != 2 {
		t.Fatalf("file: %s", data)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, raw[0])
	if compact.String() != other {
		t.Errorf("the other entry became %s", compact.String())
	}
	if err := s.Delete(t.Context(), "ls"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("ls"); got != nil {
		t.Errorf("after Delete: %+v", got)
	}
}

// The tokens' file is the user's alone, 0600, whatever it was.
func TestStoreFileIsPrivate(t *testing.T) {
	platformtest.Unix(t, "file modes")
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := NewStore(path).Save(t.Context(), Credentials{ServerName: "ls", Token: Token{AccessToken: "a1", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("after Save: %v, %v; want mode 0600", info, err)
	}
}

// A refresh the token endpoint refuses deletes the entry and says so,
// without the tokens in the error.
func TestRefusedRefreshDeletesTheEntry(t *testing.T) {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"revoked"}`))
	}))
	defer endpoint.Close()
	s := NewStore(filepath.Join(t.TempDir(), FileName))
	expired := time.Now().Add(time.Minute).UnixMilli() // inside the 5-minute margin
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", ClientID: "c", TokenURL: endpoint.URL,
		Token: Token{AccessToken: "secret-access", RefreshToken: "secret-refresh", ExpiresAt: expired, TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	src := &Source{Server: "ls", Store: s, Client: endpoint.Client()}
	token, err := src.AccessToken(context.Background())
	if token != "" || err == nil || !strings.Contains(err.Error(), "invalid_grant") || strings.Contains(err.Error(), "secret") {
		t.Errorf("AccessToken = %q, %v", token, err)
	}
	if got, _ := s.Get("ls"); got != nil {
		t.Errorf("the entry was kept: %+v", got)
	}
}

// A token endpoint that redirects to another origin gets no refresh there:
// the form holds the refresh token.
func TestRefreshDoesNotFollowARedirectElsewhere(t *testing.T) {
	elsewhere := origintest.Record(nil)
	other := origintest.NewServer(t, elsewhere)
	endpoint := httptest.NewServer(origintest.Redirect(http.StatusTemporaryRedirect, other.URL))
	defer endpoint.Close()
	s := NewStore(filepath.Join(t.TempDir(), FileName))
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", ClientID: "c", TokenURL: endpoint.URL + "/token",
		Token: Token{AccessToken: "a", RefreshToken: "secret-refresh", ExpiresAt: 1, TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	src := &Source{Server: "ls", Store: s, Client: http.DefaultClient}
	if _, err := src.AccessToken(context.Background()); !errors.Is(err, origin.ErrBodyElsewhere) {
		t.Errorf("AccessToken: %v, want the redirect refused", err)
	}
	if n := len(elsewhere.Headers()); n != 0 {
		t.Errorf("%d refreshes reached the other origin", n)
	}
}

// A refresh that does not get the server's refusal of the refresh token
// keeps the stored entry as it was: one whose context was cancelled (the
// user cancelled the turn) or ran out of time, one the endpoint answered
// with a failure of its own. Only invalid_grant, the server's word that
// the refresh token is no good, drops it (TestRefusedRefreshDeletesTheEntry),
// as the fake authorization server answers the refresh token it never
// granted once asked in time.
func TestUnfinishedRefreshKeepsTheEntry(t *testing.T) {
	server := mcptest.NewOAuth(t)
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body read, the server hears the client go away.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer stalled.Close()
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "try later", http.StatusServiceUnavailable)
	}))
	defer unavailable.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		endpoint string
		ctx      func(t *testing.T) context.Context
		want     error
	}{
		{name: "cancelled", endpoint: server.Issuer + "/token", ctx: func(*testing.T) context.Context { return cancelled }, want: context.Canceled},
		{name: "cancelled while waiting", endpoint: stalled.URL, ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			t.Cleanup(cancel)
			return ctx
		}, want: context.Canceled},
		{name: "timed out", endpoint: stalled.URL, ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, want: context.DeadlineExceeded},
		{name: "server unavailable", endpoint: unavailable.URL, ctx: func(*testing.T) context.Context { return context.Background() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(filepath.Join(t.TempDir(), FileName))
			stored := Credentials{ServerName: "ls", ClientID: "c", TokenURL: tc.endpoint,
				Token: Token{AccessToken: "secret-access", RefreshToken: "secret-refresh", ExpiresAt: 1, TokenType: "Bearer"}}
			if err := s.Save(t.Context(), stored); err != nil {
				t.Fatal(err)
			}
			src := &Source{Server: "ls", Store: s, Client: http.DefaultClient}
			token, err := src.AccessToken(tc.ctx(t))
			if token != "" || err == nil || errors.Is(err, ErrRefreshFailed) || strings.Contains(err.Error(), "secret") {
				t.Errorf("AccessToken = %q, %v; want an error that deletes nothing, without the tokens", token, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("AccessToken: %v, want %v", err, tc.want)
			}
			got, err := s.Get("ls")
			if err != nil || got == nil || got.Token != stored.Token || got.TokenURL != stored.TokenURL {
				t.Fatalf("after the refresh the entry is %+v, %v; want it kept", got, err)
			}
		})
	}
	if n := server.Counts().Refreshes; n != 0 {
		t.Errorf("the authorization server granted %d refreshes", n)
	}
	// Asked in time, the fake server refuses the refresh token it never
	// granted, and the entry goes.
	s := NewStore(filepath.Join(t.TempDir(), FileName))
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", ClientID: "c", TokenURL: server.Issuer + "/token",
		Token: Token{AccessToken: "secret-access", RefreshToken: "secret-refresh", ExpiresAt: 1, TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	src := &Source{Server: "ls", Store: s, Client: http.DefaultClient}
	if _, err := src.AccessToken(context.Background()); !errors.Is(err, ErrRefreshFailed) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("AccessToken: %v, want the refusal", err)
	}
	if got, _ := s.Get("ls"); got != nil {
		t.Errorf("the refused entry was kept: %+v", got)
	}
}

// countingTransport answers nothing: it counts the requests that would
// have left.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, errors.New("no network in this test")
}

// No credential of a sign-in goes over plain http to another machine: a
// refresh token to an http token endpoint, a sign-in whose authorization
// or token endpoint is http. Each is refused before any request, with the
// endpoint's origin named.
func TestNoCredentialGoesOverPlainHTTP(t *testing.T) {
	sent := &countingTransport{}
	client := &http.Client{Transport: sent}
	s := NewStore(filepath.Join(t.TempDir(), FileName))
	if err := s.Save(t.Context(), Credentials{ServerName: "ls", ClientID: "c", TokenURL: "http://tokens.example/token",
		Token: Token{AccessToken: "a", RefreshToken: "secret-refresh", ExpiresAt: 1, TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	src := &Source{Server: "ls", Store: s, Client: client}
	if _, err := src.AccessToken(t.Context()); !errors.Is(err, origin.ErrCleartext) || !strings.Contains(err.Error(), "http://tokens.example:80") {
		t.Errorf("AccessToken: %v, want the plain-http token endpoint refused", err)
	}
	for name, cfg := range map[string]settings.MCPOAuth{
		"token endpoint":         {ClientID: "c", AuthorizationURL: "https://auth.example/authorize", TokenURL: "http://auth.example/token"},
		"authorization endpoint": {ClientID: "c", AuthorizationURL: "http://auth.example/authorize", TokenURL: "https://auth.example/token"},
	} {
		shown := false
		err := Flow{Server: "ls", ServerURL: "https://mcp.example/mcp", Config: cfg, Store: s, Client: client,
			Show: func(string) { shown = true }, Timeout: time.Second}.Run(t.Context())
		if !errors.Is(err, origin.ErrCleartext) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "http://auth.example:80") {
			t.Errorf("%s over http: %v, want it refused, named", name, err)
		}
		if shown {
			t.Errorf("%s over http: the user was sent to sign in", name)
		}
	}
	if n := sent.n.Load(); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}
