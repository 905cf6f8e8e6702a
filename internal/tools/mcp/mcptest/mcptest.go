// Package mcptest runs remote MCP servers on loopback for tests, built with
// the SDK gemini-ls's client uses: one speaking only SSE, and one speaking
// streamable HTTP behind OAuth, with a fake authorization server (metadata
// discovery, dynamic client registration, authorization code with PKCE,
// refresh) whose authorization endpoint a test plays the browser on; one
// of either transport that a client reaches through a redirect; and one
// that floods its client with a message that never ends.
package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to echo"`
}

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

// newMCPServer offers echo and add.
func newMCPServer(name string) *sdk.Server {
	server := sdk.NewServer(&sdk.Implementation{Name: name, Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " echo: " + a.Message}}}, nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.Itoa(a.A + a.B)}}}, nil, nil
		})
	return server
}

// SSEServer is an MCP server that speaks only the 2024-11-05 SSE transport.
type SSEServer struct {
	URL string // the SSE endpoint

	mu       sync.Mutex
	requests []Request
}

// Request is what the SSE server saw of a request.
type Request struct {
	Method string
	Header http.Header
}

// NewSSE starts an SSE-only server; it ends with the test.
func NewSSE(t testing.TB) *SSEServer {
	s := &SSEServer{}
	server := newMCPServer("sse")
	handler := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Header: r.Header.Clone()})
		s.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/sse"
	return s
}

// Requests are the requests the server received, in order.
func (s *SSEServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Redirected is an MCP server a client reaches through a redirect: URL
// answers every request with a 307 to the server, which is on another
// origin (127.0.0.2) or on URL's own. Both keep the headers of what
// reaches them.
type Redirected struct {
	URL    string // what a client is configured with
	Front  *origintest.Recorder
	Server *origintest.Recorder
}

// NewRedirected starts a server speaking SSE (sse) or streamable HTTP
// behind a redirect from another origin or (sameOrigin) its own; it ends
// with the test. Over SSE the session endpoint the server names is on URL
// too, so that its POSTs are redirected as well.
func NewRedirected(t testing.TB, sse, sameOrigin bool) *Redirected {
	server := newMCPServer("redirected")
	var handler http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	if sse {
		handler = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
	}
	r := &Redirected{Server: origintest.Record(handler)}
	if sameOrigin {
		mux := http.NewServeMux()
		r.Front = origintest.Record(origintest.Redirect(http.StatusTemporaryRedirect, "/moved"))
		mux.Handle("/mcp", r.Front)
		mux.Handle("/moved/", http.StripPrefix("/moved", r.Server))
		front := httptest.NewServer(mux)
		t.Cleanup(front.Close)
		r.URL = front.URL + "/mcp"
		return r
	}
	back := origintest.NewServer(t, r.Server)
	r.Front = origintest.Record(origintest.Redirect(http.StatusTemporaryRedirect, back.URL))
	front := httptest.NewServer(r.Front)
	t.Cleanup(front.Close)
	r.URL = front.URL + "/mcp"
	return r
}

// FloodOptions say how a Flood server floods.
type FloodOptions struct {
	// SSE serves the 2024-11-05 SSE transport; else streamable HTTP.
	SSE bool
	// JSON makes a streamable HTTP server answer application/json, not
	// an SSE stream.
	JSON bool
	// In is the request whose answer never ends: "initialize",
	// "tools/list", or "tools/call" of the tool flood.
	In string
}

// Flood is an MCP server (tools echo, add and flood) that answers one
// request with a message that never ends: one endless line of x, where a
// `data:` line or a JSON string should have ended, made as it is sent. It
// stops only when the client stops reading, or once it has sent
// FloodLimit bytes, which a client that bounds its reads never takes: the
// test then fails.
type Flood struct {
	URL string
}

// FloodLimit is how much of an endless message a Flood server sends
// before it gives up on the client.
const FloodLimit = 256 << 20

// floodMarker is the text the server's answer says where the flood goes.
const floodMarker = "FLOOD-MARKER-a9f3"

// NewFlood starts a Flood server; it ends with the test.
func NewFlood(t testing.TB, opts FloodOptions) *Flood {
	var serverOpts sdk.ServerOptions
	if opts.In == "initialize" {
		serverOpts.Instructions = floodMarker
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "flood", Version: "1"}, &serverOpts)
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "flood echo: " + a.Message}}}, nil, nil
		})
	description := "Answers at length."
	if opts.In == "tools/list" {
		description = floodMarker
	}
	sdk.AddTool(server, &sdk.Tool{Name: "flood", Description: description},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: floodMarker}}}, nil, nil
		})
	var handler http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{JSONResponse: opts.JSON})
	if opts.SSE {
		handler = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
	}
	var overran atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(&floodWriter{ResponseWriter: w, overran: &overran}, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		if overran.Load() {
			t.Errorf("the client read %d MiB of one message: nothing bounds what it reads", FloodLimit>>20)
		}
	})
	return &Flood{URL: ts.URL}
}

// floodWriter writes an endless run of x in place of floodMarker.
type floodWriter struct {
	http.ResponseWriter
	overran *atomic.Bool
}

