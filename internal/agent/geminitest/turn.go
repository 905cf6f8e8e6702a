package geminitest

import (
	"time"

	"google.golang.org/genai"
)

// Turn scripts the server's answer to one generateContent or
// streamGenerateContent request. Turns are consumed in order, one per request.
type Turn struct {
	// Chunks are streamed one response per chunk (merged into one response
	// for generateContent).
	Chunks []Chunk
	// Err, with no Chunks, answers with an HTTP error. With Chunks, the chunks
	// are streamed first and the error follows as an in-stream error event.
	Err *APIError
	// Delay is waited before the response headers are written.
	Delay time.Duration
	// Usage is sent with the last chunk. When nil, a rough count is made from
	// the request and the chunks.
	Usage *genai.GenerateContentResponseUsageMetadata
	// FinishReason is sent with the last chunk; STOP when empty.
	FinishReason genai.FinishReason
	// Hang sends the chunks without a finish reason, then keeps the stream
	// open until the client goes away (for cancellation tests).
	Hang bool
	// NoCandidates answers, with no Chunks, a response that has usage
	// metadata but no candidates at all, as Gemini sometimes does.
	NoCandidates bool
	// Grounding is the candidate's groundingMetadata, as a googleSearch
	// grounded answer carries it: on the last chunk when streamed.
	Grounding *genai.GroundingMetadata
	// NoFinishReason ends the stream normally after the chunks, but without
	// a finish reason (and without usage), as a truncated answer does.
	NoFinishReason bool
	// Cut breaks the connection after the chunks, without ending the
	// stream: the client reads an unexpected EOF (a transport error).
	Cut bool
	// From, when set, makes the answer from the request it answers, as a
	// model acts on what it was told (a path the system instruction
	// names); every other field is then unused.
	From func(Request) Turn
}

// Rule answers every request whose text (its system instruction and its
// contents' text parts) holds Contains with Turn, without taking a turn
// of the script: for requests that come at no set time, such as
// completions as the user types, among a conversation's scripted turns.
// The first matching rule answers.
type Rule struct {
	Contains string
	Turn     Turn
}

// Chunk is one streamed part of a model answer.
type Chunk struct {
	Text             string
	Thought          bool
	ThoughtSignature []byte
	Call             *genai.FunctionCall
	// Delay is waited before this chunk is sent.
	Delay time.Duration
}

// APIError is an error answer, shaped like Gemini's google.rpc.Status.
type APIError struct {
	Code    int
	Status  string // e.g. RESOURCE_EXHAUSTED; derived from Code when empty
	Message string
	// RetryDelay, when set, is sent as a google.rpc.RetryInfo detail.
	RetryDelay time.Duration
	// RetryAfter, when set, is sent as a Retry-After header (whole seconds).
	RetryAfter time.Duration
	// Details are more google.rpc details (QuotaFailure, ErrorInfo, ...)
	// sent after the RetryInfo one, as Gemini spells them.
	Details []map[string]any
}

// TextTurn answers with one text chunk per string.
func TextTurn(texts ...string) Turn {
	t := Turn{}
	for _, s := range texts {
		t.Chunks = append(t.Chunks, Chunk{Text: s})
	}
	return t
}

// CallTurn answers with one function call chunk per call.
func CallTurn(calls ...*genai.FunctionCall) Turn {
	t := Turn{}
	for _, c := range calls {
		t.Chunks = append(t.Chunks, Chunk{Call: c})
	}
	return t
}

// Call is a function call without an id, as Gemini usually sends them.
func Call(name string, args map[string]any) *genai.FunctionCall {
	return &genai.FunctionCall{Name: name, Args: args}
}

// ErrorTurn answers with an HTTP error whose status is derived from code.
func ErrorTurn(code int, message string) Turn {
	return Turn{Err: &APIError{Code: code, Message: message}}
}

// statusFor names the google.rpc.Code Gemini sends with an HTTP status.
func statusFor(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}
