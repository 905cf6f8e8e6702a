package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// maxTokenResponse bounds a token endpoint's answer.
const maxTokenResponse = 1 << 20

// Source hands out a server's stored access token, refreshed when it has
// expired. It is safe for concurrent use: one refresh at a time.
type Source struct {
	Server string
	Config settings.MCPOAuth
	Store  *Store
	Client *http.Client

	mu sync.Mutex
}

// ErrRefreshFailed is a stored token that expired and whose refresh the
// server refused (invalid_grant); its entry was deleted. A refresh that
// failed otherwise (cancelled, timed out, the endpoint down) keeps it.
var ErrRefreshFailed = errors.New("the stored OAuth token expired and could not be refreshed")

// AccessToken returns the token to send, "" when the server has no stored
// sign-in.
func (s *Source) AccessToken(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	creds, err := s.Store.Get(s.Server)
	if err != nil || creds == nil {
		return "", err
	}
	if !creds.Token.expired(time.Now()) {
		return creds.Token.AccessToken, nil
	}
	clientID := s.Config.ClientID
	if clientID == "" {
		clientID = creds.ClientID
	}
	if creds.Token.RefreshToken == "" || clientID == "" || creds.TokenURL == "" {
		return "", nil
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {creds.Token.RefreshToken},
		"client_id":     {clientID},
	}
	if s.Config.ClientSecret != "" {
		form.Set("client_secret", s.Config.ClientSecret)
	}
	if len(s.Config.Scopes) > 0 {
		form.Set("scope", strings.Join(s.Config.Scopes, " "))
	}
	if creds.MCPServerURL != "" {
		form.Set("resource", resource(creds.MCPServerURL))
	}
	token, err := requestToken(ctx, s.Client, creds.TokenURL, form)
	if err != nil && !refreshTokenRefused(err) {
		// Cancelled, timed out, or a failure of the endpoint's own: the
		// refresh token may still be good, and the next try may refresh.
		return "", fmt.Errorf("refreshing the stored OAuth token: %w", err)
	}
	if err != nil {
		// The server says the refresh token is no good: it is dropped, so
		// the next start asks for a sign-in instead of failing the same
		// way. (Gemini CLI drops it on any failure, a cancelled one too.)
		if delErr := s.Store.Delete(ctx, s.Server); delErr != nil {
			return "", errors.Join(fmt.Errorf("%w: %w", ErrRefreshFailed, err), delErr)
		}
		return "", fmt.Errorf("%w: %w", ErrRefreshFailed, err)
	}
	if token.Scope == "" {
		token.Scope = creds.Token.Scope
	}
	creds.Token = token
	creds.ClientID = clientID
	if err := s.Store.Save(ctx, *creds); err != nil {
		return "", err
	}
	return token.AccessToken, nil
}

// tokenResponse is a token endpoint's answer (RFC 6749 5.1, 5.2).
type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	RefreshToken     string `json:"refresh_token"`
	ExpiresIn        int64  `json:"expires_in"`
	Scope            string `json:"scope"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// requestToken posts form to the token endpoint and returns the token it
// grants. Errors carry the endpoint's error code, never the form.
func requestToken(ctx context.Context, client *http.Client, endpoint string, form url.Values) (Token, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Token{}, fmt.Errorf("token endpoint %s: %w", endpoint, err)
	}
	if err := origin.CheckCleartext(req.URL); err != nil {
		return Token{}, fmt.Errorf("token endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// The form is the credential (a code, a refresh token, a secret): a
	// redirect may not take it to another origin.
	guarded := *client
	guarded.CheckRedirect = origin.CheckRedirect
	resp, err := guarded.Do(req)
	if err != nil {
		return Token{}, fmt.Errorf("token endpoint: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if err != nil {
		return Token{}, fmt.Errorf("token endpoint %s: reading the answer: %w", endpoint, err)
	}
	var tr tokenResponse
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
		v, _ := url.ParseQuery(string(body))
		expires, _ := json.Number(v.Get("expires_in")).Int64()
		tr = tokenResponse{AccessToken: v.Get("access_token"), TokenType: v.Get("token_type"), RefreshToken: v.Get("refresh_token"),
			ExpiresIn: expires, Scope: v.Get("scope"), Error: v.Get("error"), ErrorDescription: v.Get("error_description")}
	} else if err := json.Unmarshal(body, &tr); err != nil && resp.StatusCode == http.StatusOK {
		return Token{}, fmt.Errorf("token endpoint %s: the answer is not JSON: %w", endpoint, err)
	}
	if tr.Error != "" {
		return Token{}, &refusal{endpoint: endpoint, code: tr.Error, description: tr.ErrorDescription}
	}
	if resp.StatusCode != http.StatusOK {
		return Token{}, fmt.Errorf("token endpoint %s answered %s", endpoint, resp.Status)
	}
	if tr.AccessToken == "" {
		return Token{}, fmt.Errorf("token endpoint %s granted no access token", endpoint)
	}
	t := Token{AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken, TokenType: tr.TokenType, Scope: tr.Scope}
	if t.TokenType == "" {
		t.TokenType = "Bearer"
	}
	if tr.ExpiresIn > 0 {
		t.ExpiresAt = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second).UnixMilli()
	}
	return t, nil
}

// refusal is a token endpoint's error answer (RFC 6749 5.2).
type refusal struct {
	endpoint, code, description string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("token endpoint %s refused: %s %s", r.endpoint, r.code, r.description)
}

// refreshTokenRefused reports whether err is the token endpoint's word
// that the refresh token is invalid, expired or revoked (invalid_grant):
// the one failure of a refresh that says the token is dead.
func refreshTokenRefused(err error) bool {
	var r *refusal
	return errors.As(err, &r) && r.code == "invalid_grant"
}

// resource is the RFC 8707 resource parameter for an MCP server's URL: the
// URL without its fragment, as Gemini CLI sends it.
func resource(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	u.Fragment = ""
	return u.String()
}
