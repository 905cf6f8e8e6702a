package action

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
)

// Env is what the runner's environment says: GitHub's standard
// variables and the secrets to keep out of every output.
type Env struct {
	EventName   string // GITHUB_EVENT_NAME
	EventPath   string // GITHUB_EVENT_PATH
	Repository  string // GITHUB_REPOSITORY, owner/name
	APIURL      string // GITHUB_API_URL
	Token       string // GITHUB_TOKEN
	Output      string // GITHUB_OUTPUT
	StepSummary string // GITHUB_STEP_SUMMARY
	RunnerTemp  string // RUNNER_TEMP
	Workspace   string // GITHUB_WORKSPACE
	RefName     string // GITHUB_REF_NAME: the branch the workflow runs on
	// Inputs are action.yml's (INPUT_PROMPT, INPUT_BASE, INPUT_SESSION).
	Inputs Inputs
	// Secrets are values no output may hold: the secret variables', and
	// the token as git's authorization header carries it.
	Secrets []string
}

// secretVars are the variables whose values are secrets.
var secretVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GITHUB_TOKEN"}

// EnvFrom reads Env from getenv.
func EnvFrom(getenv func(string) string) Env {
	e := Env{
		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		Repository:  getenv("GITHUB_REPOSITORY"),
		APIURL:      getenv("GITHUB_API_URL"),
		Token:       getenv("GITHUB_TOKEN"),
		Output:      getenv("GITHUB_OUTPUT"),
		StepSummary: getenv("GITHUB_STEP_SUMMARY"),
		RunnerTemp:  getenv("RUNNER_TEMP"),
		Workspace:   getenv("GITHUB_WORKSPACE"),
		RefName:     getenv("GITHUB_REF_NAME"),
		Inputs:      Inputs{Prompt: getenv("INPUT_PROMPT"), Base: getenv("INPUT_BASE"), Session: getenv("INPUT_SESSION")},
	}
	for _, name := range secretVars {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			e.Secrets = append(e.Secrets, v)
		}
	}
	if e.Token != "" {
		e.Secrets = append(e.Secrets, fetchsource.BasicAuth(e.Token))
	}
	return e
}

// redact is s with every secret replaced by ***.
func (e Env) redact(s string) string {
	for _, v := range e.Secrets {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}
