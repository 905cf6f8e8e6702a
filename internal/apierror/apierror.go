package apierror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// Kind is what went wrong, as far as the user can act on it.
type Kind int

const (
	// Other: an API error of no kind below; its sentence is the API's
	// own message with its status.
	Other Kind = iota
	// InvalidKey: the API key was refused as not valid.
	InvalidKey
	// ExpiredKey: the API key has expired.
	ExpiredKey
	// Unauthenticated: the credentials (a Google sign-in, a token) were
	// refused (401).
	Unauthenticated
	// PermissionDenied: the credentials are valid but may not do this
	// (403): the API is off for the project, the account lacks a role.
	PermissionDenied
	// RateLimited: too many requests for now (429), still so after the
	// retries; a wait lifts it.
	RateLimited
	// OutOfQuota: a quota used up for long (a daily one, a limit of
	// 0, a wait of more than five minutes).
	OutOfQuota
	// UnknownModel: the model does not exist or is not served here (404).
	UnknownModel
	// UnsupportedLocation: the API is not offered where the user is.
	UnsupportedLocation
	// Blocked: the safety filters stopped the prompt or the answer.
	Blocked
	// ServerError: the API failed on its side (5xx), still so after the
	// retries.
	ServerError
	// Unreachable: no connection to the API could be made, or it broke
	// (closed, reset) before the answer came, still so after the retries.
	Unreachable
)

// String is the kind's word on every wire (the LSP's errorKind, ACP's
// error data): a stable set an editor picks its fix from, never the
// sentence's words. Other is "" (no kind an editor can act on).
func (k Kind) String() string {
	switch k {
	case InvalidKey:
		return "invalid_api_key"
	case ExpiredKey:
		return "expired_api_key"
	case Unauthenticated:
		return "unauthenticated"
	case PermissionDenied:
		return "permission_denied"
	case RateLimited:
		return "rate_limited"
	case OutOfQuota:
		return "quota"
	case UnknownModel:
		return "unknown_model"
	case UnsupportedLocation:
		return "unsupported_location"
	case Blocked:
		return "blocked"
	case ServerError:
		return "server_error"
	case Unreachable:
		return "network"
	}
	return ""
}

// Kinds are the kinds an editor may be sent, Other left out: the wire's
// closed set (docs/protocol.md).
func Kinds() []Kind {
	return []Kind{InvalidKey, ExpiredKey, Unauthenticated, PermissionDenied, RateLimited, OutOfQuota,
		UnknownModel, UnsupportedLocation, Blocked, ServerError, Unreachable}
}

// Error is a failed request said for a person: Error() is the sentence,
// Unwrap the error it explains.
type Error struct {
	Kind     Kind
	Sentence string
	Err      error
}

func (e *Error) Error() string { return e.Sentence }

func (e *Error) Unwrap() error { return e.Err }

// Context is what the sentence names besides the error: how the request
// was signed in, and the model it went to.
type Context struct {
	// AuthType is the auth type the request used, as Gemini CLI names it
	// (gemini-api-key, vertex-ai, oauth-personal, cloud-shell,
	// compute-default-credentials); "" when unknown.
	AuthType string
	// Model is the model the request went to; "" when unknown.
	Model string
	// EditorKey: the Gemini API key is the one the user's editor keeps
	// (VS Code's secret storage, handed over in GEMINI_LS_EDITOR_API_KEY),
	// not a GEMINI_API_KEY the user set, so a sentence about the key
	// names the editor's and says to enter another there.
	EditorKey bool
}

// Auth types, as package auth names them (not imported: this package is
// a leaf every layer may use).
const (
	authAPIKey = "gemini-api-key"
	authVertex = "vertex-ai"
	authLogin  = "oauth-personal"
)

// Raw is the error an *Error explains, or err itself: what the log file
// records.
func Raw(err error) error {
	if e, ok := errors.AsType[*Error](err); ok && e.Err != nil {
		return e.Err
	}
	return err
}

// Explain is err said for a person, as an *Error, when it is of a kind
// this package knows (see Kind); any other error is returned as it is,
// nil included.
func Explain(err error, c Context) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	if b, ok := errors.AsType[blocker](err); ok && b.SafetyBlocked() {
		return &Error{Kind: Blocked, Err: err, Sentence: clause(err.Error()) + ": Gemini's safety filters stopped it, so rephrase the prompt or ask for something else."}
	}
	if apiErr, ok := errors.AsType[genai.APIError](err); ok {
		kind, s := explainAPI(apiErr, c)
		return &Error{Kind: kind, Sentence: s, Err: err}
	}
	if dialFailed(err) || connectionBroke(err) {
		return &Error{Kind: Unreachable, Err: err, Sentence: clause(err.Error()) +
			"; check the network connection, and the proxy (HTTPS_PROXY) if one is set, then try again."}
	}
	return err
}

// Blocker is an error that may be the safety filters stopping a prompt
// or an answer: the agent's empty answer with a SAFETY finish reason.
type blocker interface {
	error
	SafetyBlocked() bool
}

