package auth

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"net/http"
	"sync"

	gauth "cloud.google.com/go/auth"
	"cloud.google.com/go/auth/httptransport"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/origin"
)

// ContentGenerator is what NewGenerator returns: the agent's
// ContentGenerator, declared here too so this package need not import the
// agent (Go interfaces match by their methods).
type ContentGenerator interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
	CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error)
}

// Option changes what NewGenerator makes.
type Option func(*generatorOptions)

type generatorOptions struct {
	warn       func(error)
	transports *Transports
}

// WithWarn reports problems that do not fail a request, such as a
// refreshed Google login that could not be written back to its file.
func WithWarn(warn func(error)) Option {
	return func(o *generatorOptions) { o.warn = warn }
}

// WithTransports shares the generator's transport with the others of t
// made with the same credential (see Transports); without it, the
// generator's transport is its own.
func WithTransports(t *Transports) Option {
	return func(o *generatorOptions) { o.transports = t }
}

// NewGenerator returns the ContentGenerator for a: the genai models service
// for gemini-api-key and vertex-ai, the Code Assist server for
// oauth-personal and cloud-shell.
//
// The client, and with it the credential lookup, is made on the first
// request, not here. For Vertex AI with Application Default Credentials
// that lookup reads credential files and, without any, probes the GCE
// metadata server; a front end makes its generator while the editor waits
// for initialize, and none of that belongs there. A failed creation is not
// kept: the next request tries again, so credentials set up after the
// failure are used without a restart.
//
// CloseGenerator lets go of its transport when the generator is done.
func NewGenerator(a Auth, opts ...Option) ContentGenerator {
	var o generatorOptions
	for _, opt := range opts {
		opt(&o)
	}
	return &generator{auth: a, opts: o, creating: make(chan struct{}, 1)}
}

type generator struct {
	auth Auth
	opts generatorOptions
	// creating is held while the client is made or read; a channel rather
	// than a mutex so that a caller whose context ends stops waiting.
	creating chan struct{}
	backend  ContentGenerator // nil until a creation succeeded

	// mu guards release and closed.
	mu sync.Mutex
	// release lets go of the backend's transport; nil until a creation
	// succeeded, and after Close.
	release func()
	closed  bool
}

// client returns the backend, creating it on first use.
func (g *generator) client(ctx context.Context) (ContentGenerator, error) {
	select {
	case g.creating <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.creating }()
	if g.backend != nil {
		return g.backend, nil
	}
	transport, release := g.opts.transports.acquire(g.auth)
	backend, err := g.create(ctx, transport)
	if err != nil {
		release()
		return nil, fmt.Errorf("creating %s client: %w", g.auth.Type, err)
	}
	g.backend = backend
	g.keep(release)
	return backend, nil
}

// ForgetConversation drops what the backend keeps of the conversation
// whose history begins with first (its encoded history): the agent tells
// it when a session leaves memory, so that the cache does not keep the
// session's history alive after it. A backend not made yet, or busy being
// made, keeps nothing of it to drop.
func (g *generator) ForgetConversation(first *genai.Content) {
	select {
	case g.creating <- struct{}{}:
	default:
		return
	}
	backend := g.backend
	<-g.creating
	if m, ok := backend.(encodedModels); ok {
		m.encoded.forget(first)
	}
}

// keep holds the backend's transport until Close; one made after Close
// (a request after it) is let go of at once, and still serves.
func (g *generator) keep(release func()) {
	g.mu.Lock()
	closed := g.closed
	if !closed {
		g.release = release
	}
	g.mu.Unlock()
	if closed {
		release()
	}
}

// Close lets go of the transport: its idle connections are closed when
// no other generator shares it. Requests made after still work.
func (g *generator) Close() {
	g.mu.Lock()
	release := g.release
	g.release, g.closed = nil, true
	g.mu.Unlock()
	if release != nil {
		release()
	}
}

// CloseGenerator closes gen when NewGenerator made it (see its Close),
// recorded or not (NewRecorder); other generators have nothing to close.
func CloseGenerator(gen ContentGenerator) {
	if g, ok := unwrap(gen).(*generator); ok {
		g.Close()
	}
}

