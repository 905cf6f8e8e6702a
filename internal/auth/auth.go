package auth

import (
	"cmp"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"golang.org/x/net/http/httpproxy"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Auth types, named as Gemini CLI names them (AuthType in
// contentGenerator.ts).
const (
	GeminiAPIKey  = "gemini-api-key"
	VertexAI      = "vertex-ai"
	OAuthPersonal = "oauth-personal"
	CloudShell    = "cloud-shell"
	// ComputeADC is Gemini CLI's newer name for cloud-shell, which it writes
	// into the user's settings in Cloud Shell; served as cloud-shell.
	ComputeADC = "compute-default-credentials"
)

// Where the type came from.
const (
	FromSettings    = "settings"
	FromEnvironment = "environment"
	// FromDefault: neither named one; the Gemini API key is assumed, and
	// its absence reported.
	FromDefault = "default"
)

// Messages shown when credentials are missing, as Gemini CLI words them,
// then where to get a key (a key the API refuses is told the same page,
// apierror's setKey); noCredentials, when nothing chose a way in, adds
// the others gemini-ls has, which Gemini CLI offers in its auth dialog
// instead.
const (
	missingGeminiKey = "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!"
	getGeminiKey     = "Get a key at https://aistudio.google.com/apikey"
	noCredentials    = missingGeminiKey + "\n" +
		getGeminiKey + ", or choose another way in:\n" +
		"• " + codeassist.LoginHowTo + "\n" +
		"• Vertex AI: set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or with GOOGLE_API_KEY (express mode)."
	missingVertex = "When using Vertex AI, you must specify either:\n" +
		"• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.\n" +
		"• GOOGLE_API_KEY environment variable (if using express mode).\n" +
		"Update your environment and try again (no reload needed if using .env)!"
)

// Auth says how to reach the model.
type Auth struct {
	// Type is one of the auth types above.
	Type string
	// Source is FromSettings, FromEnvironment or FromDefault.
	Source string
	// Config is the genai client's configuration, for gemini-api-key and
	// vertex-ai.
	Config genai.ClientConfig
	// CodeAssist configures oauth-personal and cloud-shell.
	CodeAssist CodeAssist
	// CredentialsFile is GOOGLE_APPLICATION_CREDENTIALS as getenv read it,
	// for Application Default Credentials (vertex-ai with a project,
	// cloud-shell); the auth library looks in the usual places when empty.
	CredentialsFile string `json:",omitempty"`
	// Version names this build in the User-Agent header (gemini-ls/Version).
	Version string
	// Proxy picks the proxy of each request; http.ProxyFromEnvironment
	// when nil. Resolve sets it from the getenv it was given, so proxies
	// named in a .env file apply too.
	Proxy func(*http.Request) (*url.URL, error) `json:"-"`
	// proxyKey names the proxy settings Resolve made Proxy of, so that
	// Transports can tell two Auths' proxies apart (functions cannot be
	// compared); "" for an Auth not made by Resolve, whose Proxy, if set,
	// makes its transport shared with none. Nothing replaces the Proxy of
	// an Auth Resolve made.
	proxyKey string
	// rootCAs, when set, are the only certificate authorities its
	// transport trusts, in place of the system's: tests set it
	// (export_test.go) to serve an https endpoint of their own.
	rootCAs *x509.CertPool
}

// CodeAssist is where the Code Assist backend is and whose login it uses.
type CodeAssist struct {
	// Endpoint is CODE_ASSIST_ENDPOINT; codeassist.DefaultEndpoint when empty.
	Endpoint string
	// Project is GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID).
	Project string
	// CredsPath is Gemini CLI's cached login, for oauth-personal.
	CredsPath string
	// TokenURL refreshes the login; Google's when empty (tests change it).
	TokenURL string
}

// Error reports missing or invalid credentials; front ends show Message
// as it is.
type Error struct {
	Type    string
	Message string
	// Missing: the type's credentials are absent or unusable (no key, no
	// Vertex AI project, no cached Google login), which the user supplies
	// by entering a key or signing in; false for a malformed variable or
	// an enforced type.
	Missing bool
}

func (e *Error) Error() string { return e.Message }

// Resolve picks the auth type, selectedType (the user's
// security.auth.selectedType) or else the environment's, and checks its
// credentials. getenv reads the environment (the process's with .env
// layered under it, or a fake in tests); the cached Google login is looked
// for in Gemini CLI's user directory (settings.UserDir of getenv).
// Missing credentials, an unknown type and a variable the type reads that
// is not of its form (a location that is not a region name, a project
// that is not a project ID, a base URL that is not an https URL or http to
// this machine) are an
// *Error; endpoints are built only from values that passed.
func Resolve(selectedType string, getenv func(string) string) (Auth, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	a := Auth{Type: strings.TrimSpace(selectedType), Source: FromSettings}
	a.Proxy, a.proxyKey = proxyFunc(env)
	a.CredentialsFile = env("GOOGLE_APPLICATION_CREDENTIALS")
	if a.Type == "" {
		a.Type, a.Source = typeFromEnv(env), FromEnvironment
		if a.Type == "" {
			a.Type, a.Source = defaultType(getenv), FromDefault
		}
	}
	switch a.Type {
	case GeminiAPIKey:
		key, baseURL := env("GEMINI_API_KEY"), env("GOOGLE_GEMINI_BASE_URL")
		if key == "" {
			return Auth{}, &Error{Type: a.Type, Message: a.missingKey(), Missing: true}
		}
		if err := checkBaseURL("GOOGLE_GEMINI_BASE_URL", baseURL); err != nil {
			return Auth{}, a.invalid(err)
		}
		a.Config = genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: key}
		a.Config.HTTPOptions.BaseURL = baseURL
	case VertexAI:
		a.Config = genai.ClientConfig{Backend: genai.BackendVertexAI}
		project, location, key := env("GOOGLE_CLOUD_PROJECT"), env("GOOGLE_CLOUD_LOCATION"), env("GOOGLE_API_KEY")
		baseURL := env("GOOGLE_VERTEX_BASE_URL")
		// Checked even when express mode leaves them unused: a value that
		// is set and malformed is a mistake to report, not to pass over.
		if err := cmp.Or(checkProject("GOOGLE_CLOUD_PROJECT", project), checkLocation("GOOGLE_CLOUD_LOCATION", location),
			checkBaseURL("GOOGLE_VERTEX_BASE_URL", baseURL)); err != nil {
			return Auth{}, a.invalid(err)
		}
		switch {
		case project != "" && location != "":
			// Credentials come from Application Default Credentials.
			a.Config.Project, a.Config.Location = project, location
		case key != "":
			// genai fills a project and location missing here from the
			// process environment, but drops them again in favour of
			// this key (an explicit key wins over implicit ones).
			a.Config.APIKey = key
		default:
			return Auth{}, &Error{Type: a.Type, Message: missingVertex, Missing: true}
		}
		a.Config.HTTPOptions.BaseURL = baseURL
	case OAuthPersonal, CloudShell, ComputeADC:
		projectVar, project := codeAssistProject(env)
		a.CodeAssist = CodeAssist{Endpoint: env("CODE_ASSIST_ENDPOINT"), Project: project}
		if err := cmp.Or(checkProject(projectVar, project), checkBaseURL("CODE_ASSIST_ENDPOINT", a.CodeAssist.Endpoint)); err != nil {
			return Auth{}, a.invalid(err)
		}
		if a.Type == OAuthPersonal {
			userDir := settings.UserDir(getenv)
			if userDir == "" {
				return Auth{}, &Error{Type: a.Type, Message: "No home directory to find Gemini CLI's cached Google login in (" + settings.HomeVariable + " and GEMINI_CLI_HOME are unset). " + codeassist.LoginHowTo, Missing: true}
			}
			a.CodeAssist.CredsPath = filepath.Join(userDir, codeassist.CredsFile)
			if err := codeassist.CheckLogin(a.CodeAssist.CredsPath); err != nil {
				return Auth{}, &Error{Type: a.Type, Message: err.Error(), Missing: true}
			}
		}
	default:
		return Auth{}, &Error{Type: a.Type, Message: fmt.Sprintf(
			"Invalid auth method selected: %q (security.auth.selectedType). Use one of %s, %s, %s or %s.",
			a.Type, GeminiAPIKey, VertexAI, OAuthPersonal, CloudShell)}
	}
	return a, nil
}

// missingKey is why the Gemini API key a is for is missing: only the key
// when settings chose it, every way in when nothing did (no credentials
// at all).
func (a Auth) missingKey() string {
	if a.Source == FromDefault {
		return noCredentials
	}
	return missingGeminiKey + "\n" + getGeminiKey + "."
}

// typeFromEnv is Gemini CLI's getAuthTypeFromEnv, for the types gemini-ls
// serves; "" when the environment names none.
func typeFromEnv(env func(string) string) string {
	switch {
	case isTrue(env("GOOGLE_GENAI_USE_GCA")):
		return OAuthPersonal
	case isTrue(env("GOOGLE_GENAI_USE_VERTEXAI")):
		return VertexAI
	case env("GEMINI_API_KEY") != "":
		return GeminiAPIKey
	case isTrue(env("CLOUD_SHELL")), isTrue(env("GEMINI_CLI_USE_COMPUTE_ADC")):
		return CloudShell
	}
	return ""
}

// defaultType is the type used when neither settings nor the environment
// name one: the cached Google login when there is one (gemini-ls's own
// sign-in writes it without touching settings.json, and the user who
// signed in means to use it), else the Gemini API key, whose absence is
// then reported.
func defaultType(getenv func(string) string) string {
	if dir := settings.UserDir(getenv); dir != "" && codeassist.CheckLogin(filepath.Join(dir, codeassist.CredsFile)) == nil {
		return OAuthPersonal
	}
	return GeminiAPIKey
}

// isTrue accepts "true" as Gemini CLI does, and the "1" and any case the
// genai SDKs also accept.
func isTrue(v string) bool {
	v = strings.ToLower(v)
	return v == "true" || v == "1"
}

// codeAssistProject is the project setup.ts asks Code Assist for, and the
// variable it came from.
func codeAssistProject(env func(string) string) (name, value string) {
	if p := env("GOOGLE_CLOUD_PROJECT"); p != "" {
		return "GOOGLE_CLOUD_PROJECT", p
	}
	return "GOOGLE_CLOUD_PROJECT_ID", env("GOOGLE_CLOUD_PROJECT_ID")
}

// invalid is the *Error of a's type for a malformed variable.
func (a Auth) invalid(err error) error {
	return &Error{Type: a.Type, Message: err.Error()}
}

// proxyFunc reads the proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
// either case) through env, as http.ProxyFromEnvironment reads them from
// the process; key is the settings read, never "".
func proxyFunc(env func(string) string) (proxy func(*http.Request) (*url.URL, error), key string) {
	either := func(upper string) string {
		if v := env(upper); v != "" {
			return v
		}
		return env(strings.ToLower(upper))
	}
	cfg := httpproxy.Config{
		HTTPProxy:  either("HTTP_PROXY"),
		HTTPSProxy: either("HTTPS_PROXY"),
		NoProxy:    either("NO_PROXY"),
		CGI:        env("REQUEST_METHOD") != "",
	}
	byURL := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return byURL(r.URL) }, fmt.Sprintf("%#v", cfg)
}