// BlockedPrompt is the error of a prompt the API refused to answer
// (promptFeedback.blockReason), said for a person.
func BlockedPrompt(reason, message string) error {
	raw := fmt.Errorf("the prompt was blocked (%s)", reason)
	if message != "" {
		raw = fmt.Errorf("the prompt was blocked (%s): %s", reason, message)
	}
	return &Error{Kind: Blocked, Err: raw, Sentence: fmt.Sprintf(
		"Gemini's safety filters blocked the prompt (%s): rephrase it, or leave out what may have set them off (a file it attached, say).", reason)}
}

// dialFailed reports whether err is a connection that could not be made:
// a dial (or a proxy's) that failed.
func dialFailed(err error) bool {
	opErr, ok := errors.AsType[*net.OpError](err)
	return ok && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
}

// connectionBroke reports whether err is a connection that broke before
// or while the answer came: closed before an answer (EOF), cut in the
// middle of one, reset, or a write to it refused.
func connectionBroke(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	_, isRequest := errors.AsType[*url.Error](err)
	return isRequest && errors.Is(err, io.EOF)
}

// explainAPI is the kind and sentence of an API error.
func explainAPI(e genai.APIError, c Context) (Kind, string) {
	reason := errorInfoReason(e)
	msg := strings.TrimSpace(e.Message)
	switch {
	case reason == "API_KEY_INVALID" || strings.Contains(msg, "API key not valid"):
		return InvalidKey, fmt.Sprintf("%s is not valid: %s, or %s instead.", clause(theKey(c)), setKey(c), signInWithGoogle(c))
	case reason == "API_KEY_EXPIRED" || strings.Contains(msg, "API key expired"):
		return ExpiredKey, fmt.Sprintf("%s has expired: %s, or %s instead.", clause(theKey(c)), setKey(c), signInWithGoogle(c))
	case e.Code == 400 && e.Status == "FAILED_PRECONDITION" && strings.Contains(strings.ToLower(msg), "location"):
		return UnsupportedLocation, "The Gemini API is not offered where you are (" + status(e) + ": " + trimStop(msg) +
			"): use it from a supported region (https://ai.google.dev/gemini-api/docs/available-regions), or use Vertex AI in one: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and a GOOGLE_CLOUD_LOCATION such as us-central1."
	case e.Code == 401:
		return Unauthenticated, "Google refused the credentials (" + status(e) + ": " + trimStop(msg) + "): " + signInAgain(c) + "."
	case e.Code == 403 && errorInfoMetadata(e, "activationUrl") != "":
		return PermissionDenied, "The Gemini API is turned off for the project (" + status(e) + ", " + reason + "): enable it at " + errorInfoMetadata(e, "activationUrl") + ", wait a few minutes, then try again."
	case e.Code == 403:
		return PermissionDenied, "Google refused access to the model (" + status(e) + ": " + trimStop(msg) + "): " + permissionFix(c) + "."
	case e.Code == 404:
		return UnknownModel, fmt.Sprintf("The model %s does not exist or is not available to this account: pick another with /model (or --model), or change model.name in settings.json.", modelName(e, c))
	case (e.Code == 429 || e.Code == 499 || e.Code == 503) && QuotaExhausted(e):
		return OutOfQuota, quotaSentence(e, c)
	case e.Code == 429:
		return RateLimited, fmt.Sprintf("%s is rate-limited (%s) and retrying did not lift it: %s and send the prompt again, or pick another model with /model (or --model).", modelOr(c, "The model"), status(e), waitFor(e))
	}
	if e.Code >= 500 {
		what := status(e)
		if msg != "" {
			what += ": " + trimStop(msg)
		}
		return ServerError, fmt.Sprintf("The Gemini API failed on Google's side (%s) even after retrying: try again in a few minutes, or pick another model with /model (or --model).", what)
	}
	what := status(e)
	if msg != "" {
		what += ": " + trimStop(msg)
	}
	return Other, "The Gemini API refused the request (" + what + ")."
}

// editorKey reports whether the request's key is the editor's.
func editorKey(c Context) bool { return c.EditorKey && c.AuthType == authAPIKey }

// theKey names the API key where it came from: the editor's, or the
// variable the user set.
func theKey(c Context) string {
	switch {
	case editorKey(c):
		return "the API key stored in the editor"
	case c.AuthType == authVertex:
		return "the API key in GOOGLE_API_KEY"
	}
	return "the API key in GEMINI_API_KEY"
}

// setKey says where to get a key and where to put it.
func setKey(c Context) string {
	switch {
	case editorKey(c):
		return "enter another key from https://aistudio.google.com/apikey in the editor"
	case c.AuthType == authVertex:
		return "set GOOGLE_API_KEY to a Vertex AI key from https://console.cloud.google.com/apis/credentials"
	}
	return "set GEMINI_API_KEY to a key from https://aistudio.google.com/apikey"
}

