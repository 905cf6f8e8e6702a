package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// answerer is an A2A agent that answers "The answer to QUERY is 42.".
type answerer struct{}

func (answerer) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	query := ""
	if len(rc.Message.Parts) > 0 {
		if p, ok := rc.Message.Parts[0].(a2a.TextPart); ok {
			query = p.Text
		}
	}
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	done := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCompleted, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: "The answer to " + query + " is 42."}))
	done.Final = true
	return q.Write(ctx, done)
}

func (answerer) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// Headless: a remote agent of the user's (kind: remote, its card's URL,
// a bearer token) is hired through invoke_agent over A2A; its answer is
// the main agent's function response, and the token reached it.
func TestRunRemoteAgentAnswers(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(answerer{})))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{
		Name: "Answerer", Description: "Answers questions.", URL: srv.URL + "/rpc",
		PreferredTransport: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0", Version: "1.0.0",
		DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"},
		Skills: []a2a.AgentSkill{{ID: "answer", Name: "Answer", Description: "Answers one question."}},
	}))

	h := newHeadless(t, nil,
		call("invoke_agent", map[string]any{"agent_name": "answerer", "prompt": "What is it?"}),
		geminitest.TextTurn("It is 42."),
	)
	agentsDir := filepath.Join(h.homeOf(), ".gemini", "agents")
	if err := os.MkdirAll(agentsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nkind: remote\nname: answerer\ndescription: Answers questions.\nagent_card_url: " + srv.URL + a2asrv.WellKnownAgentCardPath +
		"\nauth:\n  type: http\n  scheme: Bearer\n  token: s3cret\n---\n"
	if err := os.WriteFile(filepath.Join(agentsDir, "answerer.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	res := h.run("run", "-p", "ask the answerer")
	res.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 1 || !strings.Contains(responseOutput(fr[0]), "The answer to What is it? is 42.") {
		t.Fatalf("the main agent's function response: %+v", fr)
	}
	mu.Lock()
	defer mu.Unlock()
	sawRPC := false
	for _, a := range auths {
		if strings.HasPrefix(a, "/rpc ") {
			sawRPC = true
			if a != "/rpc Bearer s3cret" {
				t.Errorf("the agent's service got %q, want the bearer token", a)
			}
		}
	}
	if !sawRPC {
		t.Errorf("the agent's service was never called: %q", auths)
	}
	contains(t, "stdout", res.stdout, "It is 42.")
}
