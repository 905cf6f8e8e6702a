package conversation_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A failure's kind is read from its type, never its words, and is one of
// ErrorKinds; a malformed variable is not missing credentials, and an
// error of no kind has none.
func TestErrorKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&apierror.Error{Kind: apierror.InvalidKey, Sentence: "x"}, "invalid_api_key"},
		{fmt.Errorf("turn: %w", &apierror.Error{Kind: apierror.OutOfQuota}), "quota"},
		{&apierror.Error{Kind: apierror.Unreachable}, "network"},
		{&apierror.Error{Kind: apierror.Other}, ""},
		{&auth.Error{Type: auth.GeminiAPIKey, Missing: true, Message: "GEMINI_API_KEY environment variable not found"}, conversation.KindNoAPIKey},
		{&auth.Error{Type: auth.OAuthPersonal, Missing: true}, conversation.KindSignInRequired},
		{&auth.Error{Type: auth.VertexAI, Missing: true}, conversation.KindVertexSetup},
		{&auth.Error{Type: auth.GeminiAPIKey, Message: "GOOGLE_GEMINI_BASE_URL must be an https URL"}, ""},
		{&dialog.BusyError{}, conversation.KindBusy},
		{errors.New("API key not valid"), ""},
	} {
		got := conversation.ErrorKind(c.err)
		if got != c.want {
			t.Errorf("ErrorKind(%v) = %q, want %q", c.err, got, c.want)
		}
		if got != "" && !slices.Contains(conversation.ErrorKinds(), got) {
			t.Errorf("%q is not among ErrorKinds", got)
		}
	}
}
