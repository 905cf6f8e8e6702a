package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/gemini-ls/gemini-ls/internal/origin"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// DefaultTimeout is how long a user has to complete a sign-in, as Gemini
// CLI's callback server waits.
const DefaultTimeout = 5 * time.Minute

// RedirectPath is where the loopback server takes the redirect, Gemini
// CLI's path.
const RedirectPath = "/oauth/callback"

// clientName is what a dynamically registered client is called.
const clientName = "gemini-ls MCP Client"

// ErrTimeout is a sign-in nobody completed in time.
var ErrTimeout = errors.New("the sign-in was not completed in time")

// Flow is one sign-in to one MCP server.
type Flow struct {
	Server    string // the server's name in mcpServers
	ServerURL string // its MCP endpoint
	Config    settings.MCPOAuth
	Store     *Store
	Client    *http.Client
	// Show tells the user to open the authorization URL. It must not block.
	Show func(authURL string)
	// Timeout bounds the wait for the user; DefaultTimeout when 0.
	Timeout time.Duration
}

// endpoints are where a sign-in goes, configured or discovered.
type endpoints struct {
	authorization, token, registration string
	scopes                             []string
	// issuer is the discovered authorization server's, "" when the
	// endpoints are configured.
	issuer string
}

// Run signs in and stores the token.
func (f Flow) Run(ctx context.Context) error {
	ep, err := f.endpoints(ctx)
	if err != nil {
		return fmt.Errorf("discovering how to sign in to %s: %w", f.ServerURL, err)
	}
	if err := ep.checkCleartext(); err != nil {
		return err
	}
	listener, redirectURI, err := f.listen()
	if err != nil {
		return err
	}
	defer listener.Close()
	cfg := &oauth2.Config{
		ClientID:     f.Config.ClientID,
		ClientSecret: f.Config.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: ep.authorization, TokenURL: ep.token},
		RedirectURL:  redirectURI,
		Scopes:       ep.scopes,
	}
	if cfg.ClientID == "" {
		if err := f.register(ctx, ep, cfg); err != nil {
			return err
		}
	}
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if len(f.Config.Audiences) > 0 {
		opts = append(opts, oauth2.SetAuthURLParam("audience", strings.Join(f.Config.Audiences, " ")))
	}
	if f.ServerURL != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource(f.ServerURL)))
	}
	code, err := f.awaitCode(ctx, listener, state, cfg.AuthCodeURL(state, opts...), ep.checkIssuer)
	if err != nil {
		return err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"client_id":     {cfg.ClientID},
		"code_verifier": {verifier},
	}
	if cfg.ClientSecret != "" {
		form.Set("client_secret", cfg.ClientSecret)
	}
	if f.ServerURL != "" {
		form.Set("resource", resource(f.ServerURL))
	}
	token, err := requestToken(ctx, f.Client, ep.token, form)
	if err != nil {
		return fmt.Errorf("exchanging the authorization code: %w", err)
	}
	return f.Store.Save(ctx, Credentials{ServerName: f.Server, Token: token, ClientID: cfg.ClientID, TokenURL: ep.token, MCPServerURL: f.ServerURL, Issuer: ep.issuer})
}

// endpoints are the configured ones, else those the server's metadata
// names.
func (f Flow) endpoints(ctx context.Context) (endpoints, error) {
	c := f.Config
	ep := endpoints{authorization: c.AuthorizationURL, token: c.TokenURL, registration: c.RegistrationURL, scopes: c.Scopes}
	if ep.authorization != "" && ep.token != "" {
		return ep, nil
	}
	if f.ServerURL == "" {
		return ep, errors.New("no authorizationUrl and tokenUrl are configured, and no server URL to discover them from")
	}
	issuer, scopes, err := f.authorizationServer(ctx)
	if err != nil {
		return ep, err
	}
	meta, err := auth.GetAuthServerMetadata(ctx, issuer, f.Client)
	if err != nil {
		return ep, fmt.Errorf("reading the authorization server's metadata: %w", err)
	}
	if meta == nil {
		return ep, fmt.Errorf("the authorization server %s publishes no metadata", issuer)
	}
	if ep.authorization == "" {
		ep.authorization = meta.AuthorizationEndpoint
	}
	if ep.token == "" {
		ep.token = meta.TokenEndpoint
	}
	if ep.registration == "" {
		ep.registration = meta.RegistrationEndpoint
	}
	if ep.scopes == nil {
		ep.scopes = scopes
	}
	ep.issuer = meta.Issuer
	return ep, nil
}

