package remote_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// executor is a test agent built with the SDK's server: execute runs each
// task; Cancel records the task and cancels it.
type executor struct {
	execute func(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error

	// Stop is closed by the first cancel, for execute to end on.
	Stop     chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	canceled []a2a.TaskID
	messages []*a2a.Message // each task's triggering message
	contexts []string       // and its context
}

func (e *executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	e.mu.Lock()
	e.messages = append(e.messages, rc.Message)
	e.contexts = append(e.contexts, rc.ContextID)
	e.mu.Unlock()
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	return e.execute(ctx, rc, q)
}

func (e *executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	e.mu.Lock()
	e.canceled = append(e.canceled, rc.TaskID)
	e.mu.Unlock()
	e.stopOnce.Do(func() { close(e.Stop) })
	ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

func (e *executor) Canceled() []a2a.TaskID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]a2a.TaskID(nil), e.canceled...)
}

func (e *executor) Messages() ([]*a2a.Message, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*a2a.Message(nil), e.messages...), append([]string(nil), e.contexts...)
}

// answer is an agent that says it is looking, then answers in an
// artifact: "Looking. " and "The answer to <query> is 42.".
func answer(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	query := ""
	if len(rc.Message.Parts) > 0 {
		if p, ok := rc.Message.Parts[0].(a2a.TextPart); ok {
			query = p.Text
		}
	}
	steps := []a2a.Event{
		a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: "Looking. "})),
	}
	art := a2a.NewArtifactEvent(rc, a2a.TextPart{Text: "The answer to " + query + " is 42."})
	art.Artifact.Name = "answer"
	done := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCompleted, nil)
	done.Final = true
	steps = append(steps, art, done)
	for _, ev := range steps {
		if err := q.Write(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

const wantAnswer = "Looking. \n\nArtifact (answer):\nThe answer to What is it? is 42."

// agentServer is an A2A agent on loopback: its card at /.well-known/agent-card.json,
// its JSON-RPC service at /rpc, every request recorded.
type agentServer struct {
	*httptest.Server
	Exec *executor
	Rec  *origintest.Recorder
	Mux  *http.ServeMux
}

// CardURL is where the card is.
func (s *agentServer) CardURL() string { return s.URL + a2asrv.WellKnownAgentCardPath }

// newAgentServer starts an agent that runs exec, its card saying whether
// it streams; guard, if any, stands between the recorder and the agent.
func newAgentServer(t *testing.T, exec func(context.Context, *a2asrv.RequestContext, eventqueue.Queue) error, streaming bool, guard ...func(http.Handler) http.Handler) *agentServer {
	t.Helper()
	s := &agentServer{Exec: &executor{execute: exec, Stop: make(chan struct{})}, Mux: http.NewServeMux()}
	var h http.Handler = s.Mux
	for _, g := range guard {
		h = g(h)
	}
	s.Rec = origintest.Record(h)
	s.Server = httptest.NewServer(tagPath(s.Rec))
	t.Cleanup(s.Close)
	s.Mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(s.Exec)))
	s.Mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(testCard(s.URL+"/rpc", streaming)))
	return s
}

func testCard(serviceURL string, streaming bool) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:               "Answerer",
		Description:        "Answers questions.",
		URL:                serviceURL,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion:    "0.3.0",
		Version:            "1.0.0",
		DefaultInputModes:  []string{"text"},
		DefaultOutputModes: []string{"text"},
		Capabilities:       a2a.AgentCapabilities{Streaming: streaming},
		Skills:             []a2a.AgentSkill{{ID: "answer", Name: "Answer", Description: "Answers one question."}},
	}
}

// rpcHeaders are the headers of the requests that reached path on rec's
// server (the card's or the service's).
func rpcHeaders(rec *origintest.Recorder, path string) []http.Header {
	var out []http.Header
	for _, h := range rec.Headers() {
		if h.Get("X-Test-Path") == path {
			out = append(out, h)
		}
	}
	return out
}

// tagPath marks each request's path into its headers, for rpcHeaders.
func tagPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Test-Path", r.URL.Path)
		next.ServeHTTP(w, r)
	})
}

func remoteDef(cardURL string, auth *subagents.Auth) *subagents.Definition {
	return &subagents.Definition{Name: "answerer", Kind: subagents.Remote, CardURL: cardURL, Auth: auth}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func decodeJSON(r *http.Request, v any) error {
	return json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(v)
}

// inlineCard is card as a definition's agent_card_json.
func inlineCard(t *testing.T, card *a2a.AgentCard) *subagents.Definition {
	t.Helper()
	b, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	return &subagents.Definition{Name: "answerer", Kind: subagents.Remote, CardJSON: string(b)}
}
