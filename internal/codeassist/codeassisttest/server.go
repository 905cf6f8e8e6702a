// Package codeassisttest fakes Google's Code Assist server and the OAuth
// token endpoint on a loopback port, for tests of the "Sign in with Google"
// backend without a network.
//
// The model's behaviour is a geminitest script: generate and countTokens
// requests are unwrapped ({model, project, user_prompt_id, request} →
// the Gemini API request), answered by a geminitest.Server, and the
// answers wrapped back ({"response": ..., "traceId"}) as the real server
// does; errors (status, body, Retry-After) pass through unchanged. Setup
// (loadCodeAssist, onboardUser, the operation) follows Options; the
// data-collection opt-in (getCodeAssistGlobalUserSetting,
// setCodeAssistGlobalUserSetting) starts as Options.DataCollectionOptIn.
// Every v1internal request must carry "Authorization: Bearer <token>" with a
// token the fake issued or Options.AccessToken; others are answered 401.
//
//	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "t"},
//		geminitest.TextTurn("hello"))
//	// CODE_ASSIST_ENDPOINT=srv.URL, token endpoint srv.TokenURL()
package codeassisttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Gemini CLI's OAuth client id; the token endpoint refuses others.
const geminiCLIClientID = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"

// Tier is a user tier as loadCodeAssist reports it.
type Tier struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	IsDefault bool   `json:"isDefault,omitempty"`
}

// Options configure the fake.
type Options struct {
	// AccessToken is accepted from the start ("" accepts only tokens the
	// token endpoint grants).
	AccessToken string
	// RefreshToken is the one the token endpoint accepts; "refresh" when
	// empty. Granted tokens are "granted-1", "granted-2", ...
	RefreshToken string
	// CurrentTier is the user's tier; nil means not onboarded yet:
	// loadCodeAssist answers AllowedTiers and the client must onboard.
	CurrentTier *Tier
	// AllowedTiers offered to a user not onboarded; one default
	// standard-tier when empty.
	AllowedTiers []Tier
	// Project is the project loadCodeAssist (for a current tier) or the
	// finished onboarding (otherwise) reports; "" reports none.
	Project string
	// IneligibleReasons are reported as ineligibleTiers.
	IneligibleReasons []string
	// UnsupportedClient answers loadCodeAssist as the real server has
	// answered an individual account since 2026-06-18: no current tier,
	// the Standard tier (which needs the user's own project) allowed, and
	// the free tier ineligible with reason UNSUPPORTED_CLIENT and
	// UnsupportedClientMessage.
	UnsupportedClient bool
	// PendingPolls is how many operation polls answer "not done" first.
	PendingPolls int
	// ExpiresIn is the lifetime of granted tokens, in seconds; 3600 when 0.
	ExpiresIn int
	// NewRefreshToken, when set, is granted with each token and replaces
	// RefreshToken, as a token endpoint that rotates refresh tokens does.
	NewRefreshToken string
	// DataCollectionOptIn is the user's free-tier data-collection choice
	// getCodeAssistGlobalUserSetting answers at first; nil answers no
	// setting ({}). setCodeAssistGlobalUserSetting changes it.
	DataCollectionOptIn *bool
}

// Request is one request the fake received.
type Request struct {
	// Method is the RPC ("loadCodeAssist", "onboardUser", "getOperation",
	// "streamGenerateContent", "generateContent", "countTokens",
	// "getCodeAssistGlobalUserSetting", "setCodeAssistGlobalUserSetting",
	// "token").
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server is the fake Code Assist server.
type Server struct {
	// URL is the endpoint to give the client (CODE_ASSIST_ENDPOINT).
	URL string
	// Model answers the generate requests; push turns to it or read what
	// it received in the Gemini API's shape.
	Model *geminitest.Server

	opts Options
	http *http.Server

	mu       sync.Mutex
	requests []Request
	valid    map[string]bool // access tokens accepted
	grants   int
	polls    int
	traces   int
}

// NewTestServer starts a fake closed when t ends, its model scripted with
// turns.
func NewTestServer(t testing.TB, opts Options, turns ...geminitest.Turn) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting fake Code Assist server: %v", err)
	}
	if opts.RefreshToken == "" {
		opts.RefreshToken = "refresh"
	}
	if len(opts.AllowedTiers) == 0 {
		opts.AllowedTiers = []Tier{{ID: "standard-tier", Name: "Gemini Code Assist Standard", IsDefault: true}}
	}
	s := &Server{
		URL:   "http://" + ln.Addr().String(),
		Model: geminitest.NewTestServer(t, turns...),
		opts:  opts,
		valid: map[string]bool{},
	}
	if opts.AccessToken != "" {
		s.valid[opts.AccessToken] = true
	}
	s.http = &http.Server{Handler: s}
	go s.http.Serve(ln)
	t.Cleanup(func() { s.http.Close() })
	return s
}

