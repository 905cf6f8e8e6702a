package apierror_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
)

// request makes one request of the fake through the real genai client,
// which answers turn: the error exactly as the SDK makes it of the body.
func request(t *testing.T, turn geminitest.Turn) error {
	t.Helper()
	srv := geminitest.NewTestServer(t, turn)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Models.GenerateContent(context.Background(), "gemini-2.5-pro", genai.Text("hi"), nil)
	if err == nil {
		t.Fatal("the request succeeded")
	}
	return err
}

// The SDK's own wording, which a person cannot act on.
var dump = []string{"map[", "Details: [", "ListModels", "Error 4", "Error 5"}

func TestExplainSaysCauseAndFix(t *testing.T) {
	tests := []struct {
		name string
		turn geminitest.Turn
		auth string
		kind apierror.Kind
		says []string
	}{
		{"invalid key", geminitest.InvalidAPIKey(), "gemini-api-key", apierror.InvalidKey,
			[]string{"GEMINI_API_KEY is not valid", "https://aistudio.google.com/apikey", "gemini-ls login"}},
		{"invalid Vertex express key", geminitest.InvalidAPIKey(), "vertex-ai", apierror.InvalidKey,
			[]string{"GOOGLE_API_KEY is not valid", "gemini-ls login"}},
		{"expired key", geminitest.ExpiredAPIKey(), "gemini-api-key", apierror.ExpiredKey,
			[]string{"GEMINI_API_KEY has expired", "gemini-ls login"}},
		{"unknown model", geminitest.ModelNotFound("gemini-9-ultra"), "gemini-api-key", apierror.UnknownModel,
			[]string{"The model gemini-9-ultra does not exist", "/model", "--model", "model.name in settings.json"}},
		{"rate limit", geminitest.RateLimited("gemini-2.5-pro", 26*time.Second), "gemini-api-key", apierror.RateLimited,
			[]string{"gemini-2.5-pro is rate-limited (429 RESOURCE_EXHAUSTED)", "wait 26s", "/model"}},
		{"daily quota", geminitest.DailyQuotaExhausted("gemini-2.5-pro", 26*time.Second), "gemini-api-key", apierror.OutOfQuota,
			[]string{"quota for gemini-2.5-pro is used up", "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "/model", "AI Studio"}},
		{"daily quota signed in", geminitest.DailyQuotaExhausted("gemini-2.5-pro", 26*time.Second), "oauth-personal", apierror.OutOfQuota,
			[]string{"used up", "GEMINI_API_KEY"}},
		{"API off for the project", geminitest.PermissionDenied(), "gemini-api-key", apierror.PermissionDenied,
			[]string{"403 PERMISSION_DENIED", "turned off for the project", "enable it at https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=123456789"}},
		{"unsupported location", geminitest.LocationUnsupported(), "gemini-api-key", apierror.UnsupportedLocation,
			[]string{"not offered where you are", "region", "GOOGLE_CLOUD_LOCATION"}},
		{"sign-in refused", geminitest.ErrorTurn(401, "Request had invalid authentication credentials."), "oauth-personal", apierror.Unauthenticated,
			[]string{"401 UNAUTHENTICATED", "gemini-ls login"}},
		{"server error", geminitest.ErrorTurn(503, "The model is overloaded. Please try again later."), "gemini-api-key", apierror.ServerError,
			[]string{"503 UNAVAILABLE", "The model is overloaded", "try again in a few minutes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := request(t, tt.turn)
			err := apierror.Explain(raw, apierror.Context{AuthType: tt.auth, Model: "gemini-2.5-pro"})
			e, ok := errors.AsType[*apierror.Error](err)
			if !ok {
				t.Fatalf("Explain(%v) = %T, not an *apierror.Error", raw, err)
			}
			if e.Kind != tt.kind {
				t.Errorf("kind = %v, want %v", e.Kind, tt.kind)
			}
			msg := err.Error()
			for _, bad := range dump {
				if strings.Contains(msg, bad) {
					t.Errorf("%q holds %q", msg, bad)
				}
			}
			for _, want := range tt.says {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
			if !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 {
				t.Errorf("%q is not one sentence", msg)
			}
			if _, ok := errors.AsType[genai.APIError](err); !ok || apierror.Raw(err).Error() != raw.Error() {
				t.Errorf("the raw error is lost: Raw = %v", apierror.Raw(err))
			}
			if again := apierror.Explain(err, apierror.Context{}); again != err {
				t.Errorf("explained twice: %v", again)
			}
		})
	}
}

// A connection that could not be made says what to check.
func TestExplainUnreachable(t *testing.T) {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: geminitest.RefusingURL(t)},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, raw := client.Models.GenerateContent(context.Background(), "gemini-2.5-pro", genai.Text("hi"), nil)
	if _, ok := errors.AsType[*net.OpError](raw); !ok {
		t.Fatalf("not a dial error: %v", raw)
	}
	err = apierror.Explain(raw, apierror.Context{})
	if e, ok := errors.AsType[*apierror.Error](err); !ok || e.Kind != apierror.Unreachable {
		t.Fatalf("Explain = %#v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "; check the network connection") || strings.Count(msg, ". ") > 0 {
		t.Errorf("%q says no fix", err)
	}
}

// An error that is not the API's is left as it is.
func TestExplainLeavesOthers(t *testing.T) {
	other := errors.New("the prompt is empty")
	if got := apierror.Explain(other, apierror.Context{}); got != other {
		t.Errorf("Explain = %v", got)
	}
	if apierror.Explain(nil, apierror.Context{}) != nil {
		t.Error("Explain(nil) is not nil")
	}
}

// A key the editor keeps for the user (EditorKey) is named as the
// editor's, never as a GEMINI_API_KEY the user did not set; the fix is
// the editor's (enter another key there, sign in with Google), not a
// variable or a command line.
func TestTheEditorsKeyIsNamedAsTheEditors(t *testing.T) {
	for _, turn := range []geminitest.Turn{geminitest.InvalidAPIKey(), geminitest.ExpiredAPIKey(), geminitest.ErrorTurn(401, "Request had invalid authentication credentials."), geminitest.ErrorTurn(403, "Permission denied.")} {
		raw := request(t, turn)
		msg := apierror.Explain(raw, apierror.Context{AuthType: "gemini-api-key", EditorKey: true}).Error()
		if strings.Contains(msg, "GEMINI_API_KEY") || strings.Contains(msg, "gemini-ls login") {
			t.Errorf("%q names a variable or command the user never used", msg)
		}
		if !strings.Contains(msg, "the API key stored in the editor") && !strings.Contains(msg, "The API key stored in the editor") {
			t.Errorf("%q does not name the editor's key", msg)
		}
	}
	// Under another auth type the editor's key is not the one used.
	msg := apierror.Explain(request(t, geminitest.InvalidAPIKey()), apierror.Context{AuthType: "vertex-ai", EditorKey: true}).Error()
	if !strings.Contains(msg, "GOOGLE_API_KEY") {
		t.Errorf("vertex-ai: %q does not name GOOGLE_API_KEY", msg)
	}
}

// The kinds' wire words are distinct and stable: editors pick their fix
// from them.
func TestKindWords(t *testing.T) {
	seen := map[string]apierror.Kind{}
	for _, k := range apierror.Kinds() {
		w := k.String()
		if w == "" {
			t.Errorf("kind %d has no word", k)
		}
		if other, ok := seen[w]; ok {
			t.Errorf("kinds %d and %d share %q", k, other, w)
		}
		seen[w] = k
	}
	for k, want := range map[apierror.Kind]string{apierror.InvalidKey: "invalid_api_key", apierror.OutOfQuota: "quota", apierror.Unreachable: "network", apierror.Other: ""} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

// A connection the API's end closes before any answer (the fake drops it)
// is a network failure, as one that could not be made: what to check.
func TestExplainDroppedConnection(t *testing.T) {
	raw := request(t, geminitest.Turn{Cut: true})
	err := apierror.Explain(raw, apierror.Context{})
	if e, ok := errors.AsType[*apierror.Error](err); !ok || e.Kind != apierror.Unreachable {
		t.Fatalf("Explain(%v) = %#v, want the network's kind", raw, err)
	}
	if !strings.Contains(err.Error(), "; check the network connection") {
		t.Errorf("%q says no fix", err)
	}
	if apierror.Explain(context.Canceled, apierror.Context{}) != context.Canceled {
		t.Error("a cancelled request was taken for a dropped connection")
	}
}