// checkIssuer holds the authorization response's iss to RFC 9207, as
// Gemini CLI 0.61's callback server does (startCallbackServer in its
// bundle's chunk-5FZXKDXH.js) and MCP 2026-07-28 asks: where the issuer
// was discovered, the answer must name it, or another authorization
// server may be posing as it to have its code sent to the wrong token
// endpoint (a mix-up); where the endpoints are configured, no issuer is
// known, and none is checked.
func (ep endpoints) checkIssuer(iss string) error {
	switch {
	case ep.issuer == "":
		return nil
	case iss == "":
		return fmt.Errorf("the sign-in was refused: the answer of the authorization server %s named no issuer (RFC 9207), so it may not be its own; its code was not used", ep.issuer)
	case !sameIssuer(iss, ep.issuer):
		return fmt.Errorf("the sign-in was refused: its answer came from the authorization server %q, not from %s where it was started, so another server may be posing as it (RFC 9207); its code was not used", iss, ep.issuer)
	}
	return nil
}

// sameIssuer compares two issuers as 0.61's areIssuersEqual does: as
// URLs, less the path's trailing slashes; one that names a user is no
// issuer.
func sameIssuer(a, b string) bool {
	norm := func(iss string) (string, bool) {
		u, err := url.Parse(iss)
		if err != nil || u.Scheme == "" {
			return strings.TrimRight(iss, "/"), true
		}
		if u.User != nil {
			return "", false
		}
		u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
		return u.String(), true
	}
	na, okA := norm(a)
	nb, okB := norm(b)
	return okA && okB && na == nb
}

// authorizationServer finds the server's authorization server through its
// protected resource metadata (named by its 401's WWW-Authenticate, else
// at the well-known places); without any, the server's origin is taken as
// its own authorization server, as MCP's 2025-03-26 spec allows.
func (f Flow) authorizationServer(ctx context.Context) (issuer string, scopes []string, err error) {
	server, err := url.Parse(f.ServerURL)
	if err != nil {
		return "", nil, err
	}
	origin := server.Scheme + "://" + server.Host
	candidates := []string{}
	if challenged := f.challengedMetadataURL(ctx); challenged != "" {
		candidates = append(candidates, challenged)
	}
	if p := strings.TrimSuffix(server.Path, "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	for _, candidate := range candidates {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, candidate, f.ServerURL, f.Client)
		if err == nil && len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0], prm.ScopesSupported, nil
		}
	}
	return origin, nil, nil
}

// challengedMetadataURL is the resource_metadata of the server's 401, as
// Gemini CLI asks for it (HEAD); "" without one.
func (f Flow) challengedMetadataURL(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, f.ServerURL, nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := f.Client.Do(req)
	if err != nil {
		return ""
	}
	resp.Body.Close()
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return ""
	}
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			return u
		}
	}
	return ""
}

// checkCleartext refuses endpoints that would carry a credential over
// plain http to another machine: the page the user signs in on, the
// registration that returns a client secret, the token endpoint that gets
// the code and returns the tokens.
func (ep endpoints) checkCleartext() error {
	for _, e := range []struct{ what, url string }{
		{"authorization endpoint", ep.authorization},
		{"registration endpoint", ep.registration},
		{"token endpoint", ep.token},
	} {
		if e.url == "" {
			continue
		}
		u, err := url.Parse(e.url)
		if err != nil {
			return fmt.Errorf("the %s %q does not parse: %w", e.what, e.url, err)
		}
		if err := origin.CheckCleartext(u); err != nil {
			return fmt.Errorf("the %s: %w", e.what, err)
		}
	}
	return nil
}