func (g *generator) create(ctx context.Context, transport http.RoundTripper) (ContentGenerator, error) {
	a := g.auth
	// No request's body follows a redirect to another origin: a token
	// request's is its credential, a model request's the user's prompt.
	plain := &http.Client{Transport: transport, CheckRedirect: origin.CheckRedirect}
	switch a.Type {
	case OAuthPersonal, CloudShell, ComputeADC:
		var tokens codeassist.TokenSource
		if a.Type == OAuthPersonal {
			tokens = codeassist.NewLogin(codeassist.LoginConfig{
				Path: a.CodeAssist.CredsPath, TokenURL: a.CodeAssist.TokenURL, HTTPClient: plain, Warn: g.opts.warn,
			})
		} else {
			tokens = codeassist.NewADC(func() (*gauth.Credentials, error) {
				return detectADC(a.CredentialsFile, codeassist.OAuthScopes, plain)
			})
		}
		return codeassist.New(codeassist.Config{
			Endpoint:   a.CodeAssist.Endpoint,
			Project:    a.CodeAssist.Project,
			Tokens:     tokens,
			HTTPClient: plain,
			UserAgent:  a.UserAgent(),
		}), nil
	}

	cfg := a.Config
	headers := http.Header{}
	for k, v := range cfg.HTTPOptions.Headers {
		headers[k] = append([]string(nil), v...)
	}
	headers.Set("User-Agent", a.UserAgent())
	cfg.HTTPOptions.Headers = headers
	cfg.HTTPClient = plain
	if cfg.Backend == genai.BackendVertexAI && cfg.APIKey == "" && cfg.Credentials == nil {
		// What genai does for Vertex AI without a client of its own, done
		// here so that the proxy and Retry-After transport stay under it.
		// The token goes to the host genai makes of the location: an Auth
		// not made by Resolve is held to its checks too.
		if err := cmp.Or(checkProject("the Vertex AI project", cfg.Project), checkLocation("the Vertex AI location", cfg.Location)); err != nil {
			return nil, err
		}
		creds, err := detectADC(a.CredentialsFile, []string{"https://www.googleapis.com/auth/cloud-platform"}, plain)
		if err != nil {
			return nil, err
		}
		quotaProject, err := creds.QuotaProjectID(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the credentials' quota project: %w", err)
		}
		h := http.Header{}
		if quotaProject != "" {
			h.Set("X-Goog-User-Project", quotaProject)
		}
		cfg.HTTPClient, err = httptransport.NewClient(&httptransport.Options{
			Credentials:      creds,
			Headers:          h,
			BaseRoundTripper: transport,
		})
		if err != nil {
			return nil, fmt.Errorf("making the authorized HTTP client: %w", err)
		}
		cfg.HTTPClient.CheckRedirect = plain.CheckRedirect
	}
	client, err := genai.NewClient(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	return encodedModels{Models: client.Models, encoded: &encodingCache{}}, nil
}

func (g *generator) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		backend, err := g.client(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		backend.GenerateContentStream(ctx, model, contents, config)(yield)
	}
}

func (g *generator) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	backend, err := g.client(ctx)
	if err != nil {
		return nil, err
	}
	return backend.GenerateContent(ctx, model, contents, config)
}

func (g *generator) CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	backend, err := g.client(ctx)
	if err != nil {
		return nil, err
	}
	return backend.CountTokens(ctx, model, contents, config)
}

// Unavailable is a generator every call of which fails with err: the
// model of an agent built without credentials (err says which are
// missing).
func Unavailable(err error) ContentGenerator { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(nil, u.err) }
}

func (u unavailable) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return nil, u.err
}

func (u unavailable) CountTokens(context.Context, string, []*genai.Content, *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	return nil, u.err
}

// CodeAssistClient is gen's Code Assist client, made now if no request made it
// yet, when gen is NewGenerator's (recorded or not) for a type that
// reaches the model through Code Assist (oauth-personal, cloud-shell,
// compute ADC); ok is
// false for any other generator.
func CodeAssistClient(ctx context.Context, gen ContentGenerator) (client *codeassist.Client, ok bool, err error) {
	g, isGenerator := unwrap(gen).(*generator)
	if !isGenerator {
		return nil, false, nil
	}
	switch g.auth.Type {
	case OAuthPersonal, CloudShell, ComputeADC:
	default:
		return nil, false, nil
	}
	backend, err := g.client(ctx)
	if err != nil {
		return nil, true, err
	}
	client, ok = backend.(*codeassist.Client)
	return client, ok, nil
}
