package remote

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// defaultAPIKeyHeader is the header an apiKey goes in when the definition
// names none (0.61 api-key-provider.js, bundle 339536).
const defaultAPIKeyHeader = "X-API-Key"

// defaultCommandTimeout bounds a !command auth value (0.61
// value-resolver.js COMMAND_TIMEOUT_MS, bundle 339492).
const defaultCommandTimeout = 60 * time.Second

// defaultGoogleScopes are google-credentials' scopes when the definition
// names none (0.61 google-credentials-provider.js, bundle 340048).
var defaultGoogleScopes = []string{"https://www.googleapis.com/auth/cloud-platform"}

// Google credentials go only to these hosts (0.61 ALLOWED_HOSTS, bundle
// 340024); a Cloud Run host gets an ID token, the others an access token.
var (
	cloudRunHost  = lazyregexp.New(`^(.*\.)?run\.app$`)
	googleAPIHost = lazyregexp.New(`^.+\.googleapis\.com$`)
)

// GoogleTokenRequest is what a google-credentials run asks Application
// Default Credentials for: an ID token for Audience when it is set (a
// Cloud Run agent), else an access token for Scopes. Fresh asks for a new
// token, the last one having been refused.
type GoogleTokenRequest struct {
	Audience string
	Scopes   []string
	Fresh    bool
}

// credential makes the headers that authenticate a request.
type credential interface {
	// headers are the credential's headers; refresh resolves the values
	// anew (a rotated key, an expired token). ok false: nothing would
	// change, so a refused request is not retried.
	headers(ctx context.Context, refresh bool) (h http.Header, ok bool, err error)
}

// newCredential checks def's auth against 0.61's rules and makes its
// credential; nil when def has no auth. target is the URL 0.61 takes the
// Google token's audience from (getRemoteAgentTargetUrl, bundle 335818).
func newCredential(def *subagents.Definition, target string, opts *Options) (credential, error) {
	a := def.Auth
	if a == nil {
		return nil, nil
	}
	switch a.Type {
	case "apiKey":
		if a.Key == "" {
			return nil, fmt.Errorf("remote agent '%s': apiKey auth needs a key", def.Name)
		}
		name := a.Name
		if name == "" {
			name = defaultAPIKeyHeader
		}
		return &apiKeyCredential{header: name, key: a.Key, opts: opts}, nil
	case "http":
		switch {
		case a.Token != "", a.Username != "" || a.Password != "", a.Value != "":
		default:
			return nil, fmt.Errorf("remote agent '%s': http auth needs a token (Bearer), a username and password (Basic) or a value (scheme %q)", def.Name, a.Scheme)
		}
		return &httpCredential{auth: *a, opts: opts}, nil
	case "google-credentials":
		u, err := url.Parse(target)
		if err != nil || target == "" {
			return nil, fmt.Errorf("targetUrl must be provided to GoogleCredentialsAuthProvider to determine token audience.")
		}
		if err := googleHostAllowed(u); err != nil {
			return nil, err
		}
		g := &googleCredential{scopes: a.Scopes, opts: opts}
		if len(g.scopes) == 0 {
			g.scopes = defaultGoogleScopes
		}
		if cloudRunHost.MatchString(u.Hostname()) {
			// 0.61 takes the host name as the ID token's audience.
			g.audience = u.Hostname()
		}
		return g, nil
	case "oauth", "oauth2":
		// 0.61's OAuth2AuthProvider signs in with a browser (authorization
		// code with PKCE, a local callback server) and keeps the tokens on
		// disk; a language server has no browser to open.
		return nil, fmt.Errorf("remote agent '%s': oauth auth is not supported yet: Gemini CLI signs in to it through a browser, which gemini-ls cannot open; use apiKey, http or google-credentials auth", def.Name)
	case "openIdConnect":
		return nil, errors.New("openIdConnect auth provider not yet implemented")
	default:
		return nil, fmt.Errorf("Unknown auth type: %s", a.Type)
	}
}

// googleHostAllowed is 0.61's rule for where Google credentials may go:
// https, and a googleapis.com or run.app host (bundle 340036-340046).
func googleHostAllowed(u *url.URL) error {
	if u.Scheme != "https" {
		return fmt.Errorf("Protocol \"%s:\" is not secure. Google Credential provider requires HTTPS.", u.Scheme)
	}
	h := u.Hostname()
	if !cloudRunHost.MatchString(h) && !googleAPIHost.MatchString(h) {
		return fmt.Errorf("Host \"%s\" is not an allowed host for Google Credential provider.", h)
	}
	return nil
}

type apiKeyCredential struct {
	header, key string
	opts        *Options

	mu       sync.Mutex
	resolved string
}

func (c *apiKeyCredential) headers(ctx context.Context, refresh bool) (http.Header, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only a command's key can change on a retry (0.61
	// ApiKeyAuthProvider.shouldRetryWithHeaders).
	if refresh && !(strings.HasPrefix(c.key, "!") && !strings.HasPrefix(c.key, "!!")) {
		return nil, false, nil
	}
	if c.resolved == "" || refresh {
		v, err := resolveValue(ctx, c.key, c.opts)
		if err != nil {
			return nil, false, err
		}
		c.resolved = v
	}
	return http.Header{http.CanonicalHeaderKey(c.header): {c.resolved}}, true, nil
}

type httpCredential struct {
	auth subagents.Auth
	opts *Options

	mu    sync.Mutex
	value string // the Authorization header's value, once resolved
}