// register registers gemini-ls as a public client (RFC 7591), as Gemini CLI
// does when no clientId is configured.
func (f Flow) register(ctx context.Context, ep endpoints, cfg *oauth2.Config) error {
	if ep.registration == "" {
		return errors.New("no clientId is configured and the authorization server does not offer dynamic client registration")
	}
	res, err := oauthex.RegisterClient(ctx, ep.registration, &oauthex.ClientRegistrationMetadata{
		ClientName:              clientName,
		RedirectURIs:            []string{cfg.RedirectURL},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
		Scope:                   strings.Join(ep.scopes, " "),
	}, f.Client)
	if err != nil {
		return fmt.Errorf("registering the client: %w", err)
	}
	cfg.ClientID, cfg.ClientSecret = res.ClientID, res.ClientSecret
	return nil
}

// listen opens the loopback server the authorization server redirects to:
// on the port of the configured redirectUri, else on any free port.
func (f Flow) listen() (net.Listener, string, error) {
	port := 0
	if f.Config.RedirectURI != "" {
		u, err := url.Parse(f.Config.RedirectURI)
		if err != nil {
			return nil, "", fmt.Errorf("the redirectUri %q: %w", f.Config.RedirectURI, err)
		}
		port, _ = strconv.Atoi(u.Port())
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, "", fmt.Errorf("opening the sign-in's loopback server: %w", err)
	}
	if f.Config.RedirectURI != "" {
		return l, f.Config.RedirectURI, nil
	}
	return l, fmt.Sprintf("http://localhost:%d%s", l.Addr().(*net.TCPAddr).Port, RedirectPath), nil
}

// awaitCode shows authURL and waits for the redirect that brings the code.
// checkIss checks the iss the redirect carries; a code it refuses is not
// used, and the browser's page says why.
func (f Flow) awaitCode(ctx context.Context, l net.Listener, state, authURL string, checkIss func(iss string) error) (string, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		code string
		err  error
	}
	results := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state || r.URL.Path != f.redirectPath() {
			http.Error(w, "This is not the redirect of the sign-in under way.", http.StatusBadRequest)
			return
		}
		var res result
		if e := q.Get("error"); e != "" {
			res.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><body><h1>Authentication Failed</h1><p>%s</p><p>You can close this window.</p></body></html>", html.EscapeString(e))
		} else if res.code = q.Get("code"); res.code == "" {
			http.Error(w, "Missing code or state parameter", http.StatusBadRequest)
			return
		} else if err := checkIss(q.Get("iss")); err != nil {
			res = result{err: err}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><body><h1>Authentication Failed</h1><p>%s</p><p>You can close this window.</p></body></html>", html.EscapeString(err.Error()))
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><body><h1>Authentication Successful!</h1><p>You can close this window and return to your editor.</p></body></html>")
		}
		select {
		case results <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(l) }()
	defer func() {
		// Shutdown, not Close: the browser gets the page that says it is
		// done before the server goes.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	f.Show(authURL)
	select {
	case res := <-results:
		return res.code, res.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("%w (%s)", ErrTimeout, timeout)
		}
		return "", ctx.Err()
	}
}

// redirectPath is the path the redirect comes to.
func (f Flow) redirectPath() string {
	if f.Config.RedirectURI != "" {
		if u, err := url.Parse(f.Config.RedirectURI); err == nil && u.Path != "" {
			return u.Path
		}
	}
	return RedirectPath
}

// randomState is the CSRF guard of the authorization request.
func randomState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
