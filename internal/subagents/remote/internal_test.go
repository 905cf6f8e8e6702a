package remote

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// stallingBody sends its first bytes, then nothing until its request's
// context ends.
type stallingBody struct {
	ctx  context.Context
	sent bool
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, "data: {}\n"), nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (b *stallingBody) Close() error { return nil }

// A body that goes silent mid-way ends with ErrSilent, recorded in the
// budget, not with a read that waits for ever.
func TestBodySilenceEndsTheRead(t *testing.T) {
	bud := newBudget(1<<20, "the test's responses")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := newBoundedBody(&stallingBody{ctx: ctx}, cancel, 1, bud, "http://agent.test/rpc")
	defer body.Close()
	_, err := io.ReadAll(body)
	if !errors.Is(err, ErrSilent) || !errors.Is(bud.broken(), ErrSilent) {
		t.Errorf("read: %v; budget: %v", err, bud.broken())
	}
}

// The reassembler words parts and states as 0.61's does.
func TestReassembler(t *testing.T) {
	agent := func(parts ...a2a.Part) *a2a.Message {
		m := a2a.NewMessage(a2a.MessageRoleAgent, parts...)
		m.TaskID, m.ContextID = "t", "c"
		return m
	}
	var r reassembler
	r.update(&a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateAuthRequired}})
	r.update(&a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: agent(a2a.TextPart{Text: "a "})}})
	// The same message twice in a row counts once; a user's not at all.
	r.update(&a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: agent(a2a.TextPart{Text: "a "})}})
	r.update(a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "mine"}))
	r.update(agent(a2a.DataPart{Data: map[string]any{"k": "<v>"}}, a2a.FilePart{File: a2a.FileURI{URI: "gs://b/f"}}, a2a.FilePart{File: a2a.FileBytes{Bytes: "AA=="}}))
	r.update(&a2a.TaskArtifactUpdateEvent{TaskID: "t", Artifact: &a2a.Artifact{ID: "x", Parts: a2a.ContentParts{a2a.TextPart{Text: "1"}}}})
	r.update(&a2a.TaskArtifactUpdateEvent{TaskID: "t", Append: true, Artifact: &a2a.Artifact{ID: "x", Parts: a2a.ContentParts{a2a.TextPart{Text: "2"}}}})
	r.update(&a2a.TaskArtifactUpdateEvent{TaskID: "t", Artifact: &a2a.Artifact{ID: "y", Name: "n", Parts: a2a.ContentParts{a2a.FilePart{File: a2a.FileURI{URI: "u", FileMeta: a2a.FileMeta{Name: "f.txt"}}}}}})
	want := authRequiredMsg + "a " + `Data: {"k":"<v>"}File: gs://b/fFile: [binary/unnamed]` + "\n\nArtifact:\n12\n\nArtifact (n):\nFile: f.txt"
	if got := r.String(); got != want {
		t.Errorf("text\n%q, want\n%q", got, want)
	}
	if got := strings.Join(r.activity(), "|"); !strings.HasPrefix(got, "[Authorization Required]") || !strings.Contains(got, "|a|") {
		t.Errorf("activity %q", got)
	}

	// A finished task with nothing else to say: its last agent message.
	var h reassembler
	h.update(&a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}, History: []*a2a.Message{
		agent(a2a.TextPart{Text: "first"}), agent(a2a.TextPart{Text: "last"}), a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "thanks"}),
	}})
	if got := h.String(); got != "last" {
		t.Errorf("history: %q", got)
	}
}

