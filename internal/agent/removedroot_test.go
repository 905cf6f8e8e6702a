package agent_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A change prepared in a root the editor removes before it lands (the
// workspace folders changed mid-turn) is refused, never handed to the
// front end, and the model reads why.
func TestChangeInARootRemovedBeforeItLandsIsRefused(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	ws, err := workspace.New([]string{first, second}, nil)
	must(t, err)
	second = ws.Roots()[1]
	target := filepath.Join(second, "a.txt")
	removing := fakeTool{name: "write", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "Write", kind: dialog.KindEdit, confirmation: tools.EditConfirmation(target), exec: func(ctx context.Context) (tools.Result, error) {
			change, err := ws.PrepareChange(ctx, target, "text\n")
			if err != nil {
				return tools.Result{}, err
			}
			if _, _, err := ws.RemoveRoot(second); err != nil { // the editor, meanwhile
				return tools.Result{}, err
			}
			return tools.Result{Proposal: &tools.Proposal{Change: change}}, nil
		}}, nil
	}}
	srv := geminitest.NewTestServer(t, write(target, "text\n"), geminitest.TextTurn("ok"))
	landed := 0
	lander := landerFunc(func(context.Context, dialog.LandRequest) (dialog.Landing, error) {
		landed++
		return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied}}, nil
	})
	ui := front{lander: lander}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(removing), Workspace: ws, ApprovalMode: dialog.ApprovalYolo})
	ui.prompt(t, a.NewSession(), "write")
	if landed != 0 {
		t.Errorf("the front end was handed the change %d time(s)", landed)
	}
	told := fmt.Sprint(responses(t, srv.Requests()[1])[0].Response)
	if !strings.Contains(told, "removed from the editor's workspace folders") {
		t.Errorf("the model was told %s", told)
	}
}