func (w *floodWriter) Write(p []byte) (int, error) {
	i := bytes.Index(p, []byte(floodMarker))
	if i < 0 {
		return w.ResponseWriter.Write(p)
	}
	if _, err := w.ResponseWriter.Write(p[:i]); err != nil {
		return 0, err
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	rc := http.NewResponseController(w.ResponseWriter)
	for sent := 0; sent < FloodLimit; sent += len(chunk) {
		if _, err := w.ResponseWriter.Write(chunk); err != nil {
			return 0, err
		}
		if err := rc.Flush(); err != nil {
			return 0, err
		}
	}
	w.overran.Store(true)
	return 0, errors.New("the client read the whole flood")
}

func (w *floodWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// OAuthServer is a streamable HTTP MCP server at URL that requires a bearer
// token from its own authorization server, on the same origin.
type OAuthServer struct {
	URL    string // the MCP endpoint
	Issuer string // the authorization server
	// TokenLifetime is the expires_in of the tokens it grants.
	TokenLifetime time.Duration

	mu       sync.Mutex
	clients  map[string][]string // client id → redirect URIs
	codes    map[string]grant
	access   map[string]bool // valid access tokens
	refresh  map[string]string
	counts   Counts
	lastAuth url.Values
	// iss is what its authorization responses name as their issuer
	// (RFC 9207, which its metadata promises): Issuer unless SendIss
	// changed it.
	iss string
}

// Counts say what the authorization server did.
type Counts struct {
	Registrations, Authorizations, CodeGrants, Refreshes, Unauthorized int
}

type grant struct {
	client, redirect, challenge string
}

// NewOAuth starts an OAuth-protected server; it ends with the test.
func NewOAuth(t testing.TB) *OAuthServer {
	o := &OAuthServer{TokenLifetime: time.Hour, clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]bool{}, refresh: map[string]string{}}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	o.URL, o.Issuer, o.iss = ts.URL+"/mcp", ts.URL, ts.URL
	server := newMCPServer("oauth")
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	prmURL := ts.URL + "/.well-known/oauth-protected-resource/mcp"
	protect := auth.RequireBearerToken(o.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})
	mux.Handle("/mcp", protect(mcpHandler))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: o.URL, AuthorizationServers: []string{o.Issuer}, ScopesSupported: []string{"tools"},
	}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": o.Issuer, "authorization_endpoint": o.Issuer + "/authorize", "token_endpoint": o.Issuer + "/token",
			"registration_endpoint": o.Issuer + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"authorization_response_iss_parameter_supported": true,
		})
	})
	mux.HandleFunc("POST /register", o.register)
	mux.HandleFunc("GET /authorize", o.authorize)
	mux.HandleFunc("POST /token", o.token)
	return o
}

// SendIss makes its authorization responses name iss as their issuer
// (another than its own: a mix-up; "" names none).
func (o *OAuthServer) SendIss(iss string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.iss = iss
}

// Counts says what the authorization server did so far.
func (o *OAuthServer) Counts() Counts {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.counts
}

// LastAuthorization is the query of the latest authorization request.
func (o *OAuthServer) LastAuthorization() url.Values {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastAuth
}

// RevokeAccessTokens makes every access token granted so far invalid, as
// their expiry would; refresh tokens stay valid.
func (o *OAuthServer) RevokeAccessTokens() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.access = map[string]bool{}
}

// Browse plays the user's browser: it opens authURL, which the
// authorization server answers by redirecting to the client's loopback
// redirect URI with a code, and follows the redirect there.
func Browse(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the redirect answered %s", resp.Status)
	}
	return nil
}

func (o *OAuthServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.access[token] {
		o.counts.Unauthorized++
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"tools"}, Expiration: time.Now().Add(o.TokenLifetime)}, nil
}

func (o *OAuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata"})
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.counts.Registrations++
	id := "client-" + random()
	o.clients[id] = meta.RedirectURIs
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (o *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastAuth = q
	redirects, known := o.clients[q.Get("client_id")]
	switch {
	case !known:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case !slices.Contains(redirects, q.Get("redirect_uri")):
		http.Error(w, "unregistered redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "":
		http.Error(w, "not an authorization code request with PKCE", http.StatusBadRequest)
		return
	case q.Get("resource") != o.URL:
		http.Error(w, "wrong resource", http.StatusBadRequest)
		return
	}
	o.counts.Authorizations++
	code := random()
	o.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge")}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	if o.iss != "" {
		v.Set("iss", o.iss)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (o *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := o.codes[f.Get("code")]
		delete(o.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
		o.counts.CodeGrants++
		o.grantTokens(w, g.client)
	case "refresh_token":
		client, ok := o.refresh[f.Get("refresh_token")]
		if !ok || client != f.Get("client_id") {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
		delete(o.refresh, f.Get("refresh_token"))
		o.counts.Refreshes++
		o.grantTokens(w, client)
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
	}
}

// grantTokens answers with a new access token and refresh token; o.mu is
// held.
func (o *OAuthServer) grantTokens(w http.ResponseWriter, client string) {
	access, refresh := "at-"+random(), "rt-"+random()
	o.access[access] = true
	o.refresh[refresh] = client
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "refresh_token": refresh, "token_type": "Bearer",
		"expires_in": int(o.TokenLifetime.Seconds()), "scope": "tools",
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func random() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
