package agent

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"google.golang.org/genai"
)

// Auth types, named as Gemini CLI names them.
const (
	AuthGeminiAPIKey = "gemini-api-key"
	AuthVertexAI     = "vertex-ai"
)

// Messages shown when credentials are missing, as Gemini CLI words them.
const (
	missingGeminiKey = "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!"
	missingVertex    = "When using Vertex AI, you must specify either:\n" +
		"• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.\n" +
		"• GOOGLE_API_KEY environment variable (if using express mode).\n" +
		"Update your environment and try again (no reload needed if using .env)!"
)

// Auth says how to reach the model.
type Auth struct {
	// Type is AuthGeminiAPIKey or AuthVertexAI.
	Type   string
	Config genai.ClientConfig
	// Version names this build in the User-Agent header (gemini-ls/Version).
	Version string
}

// AuthError reports missing or invalid credentials; front ends show Message
// as is.
type AuthError struct {
	Type    string
	Message string
}

func (e *AuthError) Error() string { return e.Message }

// AuthFromEnv picks the auth mode from the environment, read through getenv
// (os.Getenv, or a fake in tests): Vertex AI when GOOGLE_GENAI_USE_VERTEXAI
// is true (project and location, or GOOGLE_API_KEY for express mode), else
// the Gemini API with GEMINI_API_KEY. GOOGLE_GEMINI_BASE_URL and
// GOOGLE_VERTEX_BASE_URL override the endpoint. Missing credentials are an
// *AuthError.
func AuthFromEnv(getenv func(string) string) (Auth, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if v := strings.ToLower(env("GOOGLE_GENAI_USE_VERTEXAI")); v == "true" || v == "1" {
		cfg := genai.ClientConfig{Backend: genai.BackendVertexAI}
		project, location, key := env("GOOGLE_CLOUD_PROJECT"), env("GOOGLE_CLOUD_LOCATION"), env("GOOGLE_API_KEY")
		switch {
		case project != "" && location != "":
			// Credentials come from Application Default Credentials.
			cfg.Project, cfg.Location = project, location
		case key != "":
			cfg.APIKey = key
		default:
			return Auth{}, &AuthError{Type: AuthVertexAI, Message: missingVertex}
		}
		cfg.HTTPOptions.BaseURL = env("GOOGLE_VERTEX_BASE_URL")
		return Auth{Type: AuthVertexAI, Config: cfg}, nil
	}
	key := env("GEMINI_API_KEY")
	if key == "" {
		return Auth{}, &AuthError{Type: AuthGeminiAPIKey, Message: missingGeminiKey}
	}
	cfg := genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: key}
	cfg.HTTPOptions.BaseURL = env("GOOGLE_GEMINI_BASE_URL")
	return Auth{Type: AuthGeminiAPIKey, Config: cfg}, nil
}

// UserAgent is the User-Agent gemini-ls sends.
func (a Auth) UserAgent() string {
	v := a.Version
	if v == "" {
		v = "dev"
	}
	return "gemini-ls/" + v
}

// NewGenerator returns a ContentGenerator over the genai models service.
//
// The genai client, and with it the credential lookup, is made on the
// first request, not here. For Vertex AI with Application Default
// Credentials that lookup reads credential files and, without any, probes
// the GCE metadata server; a front end makes its generator while the
// editor waits for initialize, and none of that belongs there. A failed
// creation is not kept: the next request tries again, so credentials set
// up after the failure are used without a restart.
func NewGenerator(auth Auth) ContentGenerator {
	return &genaiGenerator{auth: auth, creating: make(chan struct{}, 1)}
}

type genaiGenerator struct {
	auth Auth
	// creating is held while the client is made or read; a channel rather
	// than a mutex so that a caller whose context ends stops waiting.
	creating chan struct{}
	models   *genai.Models // nil until a creation succeeded
}

// client returns the models service, creating the genai client on first use.
func (g *genaiGenerator) client(ctx context.Context) (*genai.Models, error) {
	select {
	case g.creating <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.creating }()
	if g.models != nil {
		return g.models, nil
	}
	cfg := g.auth.Config
	headers := http.Header{}
	for k, v := range cfg.HTTPOptions.Headers {
		headers[k] = append([]string(nil), v...)
	}
	headers.Set("User-Agent", g.auth.UserAgent())
	cfg.HTTPOptions.Headers = headers
	client, err := genai.NewClient(ctx, &cfg)
	if err != nil {
		return nil, fmt.Errorf("creating %s client: %w", g.auth.Type, err)
	}
	g.models = client.Models
	return g.models, nil
}

func (g *genaiGenerator) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		models, err := g.client(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		models.GenerateContentStream(ctx, model, contents, config)(yield)
	}
}

func (g *genaiGenerator) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	models, err := g.client(ctx)
	if err != nil {
		return nil, err
	}
	return models.GenerateContent(ctx, model, contents, config)
}

func (g *genaiGenerator) CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error) {
	models, err := g.client(ctx)
	if err != nil {
		return nil, err
	}
	return models.CountTokens(ctx, model, contents, config)
}