func (c *httpCredential) headers(ctx context.Context, refresh bool) (http.Header, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.value == "" || refresh {
		v, err := c.resolve(ctx)
		if err != nil {
			return nil, false, err
		}
		c.value = v
	}
	return http.Header{"Authorization": {c.value}}, true, nil
}

// resolve is 0.61 HttpAuthProvider.headers (bundle 339606): a token is a
// Bearer, a username a Basic, else the scheme with its value.
func (c *httpCredential) resolve(ctx context.Context) (string, error) {
	a := c.auth
	switch {
	case a.Token != "":
		t, err := resolveValue(ctx, a.Token, c.opts)
		if err != nil {
			return "", err
		}
		return "Bearer " + t, nil
	case a.Username != "" || a.Password != "":
		u, err := resolveValue(ctx, a.Username, c.opts)
		if err != nil {
			return "", err
		}
		p, err := resolveValue(ctx, a.Password, c.opts)
		if err != nil {
			return "", err
		}
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)), nil
	default:
		v, err := resolveValue(ctx, a.Value, c.opts)
		if err != nil {
			return "", err
		}
		return a.Scheme + " " + v, nil
	}
}

type googleCredential struct {
	audience string
	scopes   []string
	opts     *Options
}

func (c *googleCredential) headers(ctx context.Context, refresh bool) (http.Header, bool, error) {
	tok, err := c.opts.googleToken(ctx, GoogleTokenRequest{Audience: c.audience, Scopes: c.scopes, Fresh: refresh})
	if err != nil {
		if c.audience != "" {
			return nil, false, fmt.Errorf("Failed to get ADC ID token: %w", err)
		}
		return nil, false, fmt.Errorf("Failed to get ADC access token: %w", err)
	}
	if tok == "" {
		return nil, false, errors.New("Failed to retrieve ADC access token.")
	}
	return http.Header{"Authorization": {"Bearer " + tok}}, true, nil
}

// resolveValue is 0.61's resolveAuthValue (bundle 339488): $NAME is an
// environment variable, !command a shell command's trimmed output, $$ and
// !! escape a literal $ or !, anything else the value itself.
func resolveValue(ctx context.Context, v string, opts *Options) (string, error) {
	switch {
	case strings.HasPrefix(v, "$$"), strings.HasPrefix(v, "!!"):
		return v[1:], nil
	case strings.HasPrefix(v, "$"):
		name := v[1:]
		got, ok := opts.lookupEnv(name)
		if !ok || got == "" {
			return "", fmt.Errorf("Environment variable '%s' is not set or is empty. Please set it before using this agent.", name)
		}
		return got, nil
	case strings.HasPrefix(v, "!"):
		command := strings.TrimSpace(v[1:])
		if command == "" {
			return "", errors.New("Empty command in auth value. Expected format: !command")
		}
		timeout := opts.commandTimeout
		if timeout <= 0 {
			timeout = defaultCommandTimeout
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		out, err := opts.runCommand(ctx, command)
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("Command '%s' timed out after %d seconds", command, int(timeout/time.Second))
		}
		if err != nil {
			return "", fmt.Errorf("running the auth command '%s': %w", command, err)
		}
		out = strings.TrimSpace(out)
		if out == "" {
			return "", fmt.Errorf("Command '%s' returned empty output", command)
		}
		return out, nil
	}
	return v, nil
}

// maxCommandOutput bounds what a !command may print.
const maxCommandOutput = 64 << 10

// runShell runs command in this machine's shell as 0.61 does (bash -c;
// PowerShell on Windows), its process group ended with ctx.
func runShell(ctx context.Context, command string) (string, error) {
	cmd := osshell.Local().Command(ctx, nil, spawn.Configured{Setting: "a remote agent's auth", Kind: spawn.Credential}, command)
	var out limitedBuffer
	out.max = maxCommandOutput
	cmd.Stdout = &out
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			return "", fmt.Errorf("%w: %s", err, s)
		}
		return "", err
	}
	if out.over {
		return "", fmt.Errorf("its output exceeds %d bytes", maxCommandOutput)
	}
	return out.String(), nil
}

// limitedBuffer keeps the first max bytes written to it. The buffer is a
// field, not embedded: io.Copy would use its ReadFrom, which has no limit.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) String() string { return b.buf.String() }

// authenticating adds cred's headers to the requests that go to origin
// and have not left it on the way (a redirect to another origin, even
// back again); other requests go as they are. A request refused with 401
// or 403 is sent once more with fresh values when they may differ (0.61
// createAuthenticatingFetchWithRetry).
type authenticating struct {
	base   http.RoundTripper
	cred   credential
	origin string // origin.Of
}

func (a authenticating) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin.Of(req.URL) != a.origin || origin.Crossed(req) {
		return a.base.RoundTrip(req)
	}
	h, _, err := a.cred.headers(req.Context(), false)
	if err != nil {
		return nil, err
	}
	resp, err := a.base.RoundTrip(withHeaders(req, h))
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	fresh, ok, err := a.cred.headers(req.Context(), true)
	if err != nil || !ok {
		return resp, nil
	}
	retry := withHeaders(req, fresh)
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		retry.Body = body
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return a.base.RoundTrip(retry)
}

// withHeaders is a copy of req with h set: a RoundTripper leaves its
// request as it is.
func withHeaders(req *http.Request, h http.Header) *http.Request {
	r := req.Clone(req.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	return r
}
