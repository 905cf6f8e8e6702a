package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"

	"cloud.google.com/go/auth/credentials"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// remoteURL is the server's endpoint and whether it speaks SSE, as Gemini
// CLI reads the settings: httpUrl is streamable HTTP; url is what its type
// says, streamable HTTP without one (then SSE is tried after it).
func (c serverConfig) remoteURL() (url string, sse bool) {
	if c.HTTPURL != "" {
		return c.HTTPURL, false
	}
	return c.URL, c.Type == settings.MCPTypeSSE
}

// fallsBackToSSE says whether a failed streamable HTTP connection is tried
// again over SSE: a url with no type, as in Gemini CLI.
func (c serverConfig) fallsBackToSSE() bool {
	return c.HTTPURL == "" && c.URL != "" && c.Type == ""
}

// connectRemote connects over streamable HTTP or SSE, falling back from
// the first to the second as fallsBackToSSE says. A 401 ends the attempts:
// signing in, not another transport, is what the server asks for.
func (s *server) connectRemote(ctx context.Context, client *sdk.Client) (*sdk.ClientSession, error) {
	url, sse := s.cfg.remoteURL()
	session, err := client.Connect(ctx, s.remoteTransport(url, sse), nil)
	if err == nil || sse || !s.cfg.fallsBackToSSE() || s.unauthorized.Load() {
		return session, err
	}
	session, sseErr := client.Connect(ctx, s.remoteTransport(url, true), nil)
	if sseErr == nil || s.unauthorized.Load() {
		return session, sseErr
	}
	return nil, fmt.Errorf("over streamable HTTP: %w; over SSE: %w", err, sseErr)
}

// remoteTransport is the SDK's transport to endpoint, its requests
// carrying the configured headers and the server's token to the server's
// origin only, and every message it reads bounded.
func (s *server) remoteTransport(endpoint string, sse bool) sdk.Transport {
	home := ""
	if u, err := url.Parse(endpoint); err == nil {
		home = origin.Of(u)
	}
	client := &http.Client{Transport: &authTransport{
		origin:       home,
		headers:      s.cfg.Headers,
		token:        s.token,
		unauthorized: &s.unauthorized,
		refused:      s.broke,
		base:         &taskTransport{base: &boundedTransport{limit: maxMessage, exceeded: s.broke, base: s.transport}},
	}}
	if sse {
		return &sdk.SSEClientTransport{Endpoint: endpoint, HTTPClient: client}
	}
	return &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}
}

// authTransport adds the configured headers and the bearer token to the
// requests that go to the server's origin, and notes a 401.
//
// A redirect is followed as a browser's fetch follows it: to another
// origin (scheme, host and port) without the headers and the token, and
// without them from there on. The SDK asks the Client to send each
// redirected request, and the Client asks this transport, so a transport
// that added them to every request would hand them to whatever origin
// the server redirected to.
type authTransport struct {
	// origin is the configured URL's: requests start only there.
	origin  string
	headers map[string]string
	// token is the access token to send, "" for none; nil sends none.
	token        func(context.Context) (string, error)
	unauthorized *atomic.Bool
	// refused hears of a request refused for its origin: the server broke
	// a bound, and its status must say that rather than whatever the SDK
	// reports once the refused request has closed its connection.
	refused func(error)
	base    http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if to := origin.Of(req.URL); req.Response == nil && to != t.origin {
		// The one way there: an SSE server's endpoint event naming
		// another origin, which Gemini CLI refuses too.
		closeBody(req)
		err := fmt.Errorf("the server sent its messages elsewhere (%s), not to its own origin %s: refused", to, t.origin)
		t.refused(err)
		return nil, err
	}
	if origin.Crossed(req) {
		return t.note(t.base.RoundTrip(req))
	}
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if t.token != nil {
		token, err := t.token(req.Context())
		if err != nil {
			closeBody(req)
			return nil, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	return t.note(t.base.RoundTrip(req))
}

// note records a 401.
func (t *authTransport) note(resp *http.Response, err error) (*http.Response, error) {
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.unauthorized.Store(true)
	}
	return resp, err
}

// closeBody closes the body of a request not sent, as a RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// tokenSource is how the server's requests get their token: the
// Application Default Credentials' for google_credentials, else the
// stored OAuth sign-in's, if any.
func (s *server) tokenSource() (func(context.Context) (string, error), error) {
	if s.cfg.AuthProviderType == settings.MCPAuthGoogleCredentials {
		// The token goes nowhere but to Google, over https.
		endpoint, _ := s.cfg.remoteURL()
		if err := checkGoogleURL(endpoint); err != nil {
			return nil, err
		}
		var scopes []string
		if s.cfg.OAuth != nil {
			scopes = s.cfg.OAuth.Scopes
		}
		if len(scopes) == 0 {
			return nil, errors.New(`authProviderType "google_credentials" needs oauth.scopes`)
		}
		// Its token requests' bodies (a signed assertion, a refresh
		// token) go to no other origin than the credentials name.
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: scopes, Client: origin.Client(http.DefaultTransport)})
		if err != nil {
			return nil, fmt.Errorf("finding Application Default Credentials: %w", err)
		}
		return func(ctx context.Context) (string, error) {
			tok, err := creds.Token(ctx)
			if err != nil {
				return "", fmt.Errorf("getting a token from the Application Default Credentials: %w", err)
			}
			return tok.Value, nil
		}, nil
	}
	if s.tokens == nil || s.cleartext() != nil {
		// Over plain http to another machine no stored token is sent;
		// a 401 says why (errAuthRequired).
		return nil, nil
	}
	source := &oauth.Source{Server: s.alias, Config: s.oauthConfig(), Store: s.tokens, Client: http.DefaultClient}
	return func(ctx context.Context) (string, error) {
		token, err := source.AccessToken(ctx)
		if token != "" {
			s.hadToken.Store(true)
		}
		if errors.Is(err, oauth.ErrRefreshFailed) {
			// Sent without a token, the server answers 401 and the user
			// is asked to sign in again.
			s.refreshErr.Store(&err)
			return "", nil
		}
		return token, err
	}, nil
}

