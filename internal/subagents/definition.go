package subagents

import (
	"encoding/json"
	"time"
)

// Kind says where an agent runs.
type Kind string

const (
	// Local: a model loop in this process, with its own system prompt,
	// tools and limits (0.61's LocalAgentExecutor).
	Local Kind = "local"
	// Remote: another process reached over the Agent2Agent protocol.
	Remote Kind = "remote"
)

// Source says where a definition came from, for /agents and for trust.
type Source string

const (
	BuiltIn   Source = "built-in"
	User      Source = "user"      // ~/.gemini/agents/*.md
	Project   Source = "project"   // a trusted project's .gemini/agents/*.md
	Extension Source = "extension" // an extension's agents/*.md
)

// Definition is one agent invoke_agent can hire, as Gemini CLI 0.61's
// AgentDefinition (packages/core/src/agents/types.ts) holds it. Built-in
// and Markdown agents alike become one.
type Definition struct {
	Name        string // [a-z0-9_-], what invoke_agent's agent_name names
	DisplayName string // "" : Name
	Description string // what the main agent reads to choose it
	Kind        Kind
	Source      Source
	// Path is the file it was read from; "" for a built-in. Extension is
	// the extension's name for Source Extension.
	Path, Extension string

	// Input is the one parameter invoke_agent's prompt maps to
	// (0.61 mapParams: an input schema of one property takes the prompt
	// under that property's name): "objective", "question", "request",
	// "query" (Markdown agents), or "prompt".
	Input InputParam

	// Local agents (Kind Local):

	// SystemPrompt and Query are templates: ${name} is replaced by the
	// input of that name, and for built-ins by their runtime values
	// (0.61 templateString). Query is the subagent's first user message;
	// "" : the input itself.
	SystemPrompt, Query string
	// InheritSystemPrompt: the system prompt is the main agent's own,
	// built as for a non-interactive session without topic narration
	// (0.61's generalist: getCoreSystemPrompt(config, undefined, false,
	// false)); SystemPrompt is then "".
	InheritSystemPrompt bool
	// Model is a model or alias ("inherit": the main agent's model);
	// "" : inherit. Temperature and TopP nil: the model's default.
	Model       string
	Temperature *float64
	TopP        *float64
	// Thinking asks for thoughts (0.61's thinkingConfig).
	Thinking *Thinking
	// Tools are the tools it may call: names and 0.61's wildcards
	// ("*", "mcp_*", "mcp_SERVER_*"); nil: every tool of the main agent
	// but invoke_agent. No subagent ever gets invoke_agent.
	Tools []string
	// MaxTurns and Timeout bound a run (0.61 runConfig: maxTurns,
	// maxTimeMinutes); zero: 0.61's defaults (DEFAULT_MAX_TURNS,
	// DEFAULT_MAX_TIME_MINUTES).
	MaxTurns int
	Timeout  time.Duration
	// Output is what complete_task takes as the report; nil: 0.61's
	// default, one string "result".
	Output *Output

	// Remote agents (Kind Remote): the agent card, fetched from CardURL or
	// given inline as CardJSON, and how to authenticate to it.
	CardURL  string
	CardJSON string
	Auth     *Auth
}

// InputParam is invoke_agent's prompt as the agent's input.
type InputParam struct {
	Name        string
	Description string
}

// Thinking is a model's thinking configuration.
type Thinking struct {
	IncludeThoughts bool
	Budget          *int32 // -1: dynamic
	Level           string // "HIGH", … (Gemini 3); "" : by budget
}

// Output is complete_task's report parameter: its name, description and
// JSON schema; Format turns the model's report into the text the main
// agent receives (nil: the report as JSON, indented by two spaces, or the
// string itself).
type Output struct {
	Name        string
	Description string
	Schema      json.RawMessage
	Format      func(report any) string `json:"-"`
}

// Auth is how a remote agent is reached, 0.61's auth config: Type
// "apiKey" (Key, sent as header Name, "X-API-Key" when empty), "http"
// (Scheme Bearer with Token, Basic with Username and Password, any other
// with Value), "google-credentials" (Scopes) or "oauth" (not supported
// here: a clear error).
type Auth struct {
	Type     string
	Key      string
	Name     string
	Scheme   string
	Token    string
	Username string
	Password string
	Value    string
	Scopes   []string
}
