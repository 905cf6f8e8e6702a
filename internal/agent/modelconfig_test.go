package agent_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/modelconfig"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func steadyConfigs(t *testing.T) *modelconfig.Set {
	t.Helper()
	set, err := modelconfig.FromSettings(nil,
		map[string]any{
			"steady": map[string]any{"extends": "chat-base", "modelConfig": map[string]any{"model": "gemini-2.5-flash", "generateContentConfig": map[string]any{"temperature": 0.25}}},
			"loop":   map[string]any{"extends": "loop"},
		},
		nil,
		[]any{map[string]any{"match": map[string]any{"model": "steady"}, "modelConfig": map[string]any{"generateContentConfig": map[string]any{"topP": 0.5}}}})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A model picked while the agent runs (an editor's or ACP client's
// choice: SetModel) resolves through modelConfigs at its next request.
func TestPickedAliasResolvesAtTheNextRequest(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", ModelConfigs: steadyConfigs(t)})
	s := a.NewSession()
	prompt(t, s, "first")
	a.SetModel("steady")
	prompt(t, s, "second")
	reqs := srv.Requests()
	if reqs[0].Model != "gemini-2.5-pro" || reqs[0].GenerationConfig.Temperature != nil {
		t.Errorf("before the pick: %s, temperature %v; want gemini-2.5-pro as gemini-ls sends it", reqs[0].Model, reqs[0].GenerationConfig.Temperature)
	}
	g := reqs[1].GenerationConfig
	if reqs[1].Model != "gemini-2.5-flash" || g.Temperature == nil || *g.Temperature != 0.25 || g.TopP == nil || *g.TopP != 0.5 {
		t.Errorf("after picking steady: %s %+v; want gemini-2.5-flash, temperature 0.25, topP 0.5", reqs[1].Model, g)
	}
}

// An alias whose chain loops ends the prompt with an error that says so,
// and sends nothing.
func TestLoopingAliasFailsThePrompt(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("never"))
	a, _ := newAgent(t, srv, agent.Config{Model: "loop", ModelConfigs: steadyConfigs(t)})
	res, _ := prompt(t, a.NewSession(), "hello")
	if res.Err == nil || !strings.Contains(res.Err.Error(), "circular alias dependency: loop -> loop") {
		t.Errorf("error %v, want the circular chain named", res.Err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// A subagent's requests match an override whose overrideScope is its
// name, as 0.61 resolves them; the main agent's do not.
func TestSubagentOverrideScope(t *testing.T) {
	reg, ws, _ := realTools(t)
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "where is alpha")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "in a.txt"})),
		geminitest.TextTurn("done"),
	)
	set, err := modelconfig.FromSettings(nil, nil, nil, []any{map[string]any{
		"match":       map[string]any{"overrideScope": "investigator"},
		"modelConfig": map[string]any{"generateContentConfig": map[string]any{"temperature": 0.125}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws, Agents: catalog{investigator()}, ModelConfigs: set})
	prompt(t, a.NewSession(), "find alpha")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if g := reqs[1].GenerationConfig; reqs[1].Model != "sub-model" || g.Temperature == nil || *g.Temperature != 0.125 {
		t.Errorf("the subagent's request: %s %+v; want sub-model at temperature 0.125", reqs[1].Model, g)
	}
	for _, i := range []int{0, 2} {
		if g := reqs[i].GenerationConfig; g.Temperature != nil {
			t.Errorf("the main agent's request %d has temperature %v", i, *g.Temperature)
		}
	}
}
