package bench

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"google.golang.org/genai"
)

// Each agent's request is answered from itself: the call its count of
// answered calls reaches, its file naming its own worktree, then the
// final text; each answer after the delay.
func TestAgentModelTurnAnswersEachAgentFromItsRequest(t *testing.T) {
	request := func(name string, answered int) geminitest.Request {
		contents := []*genai.Content{genai.NewContentFromText("Survey.", genai.RoleUser)}
		for range answered {
			contents = append(contents,
				&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{genai.NewPartFromFunctionCall("glob", nil)}},
				&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("glob", map[string]any{"output": "x"})}})
		}
		return geminitest.Request{
			Body:     []byte(`{"systemInstruction":{"parts":[{"text":"Your root is /tmp/r/.gemini/worktrees/` + name + `."}]}}`),
			Contents: contents,
		}
	}
	turn := agentModelTurn(200 * time.Millisecond)
	for k, c := range agentCalls {
		got := turn.From(request("agent-3", k))
		if got.Delay != 200*time.Millisecond {
			t.Errorf("answer %d waits %v, want the model's 200ms", k, got.Delay)
		}
		if len(got.Chunks) != 1 || got.Chunks[0].Call == nil || got.Chunks[0].Call.Name != c.name {
			t.Fatalf("after %d answered calls the model answered %+v, want a call of %s", k, got.Chunks, c.name)
		}
		if c.name == "write_file" {
			if content := got.Chunks[0].Call.Args["content"]; content != "written by agent-3\n" {
				t.Errorf("agent-3 writes %q, want its own name", content)
			}
		}
	}
	if got := turn.From(request("agent-3", len(agentCalls))); len(got.Chunks) != 1 || got.Chunks[0].Text != agentDone {
		t.Errorf("after every call the model answered %+v, want %q", got.Chunks, agentDone)
	}
	for k, c := range agentCalls {
		if c.name == "write_file" {
			if content := turn.From(request("agent-7", k)).Chunks[0].Call.Args["content"]; content != "written by agent-7\n" {
				t.Errorf("agent-7 writes %q, want its own name", content)
			}
		}
	}
}

// An agent is announced when the first gemini/agent naming it was read,
// whatever notifications come between.
func TestAnnouncedAtIsEachAgentsFirstNotification(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	frames := []frame{
		{At: at(0), Dir: toServer, Kind: message, Method: "gemini/prompt"},
		{At: at(5), Dir: fromServer, Kind: message, Method: "gemini/agent"},
		{At: at(6), Dir: fromServer, Kind: message, Method: "gemini/update", UpdateKind: "text"},
		{At: at(9), Dir: fromServer, Kind: message, Method: "gemini/agent"},
		{At: at(12), Dir: fromServer, Kind: message, Method: "gemini/agent"},
		{At: at(20), Dir: fromServer, Kind: response},
	}
	agent := func(name, state string) lsptest.Message {
		p, _ := json.Marshal(map[string]any{"state": state, "worktree": map[string]string{"name": name}})
		return lsptest.Message{Method: "gemini/agent", Params: p}
	}
	got := announcedAt(frames, []lsptest.Message{agent("a", "working"), agent("b", "working"), agent("a", "done")})
	if len(got) != 2 || !got["a"].Equal(at(5)) || !got["b"].Equal(at(9)) {
		t.Errorf("announcedAt = %v, want a at 5 ms and b at 9 ms", got)
	}
}
