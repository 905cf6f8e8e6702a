package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// longCall tells how it goes, as an MCP task does.
type longCall struct{}

func (longCall) Title() string                     { return "long" }
func (longCall) Confirmation() *tools.Confirmation { return nil }
func (longCall) Execute(_ context.Context, info tools.CallInfo) (tools.Result, error) {
	if info.Progress == nil {
		return tools.Result{}, errors.New("no way to show progress")
	}
	info.Progress("half way")
	return tools.Result{Output: "done"}, nil
}

// A long call's progress (tools.CallInfo.Progress) reaches the user as a
// notice of the turn, while the call runs.
func TestACallsProgressIsShownToTheUser(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("long", nil)),
		geminitest.TextTurn("ok"),
	)
	long := fakeTool{name: "long", build: func(map[string]any) (tools.Call, error) { return longCall{}, nil }}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(long), ApprovalMode: dialog.ApprovalYolo})
	res, evs := prompt(t, a.NewSession(), "go")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var notices []string
	for _, ev := range only[dialog.NoticeEvent](evs) {
		notices = append(notices, ev.Text)
	}
	if len(notices) != 1 || notices[0] != "half way" {
		t.Errorf("notices %q, want the call's progress; events %v", notices, evs.kinds())
	}
}
