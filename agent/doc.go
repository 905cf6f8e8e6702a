// Package agent runs Gemini agent turns: a content generator over genai
// (streaming), a chat that keeps curated history, a turn loop that executes
// tool calls and feeds their results back until the model stops, retry on
// transient API errors, and structured api_request/api_response/api_error
// logging. Front ends observe a turn through Events and answer permission
// requests through a Confirmer; the agent never knows which front end it
// serves.
package agent
