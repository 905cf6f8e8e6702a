package agent

import (
	"errors"

	"google.golang.org/genai"
)

// Names of failed model requests in a session's stats, as Gemini CLI
// 0.61's uiTelemetryService counts them in errorsByType: its getErrorType,
// the JavaScript class of the error thrown (the scripts reading -o json
// match 0.61's names, so they are kept however they read in Go).
const (
	// errorTypeAPI is @google/genai's ApiError: the API answered an HTTP
	// error, before the answer or in its stream.
	errorTypeAPI = "ApiError"
	// errorTypeGaxios is what the Code Assist client (gaxios) throws for
	// every failed request, the API's answer or the network's.
	errorTypeGaxios = "GaxiosError"
	// errorTypeNetwork is what Node's fetch throws when the network
	// fails the request ("fetch failed") or the answer's stream breaks
	// ("terminated").
	errorTypeNetwork = "TypeError"
	// errorTypeNoFinishReason is 0.61's InvalidStreamError type for an
	// answer that ended without a finish reason.
	errorTypeNoFinishReason = "NO_FINISH_REASON"
	// errorTypeOther is getErrorType's name for an Error of no subclass.
	errorTypeOther = "Error"
)

// codeAssistAuth reports whether authType reaches the model through Code
// Assist (Google sign-in, Cloud Shell), whose client is gaxios in 0.61.
func codeAssistAuth(authType string) bool {
	switch authType {
	case "oauth-personal", "cloud-shell", "compute-default-credentials":
		return true
	}
	return false
}

// requestErrorType is the name a failed model request counts under in
// the stats' errorsByType, for the auth type it was made with.
func requestErrorType(err error, authType string) string {
	_, isAPI := errors.AsType[genai.APIError](err)
	_, unreachable := errors.AsType[*UnreachableError](err)
	cut, isCut := errors.AsType[*AnswerCutOffError](err)
	network := unreachable || isCut && cut.Cause != nil && !isAPI || brokenConnection(err) && !isAPI
	switch {
	case codeAssistAuth(authType) && (isAPI || network):
		return errorTypeGaxios
	case isAPI:
		return errorTypeAPI
	case network:
		return errorTypeNetwork
	case isCut:
		return errorTypeNoFinishReason
	}
	return errorTypeOther
}
