package conversation

import (
	"errors"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The kinds of failure an editor offers a fix for (re-enter the key,
// sign in, retry, switch model), sent beside the failure's sentence as
// one word of a closed set (LSP's errorKind, ACP's error data), so that
// no front end reads the sentence's words to choose its fix. A model
// request's failure is apierror's kind; these are the failures before
// any request.
const (
	// KindNoAPIKey: no Gemini API key (auth type gemini-api-key).
	KindNoAPIKey = "no_api_key"
	// KindSignInRequired: no usable Google login (oauth-personal,
	// cloud-shell).
	KindSignInRequired = "sign_in_required"
	// KindVertexSetup: Vertex AI lacks its project or key.
	KindVertexSetup = "vertex_setup"
	// KindBusy: the session is running another prompt.
	KindBusy = "busy"
)

// ErrorKinds are every word ErrorKind may say, for the wire's schema.
func ErrorKinds() []string {
	words := []string{KindNoAPIKey, KindSignInRequired, KindVertexSetup, KindBusy}
	for _, k := range apierror.Kinds() {
		words = append(words, k.String())
	}
	return words
}

// ErrorKind is err's kind among ErrorKinds, for an editor to offer the
// fix from; "" for an error of no kind an editor can act on.
func ErrorKind(err error) string {
	if e, ok := errors.AsType[*apierror.Error](err); ok {
		return e.Kind.String()
	}
	if e, ok := errors.AsType[*auth.Error](err); ok && e.Missing {
		switch e.Type {
		case auth.GeminiAPIKey:
			return KindNoAPIKey
		case auth.VertexAI:
			return KindVertexSetup
		case auth.OAuthPersonal, auth.CloudShell, auth.ComputeADC:
			return KindSignInRequired
		}
		return ""
	}
	if errors.Is(err, dialog.ErrBusy) {
		return KindBusy
	}
	return ""
}

// ErrorKind is the kind of the failure the prompt ended with (Failed,
// Busy), or of why it did not run; "" for any other ending.
func (o Outcome) ErrorKind() string {
	switch o.Ending {
	case Failed, Busy, Refused:
		return ErrorKind(o.Err)
	}
	return ""
}
