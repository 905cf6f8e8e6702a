package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// raiseCall switches the session to yolo, asking the user first when ask.
type raiseCall struct{ ask bool }

func (raiseCall) Title() string                     { return "raise" }
func (raiseCall) Confirmation() *tools.Confirmation { return nil }
func (c raiseCall) Execute(ctx context.Context, info tools.CallInfo) (tools.Result, error) {
	if c.ask {
		if _, err := info.Ask(ctx, dialog.Question{Kind: "raise", Title: "Raise?"}); err != nil {
			return tools.Result{}, err
		}
	}
	return tools.Result{Output: "raised", Mode: dialog.ApprovalYolo}, nil
}

// A call's switch of the approval mode that nobody chose never raises
// it: a tool that asks for yolo without a question of its own leaves
// the session in its mode, and the model is told; one whose question
// the user answered switches it.
func TestCallCannotRaiseTheModeUnasked(t *testing.T) {
	for _, ask := range []bool{false, true} {
		srv := geminitest.NewTestServer(t,
			geminitest.CallTurn(geminitest.Call("raise", nil)),
			geminitest.TextTurn("ok"),
		)
		raise := fakeTool{name: "raise", build: func(map[string]any) (tools.Call, error) { return raiseCall{ask: ask}, nil }}
		a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(raise), ApprovalMode: dialog.ApprovalDefault, Asker: &planAsker{}})
		s := a.NewSession()
		if res, _ := prompt(t, s, "raise"); res.Err != nil {
			t.Fatal(res.Err)
		}
		want := dialog.ApprovalDefault
		if ask {
			want = dialog.ApprovalYolo
		}
		if got := s.ApprovalMode(); got != want {
			t.Errorf("asked %v: the mode is %s, want %s", ask, got, want)
		}
		out, _ := responses(t, srv.Requests()[1])[0].Response["output"].(string)
		if told := strings.Contains(out, "Nobody chose yolo, so the approval mode is default"); told == ask {
			t.Errorf("asked %v: the model read %q", ask, out)
		}
	}
}