// UserAgent is the User-Agent gemini-ls sends.
func (a Auth) UserAgent() string {
	v := a.Version
	if v == "" {
		v = "dev"
	}
	return "gemini-ls/" + v
}

// CheckEnforced refuses, in Gemini CLI 0.61's words
// (validateNonInteractiveAuth), an auth type other than enforced, the
// settings' security.auth.enforcedType ("" enforces none): the selected
// type, else the environment's, else the cached Google login, which
// gemini-ls uses when nothing names a type (0.61 counts it as none).
func CheckEnforced(enforced, selectedType string, getenv func(string) string) error {
	enforced = strings.TrimSpace(enforced)
	if enforced == "" {
		return nil
	}
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	current := strings.TrimSpace(selectedType)
	if current == "" {
		current = typeFromEnv(env)
	}
	if current == "" && defaultType(getenv) == OAuthPersonal {
		current = OAuthPersonal
	}
	switch current {
	case enforced:
		return nil
	case "":
		return &Error{Type: enforced, Message: fmt.Sprintf("The auth type '%s' is enforced, but no authentication is configured.", enforced)}
	}
	return &Error{Type: current, Message: fmt.Sprintf("The enforced authentication type is '%s', but the current type is '%s'. Please re-authenticate with the correct type.", enforced, current)}
}