// TokenURL is the fake OAuth token endpoint.
func (s *Server) TokenURL() string { return s.URL + "/token" }

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsFor returns the requests of one RPC.
func (s *Server) RequestsFor(method string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Grants is how many tokens the token endpoint granted.
func (s *Server) Grants() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "reading the body: "+err.Error())
		return
	}
	method := ""
	switch {
	case r.URL.Path == "/token":
		method = "token"
	case strings.HasPrefix(r.URL.Path, "/v1internal:"):
		method = strings.TrimPrefix(r.URL.Path, "/v1internal:")
	case strings.HasPrefix(r.URL.Path, "/v1internal/operations/"):
		method = "getOperation"
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	authorized := s.valid[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	s.mu.Unlock()

	if method == "token" {
		s.token(w, r, body)
		return
	}
	if !authorized {
		writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
		return
	}
	wantPost := method != "getOperation" && method != "getCodeAssistGlobalUserSetting"
	if (r.Method == http.MethodPost) != wantPost {
		writeError(w, http.StatusMethodNotAllowed, "INVALID_ARGUMENT", fmt.Sprintf("%s %s", r.Method, r.URL.Path))
		return
	}
	switch method {
	case "loadCodeAssist":
		s.loadCodeAssist(w)
	case "onboardUser":
		writeJSON(w, http.StatusOK, map[string]any{"name": "operations/onboard-1", "done": false})
	case "getOperation":
		s.operation(w, r)
	case "generateContent", "streamGenerateContent", "countTokens":
		s.generate(w, r, method, body)
	case "getCodeAssistGlobalUserSetting":
		s.mu.Lock()
		optIn := s.opts.DataCollectionOptIn
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, userSetting(optIn))
	case "setCodeAssistGlobalUserSetting":
		s.setUserSetting(w, body)
	default:
		writeError(w, http.StatusNotFound, "NOT_FOUND", "codeassisttest: unknown path "+r.URL.Path)
	}
}

// UnsupportedClientMessage is the reasonMessage the real server gives an
// individual account, word for word as Gemini CLI users have reported it
// (google-gemini/gemini-cli issues 28229, 28745; 0.58's IneligibleTierError).
const UnsupportedClientMessage = "This client is no longer supported for Gemini Code Assist for individuals. To continue using Gemini, please migrate to the Antigravity suite of products: https://antigravity.google"

// unsupportedClient is the loadCodeAssist answer to an individual account.
func unsupportedClient() map[string]any {
	return map[string]any{
		"allowedTiers": []map[string]any{{
			"id": "standard-tier", "name": "Gemini Code Assist", "isDefault": true, "userDefinedCloudaicompanionProject": true,
		}},
		"ineligibleTiers": []map[string]string{{
			"reasonCode": "UNSUPPORTED_CLIENT", "reasonMessage": UnsupportedClientMessage,
			"tierId": "free-tier", "tierName": "Gemini Code Assist for individuals",
		}},
	}
}

func (s *Server) loadCodeAssist(w http.ResponseWriter) {
	if s.opts.UnsupportedClient {
		writeJSON(w, http.StatusOK, unsupportedClient())
		return
	}
	resp := map[string]any{}
	if s.opts.CurrentTier != nil {
		resp["currentTier"] = s.opts.CurrentTier
		if s.opts.Project != "" {
			resp["cloudaicompanionProject"] = s.opts.Project
		}
	} else {
		resp["allowedTiers"] = s.opts.AllowedTiers
	}
	var inel []map[string]string
	for _, reason := range s.opts.IneligibleReasons {
		inel = append(inel, map[string]string{"reasonCode": "INELIGIBLE_ACCOUNT", "reasonMessage": reason, "tierId": "free-tier"})
	}
	if inel != nil {
		resp["ineligibleTiers"] = inel
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) operation(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1internal/operations/onboard-1" {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no operation "+r.URL.Path)
		return
	}
	s.mu.Lock()
	s.polls++
	done := s.polls > s.opts.PendingPolls
	s.mu.Unlock()
	op := map[string]any{"name": "operations/onboard-1", "done": done}
	if done {
		resp := map[string]any{"@type": "type.googleapis.com/google.internal.cloud.code.v1internal.OnboardUserResponse"}
		if s.opts.Project != "" {
			resp["cloudaicompanionProject"] = map[string]any{"id": s.opts.Project, "name": s.opts.Project}
		}
		op["response"] = resp
	}
	writeJSON(w, http.StatusOK, op)
}

// DataCollectionOptIn is the user's data-collection choice as the fake
// holds it now; nil when none was given or set.
func (s *Server) DataCollectionOptIn() *bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.DataCollectionOptIn
}

