package agent

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"google.golang.org/genai"
)

// A failed request counts under Gemini CLI 0.61's name for what it would
// have thrown: the API's error is @google/genai's ApiError (gaxios'
// GaxiosError through Code Assist), a network's failure Node's
// TypeError, an answer without a finish reason NO_FINISH_REASON.
func TestRequestErrorTypeAsGeminiCLINamesIt(t *testing.T) {
	apiErr := genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: "quota"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, tc := range []struct {
		name     string
		err      error
		authType string
		want     string
	}{
		{"the API's answer", apiErr, "gemini-api-key", "ApiError"},
		{"the API's answer, wrapped", fmt.Errorf("asking: %w", apiErr), "vertex-ai", "ApiError"},
		{"the API's error in the stream", &AnswerCutOffError{Cause: apiErr}, "gemini-api-key", "ApiError"},
		{"the API's answer through Code Assist", apiErr, "oauth-personal", "GaxiosError"},
		{"no connection", &UnreachableError{Endpoint: "http://127.0.0.1:9", Cause: refused}, "gemini-api-key", "TypeError"},
		{"no connection through Code Assist", &UnreachableError{Endpoint: "https://x", Cause: refused}, "cloud-shell", "GaxiosError"},
		{"a stream that broke", &AnswerCutOffError{Cause: io.ErrUnexpectedEOF}, "gemini-api-key", "TypeError"},
		{"a broken connection", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), "gemini-api-key", "TypeError"},
		{"no finish reason", &AnswerCutOffError{}, "gemini-api-key", "NO_FINISH_REASON"},
		{"anything else", errors.New("the agent has no content generator"), "gemini-api-key", "Error"},
	} {
		if got := requestErrorType(tc.err, tc.authType); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