// signInWithGoogle is how to sign in with Google in place of a key: the
// editor's sign-in when the editor gave the key, else the command.
func signInWithGoogle(c Context) string {
	if editorKey(c) {
		return "sign in with Google"
	}
	return "run gemini-ls login to sign in with Google"
}

// signInAgain is how to sign in again for the auth type.
func signInAgain(c Context) string {
	switch c.AuthType {
	case authAPIKey:
		return "check " + theKey(c) + ", or " + signInWithGoogle(c) + " instead"
	case authVertex:
		return "check GOOGLE_API_KEY, or the Application Default Credentials (gcloud auth application-default login)"
	}
	return "run gemini-ls login to sign in again"
}

// permissionFix says what may give access.
func permissionFix(c Context) string {
	switch c.AuthType {
	case authAPIKey:
		return "check that " + theKey(c) + " may use the Gemini API (its API restrictions, its project), or " + signInWithGoogle(c) + " instead"
	case authVertex:
		return "check that the account has the Vertex AI User role in GOOGLE_CLOUD_PROJECT and that the Vertex AI API is enabled there"
	}
	return "check that the account signed in may use Gemini Code Assist (GOOGLE_CLOUD_PROJECT names a project it belongs to), or run gemini-ls login with another account"
}

// quotaSentence is a used-up quota's sentence: which, for how long, and
// the ways on.
func quotaSentence(e genai.APIError, c Context) string {
	which := ""
	if id := quotaID(e); id != "" {
		which = " (" + id + ")"
	}
	wait := "wait until it resets"
	if d, ok := RetryDelay(e); ok && d > 0 {
		wait = "wait " + roundDelay(d) + " for it to reset"
	}
	more := "raise the quota in the Google Cloud console"
	switch c.AuthType {
	case authAPIKey:
		more = "raise it in AI Studio (https://aistudio.google.com/usage)"
	case authLogin:
		more = "use a Gemini API key (GEMINI_API_KEY) or a plan with higher limits"
	}
	return fmt.Sprintf("The quota for %s is used up%s: %s, pick another model with /model (or --model), or %s.", modelOr(c, "this model"), which, wait, more)
}

// waitFor says how long the API asked to wait, or to wait a minute.
func waitFor(e genai.APIError) string {
	if d, ok := RetryDelay(e); ok && d > 0 {
		return "wait " + roundDelay(d)
	}
	return "wait a minute"
}

// roundDelay is d as a person reads a wait: whole seconds, at least 1s.
func roundDelay(d time.Duration) string {
	return max(time.Second, d.Round(time.Second)).String()
}

// modelName is the model a 404 names ("models/X is not found …"), else
// the one the request went to.
func modelName(e genai.APIError, c Context) string {
	if m := notFoundModel.FindStringSubmatch(e.Message); m != nil {
		return m[1]
	}
	return modelOr(c, "asked for")
}

var notFoundModel = lazyregexp.New(`models/([^\s,]+) is not found`)

// modelOr is the context's model, else what.
func modelOr(c Context, what string) string {
	if c.Model != "" {
		return c.Model
	}
	return what
}

// status names e's status as "429 RESOURCE_EXHAUSTED".
func status(e genai.APIError) string {
	if e.Status == "" || strings.HasPrefix(e.Status, strconv.Itoa(e.Code)) {
		return strings.TrimSpace(strconv.Itoa(e.Code) + " " + strings.TrimPrefix(e.Status, strconv.Itoa(e.Code)))
	}
	return fmt.Sprintf("%d %s", e.Code, e.Status)
}

// trimStop is msg's first sentence without its full stop, to sit in
// parentheses inside a sentence; the log has the rest.
func trimStop(msg string) string {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	msg, _, _ = strings.Cut(msg, ". ")
	return strings.TrimSuffix(msg, ".")
}

// clause is s with a capital first and no full stop last, for the
// sentence to go on.
func clause(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// errorInfoReason is the reason of e's google.rpc.ErrorInfo detail.
func errorInfoReason(e genai.APIError) string {
	for _, d := range e.Details {
		if typ, _ := d["@type"].(string); strings.HasSuffix(typ, "google.rpc.ErrorInfo") {
			reason, _ := d["reason"].(string)
			return reason
		}
	}
	return ""
}

// errorInfoMetadata is key of e's ErrorInfo metadata.
func errorInfoMetadata(e genai.APIError, key string) string {
	for _, d := range e.Details {
		if typ, _ := d["@type"].(string); strings.HasSuffix(typ, "google.rpc.ErrorInfo") {
			md, _ := d["metadata"].(map[string]any)
			v, _ := md[key].(string)
			return v
		}
	}
	return ""
}

// quotaID is the quota a QuotaFailure names, the first.
func quotaID(e genai.APIError) string {
	for _, d := range e.Details {
		if typ, _ := d["@type"].(string); strings.HasSuffix(typ, "google.rpc.QuotaFailure") {
			violations, _ := d["violations"].([]any)
			for _, v := range violations {
				m, _ := v.(map[string]any)
				if id, _ := m["quotaId"].(string); id != "" {
					return id
				}
			}
		}
	}
	return ""
}
