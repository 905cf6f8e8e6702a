package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// authMethods are the logins a client can choose, with Gemini CLI's ids:
// the cached Google login, a Gemini API key, Vertex AI.
func authMethods() []sdk.AuthMethod {
	method := func(id, name, description string, meta map[string]any) sdk.AuthMethod {
		return sdk.AuthMethod{Agent: &sdk.AuthMethodAgent{Id: id, Name: name, Description: &description, Meta: meta}}
	}
	return []sdk.AuthMethod{
		method(auth.OAuthPersonal, "Log in with Google", "Sign in with Google in the browser, or use the login cached before (by gemini-ls or Gemini CLI)", nil),
		method(auth.GeminiAPIKey, "Gemini API key", "Use GEMINI_API_KEY, or the key passed in _meta[\"api-key\"]", map[string]any{"api-key": map[string]any{"provider": "google"}}),
		method(auth.VertexAI, "Vertex AI", "Use GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY", nil),
	}
}

// terminalSignIn is the Google sign-in run in a terminal: the client runs
// the agent as it is configured with --login appended (`gemini-ls acp
// --login`), which signs in as `gemini-ls login` does, pasted code and
// all where no browser opens here, and exits 0 once the login is cached.
// Offered only to a client that declares terminal authentication, as the
// protocol asks; the client never passes it to authenticate.
func terminalSignIn() sdk.AuthMethod {
	return sdk.AuthMethod{Terminal: &sdk.AuthMethodTerminalInline{
		Id:          TerminalSignInMethod,
		Name:        "Log in with Google in a terminal",
		Description: sdk.Ptr("Sign in with Google in a terminal, with a code to paste where no browser opens (Code Assist Standard and Enterprise; individual Google accounts are served by Antigravity CLI now)"),
		Args:        []string{"--login"},
	}}
}

// TerminalSignInMethod is the id of terminalSignIn.
const TerminalSignInMethod = "gemini-ls-login"

func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	methods := authMethods()
	if p.ClientCapabilities.Auth.Terminal {
		methods = append(methods, terminalSignIn())
	}
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return sdk.InitializeResponse{
		// The one version there is; a client asking for another gets it
		// too, and decides (the protocol's negotiation).
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "gemini-ls", Title: sdk.Ptr("gemini-ls"), Version: s.opts.Version},
		AuthMethods:     methods,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			Auth:               sdk.AgentAuthCapabilities{Logout: &sdk.LogoutCapabilities{}},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},

				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{},
			},
		},
	}, nil
}

// Authenticate chooses the login for the sessions created from now on:
// the method's credentials must be there (a key may come in _meta), or
// the answer says what is missing, as Gemini CLI words it. The Google
// login, when none is cached, is signed in first, in the browser, as
// Gemini CLI's authenticate does.
func (s *server) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	method := strings.TrimSpace(p.MethodId)
	known := false
	for _, m := range authMethods() {
		known = known || m.Agent.Id == method
	}
	if method == TerminalSignInMethod {
		return sdk.AuthenticateResponse{}, invalidParams(fmt.Sprintf("%s is a terminal sign-in: run the agent with --login in a terminal, then initialize again", method))
	}
	if !known {
		return sdk.AuthenticateResponse{}, invalidParams(fmt.Sprintf("unknown auth method %q", p.MethodId))
	}
	key, _ := p.Meta["api-key"].(string)
	getenv := s.getenv(key)
	_, err := auth.Resolve(method, getenv)
	if err != nil && method == auth.OAuthPersonal && !hasCachedLogin(getenv) {
		if err = s.signIn(ctx, getenv); err == nil {
			_, err = auth.Resolve(method, getenv)
		}
	}
	if err != nil {
		return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	s.authType, s.loggedOut = method, false
	if key != "" {
		s.apiKey = key
	}
	s.mu.Unlock()
	return sdk.AuthenticateResponse{}, nil
}

// getenv is the environment sessions see: the process's, with the API key
// the client passed in authenticate (or key) as GEMINI_API_KEY.
func (s *server) getenv(key string) func(string) string {
	if key == "" {
		s.mu.Lock()
		key = s.apiKey
		s.mu.Unlock()
	}
	if key == "" {
		return s.opts.Getenv
	}
	return func(name string) string {
		if name == "GEMINI_API_KEY" {
			return key
		}
		return s.opts.Getenv(name)
	}
}

// lookupEnv is getenv as a LookupEnv.
func (s *server) lookupEnv() func(string) (string, bool) {
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	if key == "" {
		return s.opts.LookupEnv
	}
	return func(name string) (string, bool) {
		if name == "GEMINI_API_KEY" {
			return key, true
		}
		return s.opts.LookupEnv(name)
	}
}
