package telemetry

import (
	"context"
	"time"
)

// Recorder is what the agent and setup tell telemetry. Every method is
// safe for concurrent use and returns at once.
type Recorder interface {
	// Config is gemini_cli.config, once per build, and counts a session
	// (gemini_cli.session.count), as 0.61 does at start-up.
	Config(StartSession)
	UserPrompt(UserPrompt)
	ToolCall(ToolCall)
	APIRequest(APIRequest)
	APIResponse(APIResponse)
	APIError(APIError)
	// HookCall is gemini_cli.hook_call, once for each hook that ran, and
	// counts it (gemini_cli.hook_call.count and .latency).
	HookCall(HookCall)
}

// Sink is a Recorder that exports; Shutdown flushes what is pending and
// stops it, within ctx.
type Sink interface {
	Recorder
	Shutdown(ctx context.Context) error
}

// Nop records nothing: telemetry off.
type Nop struct{}

func (Nop) Config(StartSession)            {}
func (Nop) UserPrompt(UserPrompt)          {}
func (Nop) ToolCall(ToolCall)              {}
func (Nop) APIRequest(APIRequest)          {}
func (Nop) APIResponse(APIResponse)        {}
func (Nop) APIError(APIError)              {}
func (Nop) HookCall(HookCall)              {}
func (Nop) Shutdown(context.Context) error { return nil }

// StartSession is 0.61's StartSessionEvent (gemini_cli.config): the
// configuration a build runs with.
type StartSession struct {
	Model            string
	SandboxEnabled   bool
	CoreTools        []string
	ApprovalMode     string
	APIKeyEnabled    bool
	VertexAIEnabled  bool
	RespectGitIgnore bool
	DebugMode        bool
	MCPServers       []string
	OutputFormat     string
	Extensions       []string
	ExtensionIDs     []string
}

// UserPrompt is a prompt the user submitted (gemini_cli.user_prompt).
type UserPrompt struct {
	SessionID, PromptID string
	Prompt              string
}

// ToolCall is a function call that ran, failed or was refused
// (gemini_cli.tool_call).
type ToolCall struct {
	SessionID, PromptID string
	Name                string
	Args                map[string]any
	Duration            time.Duration
	Success             bool
	// Decision is the user's answer ("accept", "reject", "auto_accept",
	// "modify"); "" when nobody was asked.
	Decision string
	// Error and ErrorType say why it failed; "" when it did not.
	Error, ErrorType string
	// MCPServer is the server of an MCP tool; "" for a built-in one.
	MCPServer string
}

// APIRequest is a model request about to be sent (gemini_cli.api_request).
type APIRequest struct {
	SessionID, PromptID string
	Model               string
	// RequestText is the request's contents as JSON.
	RequestText string
}

// APIResponse is a model request answered (gemini_cli.api_response).
type APIResponse struct {
	SessionID, PromptID string
	Model               string
	Duration            time.Duration
	Usage               Usage
	ResponseText        string
	FinishReasons       []string
}

// Usage is a response's token counts, under the API's meaning.
type Usage struct {
	Input, Output, Cached, Thoughts, Tool, Total int64
}

// APIError is a model request that failed (gemini_cli.api_error).
type APIError struct {
	SessionID, PromptID string
	Model               string
	Duration            time.Duration
	Error               string
	ErrorType           string
	// StatusCode is the HTTP status; 0 when there was none.
	StatusCode int
}

// HookCall is one hook that ran (gemini_cli.hook_call), as 0.61's
// HookCallEvent tells it.
type HookCall struct {
	SessionID string
	// Event is the hook event (BeforeTool, SessionStart, …); Name the
	// hook's name, else its command; Type its type ("command").
	Event, Name, Type string
	Duration          time.Duration
	// Success: it exited with code 0.
	Success bool
	// ExitCode is its exit code; nil when it did not exit by itself (it
	// timed out, could not be started, was stopped).
	ExitCode *int
	// Input is the JSON object it read on stdin.
	Input map[string]any
	// Output is its output as 0.61 reads it: the JSON object it printed,
	// or what its plain text stands for; nil when it printed nothing.
	Output         any
	Stdout, Stderr string
	// Error says why it failed when it did not exit by itself; "" else.
	Error string
}