// cleartext says why the server's URL may not carry its OAuth token: plain
// http to another machine than this one (origin.CheckCleartext). Gemini
// CLI 0.61 sends it there; the MCP authorization rules ask for https.
func (s *server) cleartext() error {
	endpoint, _ := s.cfg.remoteURL()
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("its URL does not parse: %w", err)
	}
	return origin.CheckCleartext(u)
}

// checkHeaders refuses the server when a header the user configured for
// it carries a credential (origin.CredentialHeader: Authorization, an API
// key, a cookie) and its URL is plain http to another machine: the
// header is the user's own, sent as written, but over plain http it
// would be read on the way. Gemini CLI 0.61 sends it there; gemini-ls
// asks, as for its own credentials, https or this machine.
func (s *server) checkHeaders() error {
	names := slices.Sorted(maps.Keys(s.cfg.Headers))
	for _, name := range names {
		if !origin.CredentialHeader(name) {
			continue
		}
		if err := s.cleartext(); err != nil {
			return fmt.Errorf("not sending its configured %s header to %w", http.CanonicalHeaderKey(name), err)
		}
	}
	return nil
}

// oauthConfig is the server's "oauth" block, empty without one.
func (s *server) oauthConfig() settings.MCPOAuth {
	if s.cfg.OAuth == nil {
		return settings.MCPOAuth{}
	}
	return *s.cfg.OAuth
}

// signIn runs the OAuth sign-in for the server, showing its URL with show.
func (s *server) signIn(ctx context.Context, show func(authURL string)) error {
	if s.tokens == nil {
		return errors.New("there is no user directory to keep the token in")
	}
	if err := s.cleartext(); err != nil {
		return fmt.Errorf("gemini-ls does not sign in to a server whose token it would send over plain http: %w", err)
	}
	url, _ := s.cfg.remoteURL()
	if url == "" {
		return fmt.Errorf("MCP server %q is not a remote (url or httpUrl) server", s.alias)
	}
	return oauth.Flow{
		Server:    s.alias,
		ServerURL: url,
		Config:    s.oauthConfig(),
		Store:     s.tokens,
		Client:    http.DefaultClient,
		Show:      show,
		Timeout:   s.signInTimeout,
	}.Run(ctx)
}

// errAuthRequired is a server that answered 401: Gemini CLI's words.
func (s *server) errAuthRequired() error {
	if err := s.cleartext(); err != nil {
		return fmt.Errorf("MCP server '%s' requires authentication, and gemini-ls sends no sign-in token to it over plain http: %w. Reach it over https to sign in", s.alias, err)
	}
	if p := s.refreshErr.Load(); p != nil {
		return fmt.Errorf("MCP server '%s' rejected stored OAuth token (%v). Please re-authenticate using: /mcp auth %s", s.alias, *p, s.alias)
	}
	if s.hadToken.Load() {
		return fmt.Errorf("MCP server '%s' rejected stored OAuth token. Please re-authenticate using: /mcp auth %s", s.alias, s.alias)
	}
	return fmt.Errorf("MCP server '%s' requires authentication using: /mcp auth %s", s.alias, s.alias)
}