// The card's security schemes, unmet, give 0.61's warning; met, none.
func TestAuthWarning(t *testing.T) {
	card, err := parseCard([]byte(`{"name":"a","url":"https://a/rpc","securitySchemes":{
		"key":{"type":"apiKey","name":"X-Key","in":"header"},
		"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ typ, scheme, want string }{
		{"", "", "Agent requires HTTP Bearer (bearer) OR API Key (key): Send X-Key in header but no auth is configured. Missing: Authentication is required but not configured"},
		{"http", "Basic", "Agent requires HTTP Bearer (bearer) OR API Key (key): Send X-Key in header but no auth is configured. Missing: Scheme 'bearer' requires HTTP Bearer authentication, but Basic was configured, Scheme 'key' requires apiKey authentication"},
		{"apiKey", "", ""},
		{"http", "bearer", ""},
		{"google-credentials", "", ""},
	} {
		if got := card.AuthWarning(tc.typ, tc.scheme); got != tc.want {
			t.Errorf("AuthWarning(%q, %q) = %q, want %q", tc.typ, tc.scheme, got, tc.want)
		}
	}
}

// A 1.0 card's supportedInterfaces and protocolBinding name its service.
func TestCardOfA2A1(t *testing.T) {
	card, err := parseCard([]byte(`{"name":"a","preferredTransport":"GRPC","url":"grpc://a",
		"supportedInterfaces":[{"protocolBinding":"JSONRPC","url":"https://a/rpc"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := jsonrpcEndpoint(card.card); err != nil || got != "https://a/rpc" {
		t.Errorf("endpoint %q, %v", got, err)
	}
}

// Only its origin gets the credential, whatever the request.
func TestAuthenticatingKeepsToItsOrigins(t *testing.T) {
	var got []string
	base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		got = append(got, req.URL.Host+"="+req.Header.Get("Authorization"))
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
	})
	rt := authenticating{base: base, cred: &httpCredential{auth: agentsAuth("t"), opts: &Options{}}, origin: "https://a.test:443"}
	for _, u := range []string{"https://a.test/rpc", "https://b.test/rpc", "http://a.test/rpc", "https://a.test:444/rpc"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, u, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	want := "a.test=Bearer t b.test= a.test= a.test:444="
	if strings.Join(got, " ") != want {
		t.Errorf("sent %q, want %q", got, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func agentsAuth(token string) subagents.Auth {
	return subagents.Auth{Type: "http", Scheme: "Bearer", Token: token}
}

// Auth values resolve as 0.61's resolveAuthValue, failures in its words.
func TestResolveValue(t *testing.T) {
	opts := &Options{
		LookupEnv: func(n string) (string, bool) { return map[string]string{"EMPTY": ""}[n], n == "EMPTY" },
		RunCommand: func(ctx context.Context, cmd string) (string, error) {
			switch cmd {
			case "hang":
				<-ctx.Done()
				return "", ctx.Err()
			case "quiet":
				return " \n", nil
			}
			return "", errors.New("exit status 1")
		},
	}
	for v, want := range map[string]string{
		"$MISSING": "Environment variable 'MISSING' is not set or is empty. Please set it before using this agent.",
		"$EMPTY":   "Environment variable 'EMPTY' is not set or is empty. Please set it before using this agent.",
		"! ":       "Empty command in auth value. Expected format: !command",
		"!hang":    "Command 'hang' timed out after 0 seconds",
		"!quiet":   "Command 'quiet' returned empty output",
		"!fail":    "running the auth command 'fail': exit status 1",
	} {
		o := *opts
		if v == "!hang" {
			o.commandTimeout = 1
		}
		if _, err := resolveValue(t.Context(), v, &o); err == nil || err.Error() != want {
			t.Errorf("resolveValue(%q) = %v, want %q", v, err, want)
		}
	}
}

// A command's output is bounded; its failure says what it printed.
func TestRunShell(t *testing.T) {
	long, failing := "head -c 70000 /dev/zero", "echo nope >&2; exit 3"
	switch osshell.Local().Kind { // the shell runShell runs them in
	case osshell.PowerShell:
		long, failing = "'a' * 70000", "[Console]::Error.WriteLine('nope'); exit 3"
	case osshell.Cmd:
		long, failing = "for /l %i in (1,1,7000) do @echo 123456789", "echo nope 1>&2 & exit 3"
	}
	if _, err := runShell(t.Context(), long); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("long output: %v", err)
	}
	if _, err := runShell(t.Context(), failing); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("failure: %v", err)
	}
}

// A refused Google token is replaced by a fresh one.
func TestGoogleCredentialRefreshes(t *testing.T) {
	var asked []GoogleTokenRequest
	opts := &Options{GoogleToken: func(_ context.Context, req GoogleTokenRequest) (string, error) {
		asked = append(asked, req)
		return "tok", nil
	}}
	g := &googleCredential{scopes: defaultGoogleScopes, opts: opts}
	for _, refresh := range []bool{false, true} {
		if _, ok, err := g.headers(t.Context(), refresh); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if len(asked) != 2 || asked[0].Fresh || !asked[1].Fresh {
		t.Errorf("asked %+v", asked)
	}
}

// A task that stands still under polling for the idle timeout ends the
// run; one that moves is followed.
func TestPollingGivesUpOnATaskStandingStill(t *testing.T) {
	gets := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/card" {
			w.Write([]byte(`{"name":"P","url":"http://` + r.Host + `/rpc","capabilities":{"streaming":false}}`))
			return
		}
		var req struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		status := `{"state":"working"}`
		if req.Method == "tasks/get" {
			gets++
			if gets == 1 {
				// One step forward: a message.
				status = `{"state":"working","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"step"}]}}`
			}
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":"` + req.ID + `","result":{"kind":"task","id":"t1","contextId":"c1","status":` + status + `}}`))
	}))
	t.Cleanup(srv.Close)
	clock := time.Unix(0, 0)
	opts := Options{PollInterval: 1, clock: func() time.Time {
		clock = clock.Add(20 * time.Minute)
		return clock
	}}
	c, err := New(&subagents.Definition{Name: "p", Kind: subagents.Remote, CardURL: srv.URL + "/card"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "Slowly", nil)
	if !errors.Is(err, ErrSilent) || !strings.Contains(text, "the task stayed working") {
		t.Errorf("Run = %q, %v", text, err)
	}
	// The first poll moved (a message); the next two stood still, 40
	// minutes past the 30 of the default idle timeout.
	if gets != 3 {
		t.Errorf("%d polls", gets)
	}
}
