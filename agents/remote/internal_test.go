package remote

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
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

type stallingTransport struct{}

func (stallingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: &stallingBody{ctx: req.Context()}, Request: req}, nil
}

// A body that goes silent mid-way ends with ErrSilent, recorded in the
// budget, not with a read that waits for ever.
func TestBodySilenceEndsTheRead(t *testing.T) {
	bud := newBudget(1<<20, "the test's responses")
	req, _ := http.NewRequestWithContext(withBudget(t.Context(), bud), http.MethodGet, "http://agent.test/rpc", nil)
	resp, err := bounded{base: stallingTransport{}, idle: 1}.RoundTrip(req)
	if err != nil {
		// The timer may fire before the response is taken in: the same
		// silence, found earlier.
		if !errors.Is(err, ErrSilent) {
			t.Fatal(err)
		}
		return
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
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