// setUserSetting records the choice for the user's project, which the
// request must name, as the real server requires.
func (s *Server) setUserSetting(w http.ResponseWriter, body []byte) {
	var req struct {
		Project string `json:"cloudaicompanionProject"`
		OptIn   *bool  `json:"freeTierDataCollectionOptin"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.OptIn == nil || req.Project == "" || req.Project != s.opts.Project {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("codeassisttest: want {cloudaicompanionProject: %q, freeTierDataCollectionOptin}, got %s", s.opts.Project, body))
		return
	}
	s.mu.Lock()
	s.opts.DataCollectionOptIn = req.OptIn
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, userSetting(req.OptIn))
}

// userSetting is getCodeAssistGlobalUserSetting's answer for optIn.
func userSetting(optIn *bool) map[string]any {
	if optIn == nil {
		return map[string]any{}
	}
	return map[string]any{"freeTierDataCollectionOptin": *optIn}
}

// token grants an access token for Gemini CLI's refresh token (an
// installed application's client) or a service account's assertion, as
// Google's token endpoint does.
func (s *Server) token(w http.ResponseWriter, r *http.Request, body []byte) {
	form, err := parseForm(body)
	if err != nil || r.Method != http.MethodPost {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	switch form.Get("grant_type") {
	case "refresh_token":
		if form.Get("client_id") != geminiCLIClientID || form.Get("client_secret") == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
			return
		}
		s.mu.Lock()
		refresh := s.opts.RefreshToken
		s.mu.Unlock()
		if form.Get("refresh_token") != refresh {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
			return
		}
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		// A service account's signed assertion (Application Default
		// Credentials); the fake does not check the signature.
		if form.Get("assertion") == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	s.mu.Lock()
	s.grants++
	token := fmt.Sprintf("granted-%d", s.grants)
	s.valid[token] = true
	s.mu.Unlock()
	expiresIn := s.opts.ExpiresIn
	if expiresIn == 0 {
		expiresIn = 3600
	}
	grant := map[string]any{
		"access_token": token, "token_type": "Bearer", "expires_in": expiresIn,
		"scope": "https://www.googleapis.com/auth/cloud-platform",
	}
	if s.opts.NewRefreshToken != "" {
		grant["refresh_token"] = s.opts.NewRefreshToken
		s.mu.Lock()
		s.opts.RefreshToken = s.opts.NewRefreshToken
		s.mu.Unlock()
	}
	if form.Get("grant_type") == "refresh_token" {
		grant["id_token"] = "id-" + token // Gemini CLI's login has one; its content is not read
	}
	writeJSON(w, http.StatusOK, grant)
}

// generate unwraps the Code Assist request, has the model fake answer it,
// and wraps the answer back.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, method string, body []byte) {
	var req struct {
		Model   string          `json:"model"`
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Request) == 0 {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("codeassisttest: want {model, request, ...}: %v", err))
		return
	}
	inner := req.Request
	model := req.Model
	if method == "countTokens" {
		var count struct {
			Model    string          `json:"model"`
			Contents json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(req.Request, &count); err != nil || !strings.HasPrefix(count.Model, "models/") {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", `codeassisttest: countTokens wants {"request": {"model": "models/<m>", "contents"}}`)
			return
		}
		model = strings.TrimPrefix(count.Model, "models/")
		inner, _ = json.Marshal(map[string]json.RawMessage{"contents": count.Contents})
	}
	url := s.Model.URL + "/v1beta/models/" + model + ":" + method
	if method == "streamGenerateContent" {
		if r.URL.Query().Get("alt") != "sse" {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "codeassisttest: streamGenerateContent without alt=sse")
			return
		}
		url += "?alt=sse"
	}
	upstream, err := http.NewRequestWithContext(r.Context(), http.MethodPost, url, bytes.NewReader(inner))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "INTERNAL", err.Error())
		return
	}
	upstream.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(upstream)
	if err != nil {
		writeError(w, http.StatusBadGateway, "UNAVAILABLE", err.Error())
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || method == "countTokens" {
		for _, h := range []string{"Content-Type", "Retry-After"} {
			if v := resp.Header.Get(h); v != "" {
				w.Header().Set(h, v)
			}
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		return
	}
	if method == "generateContent" {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(s.wrap(data))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", s.wrap([]byte(data))); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// wrap is a Gemini API answer as Code Assist sends it; an error stays as it is.
func (s *Server) wrap(data []byte) []byte {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) == nil && probe["error"] != nil {
		return data
	}
	s.mu.Lock()
	s.traces++
	trace := fmt.Sprintf("trace-%d", s.traces)
	s.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"response": json.RawMessage(data), "traceId": trace})
	return out
}

func writeError(w http.ResponseWriter, code int, status, message string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": message, "status": status}})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("codeassisttest: encoding an answer: %v", err))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	w.Write(data)
}

func parseForm(body []byte) (url.Values, error) { return url.ParseQuery(string(body)) }
