package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A call the user runs outside a model turn (/restore's proposed
// again) passes the approval door as the model's: in the default mode
// its edit is landed with the question, and lands only when the user
// allows it; it is checkpointed with the history ending with it, the
// user sees it and its result as events, the model is told in the next
// request (the call as the model's turn, its answer as the user's), and
// its change is journaled with the last prompt, which a rewind reverts.
func TestRunCallPassesTheDoorAndIsRecorded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		allow    bool
		want     string // a.txt after the call
		status   dialog.Status
		response string // in the function response the model reads
	}{
		{name: "confirmed", allow: true, want: "again\n", status: dialog.StatusOK, response: "output"},
		{name: "declined", allow: false, want: "after\n", status: dialog.StatusRejected, response: "not applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.txt")
			must(t, os.WriteFile(path, []byte("before\n"), 0o644))
			ws, err := workspace.New([]string{dir}, nil)
			must(t, err)
			var asked []bool
			decline := false // the prompt's own edit is allowed
			lander := landerFunc(func(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
				asked = append(asked, req.Ask)
				if req.Ask && decline {
					return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined it"}}, nil
				}
				dec, err := tools.LandOnDisk(ctx, req.Change)
				return dialog.Landing{Decision: dec}, err
			})
			cp := &checkpointer{path: path}
			srv := geminitest.NewTestServer(t, write(path, "after\n"), geminitest.TextTurn("done"), geminitest.TextTurn("next"))
			ui := front{lander: diskFiles{lander}}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), ApprovalMode: dialog.ApprovalDefault, Workspace: ws, Checkpointer: cp})
			s := a.NewSession()
			if res, _ := ui.prompt(t, s, "edit"); res.StopReason != dialog.StopEndTurn {
				t.Fatalf("prompt: %+v", res)
			}
			asked, decline = nil, !tc.allow

			var evs events
			res, err := s.RunCall(context.Background(), "write", map[string]any{"path": path, "text": "again\n"}, ui.port(evs.emit))
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.status || res.Name != "write" {
				t.Errorf("result %+v; want %s", res, tc.status)
			}
			if got := read(t, path); got != tc.want {
				t.Errorf("a.txt = %q, want %q", got, tc.want)
			}
			if !slices.Equal(asked, []bool{true}) {
				t.Errorf("landed with Ask %v; want the user asked once", asked)
			}
			if kinds := evs.kinds(); !slices.Equal(kinds, []string{"ToolCallEvent", "ToolResultEvent"}) {
				t.Errorf("events %v; want the call and its result", kinds)
			}
			if n := len(cp.reqs); n != 2 || cp.reqs[1].Tool != "write" || cp.reqs[1].History[len(cp.reqs[1].History)-1].Parts[0].FunctionCall == nil {
				t.Errorf("checkpoints %d; want the call's, its history ending with it", n)
			}

			ui.prompt(t, s, "next")
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Contents
			n := len(last)
			call, answer := last[n-3], last[n-2]
			if call.Role != "model" || call.Parts[0].FunctionCall == nil || call.Parts[0].FunctionCall.Args["text"] != "again\n" ||
				answer.Role != "user" || answer.Parts[0].FunctionResponse == nil || answer.Parts[0].FunctionResponse.ID != call.Parts[0].FunctionCall.ID {
				t.Fatalf("the request after the call ends %+v %+v; want the call and its answer before the prompt", call, answer)
			}
			if got := strings.ToLower(toJSON(answer.Parts[0].FunctionResponse.Response)); !strings.Contains(got, tc.response) {
				t.Errorf("the model reads %s; want %q", got, tc.response)
			}

			if _, err := s.Rewind(context.Background(), 1, dialog.RewindCode, ui.port(nil)); err != nil {
				t.Fatal(err)
			}
			if got := read(t, path); got != "before\n" {
				t.Errorf("a.txt after rewinding the prompt = %q; want the call's change reverted too", got)
			}
		})
	}
}

// diskFiles is a lander that lands reverts on disk.
type diskFiles struct{ landerFunc }

func (diskFiles) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	return (&diskUser{}).LandFiles(ctx, req)
}
