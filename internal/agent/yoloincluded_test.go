package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The session as setup makes it, ~ included beside the project
// (--include-directories ~) in yolo (issue 94): the model's write of
// ~/.gemini/settings.json asks the user, and headless is refused, the
// model told why; an ordinary file in the same included directory and
// the project's own .gemini/settings.json land unasked.
func TestYoloWriteOfAnIncludedUserSettingsAsks(t *testing.T) {
	for _, headless := range []bool{false, true} {
		t.Run(fmt.Sprintf("headless %v", headless), func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			must(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o755))
			ws, err := workspace.New([]string{project}, nil)
			must(t, err)
			project = ws.Roots()[0]
			home, _, err = ws.AddRoot(home)
			must(t, err)
			userSettings := filepath.Join(home, ".gemini", "settings.json")
			notes := filepath.Join(home, "notes.md")
			projectSettings := filepath.Join(project, ".gemini", "settings.json")

			srv := geminitest.NewTestServer(t,
				write(userSettings, `{"hooks": {}}`+"\n"), write(notes, "n\n"), write(projectSettings, "{}\n"), geminitest.TextTurn("ok"))
			var asked, landed []string
			lander := landerFunc(func(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
				if req.Ask {
					asked = append(asked, req.Change.Path)
				}
				landed = append(landed, req.Change.Path)
				return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied}}, nil
			})
			a, _ := newAgent(t, srv, agent.Config{
				Tools: tools.NewRegistry(writeTool(ws)), Workspace: ws, ApprovalMode: dialog.ApprovalYolo,
				Policy: policy.Load(nil, !headless), ProjectRoots: []string{project},
			})
			front{lander: lander}.prompt(t, a.NewSession(), "write them")

			wantAsked, wantLanded := []string{userSettings}, []string{userSettings, notes, projectSettings}
			if headless {
				wantAsked, wantLanded = nil, []string{notes, projectSettings}
				told := fmt.Sprint(responses(t, srv.Requests()[1])[0].Response)
				if !strings.Contains(told, "needs a person's approval in every approval mode, yolo too") || !strings.Contains(told, "included from outside the project") {
					t.Errorf("the model was told %s", told)
				}
			}
			if fmt.Sprint(asked) != fmt.Sprint(wantAsked) || fmt.Sprint(landed) != fmt.Sprint(wantLanded) {
				t.Errorf("asked about %q, landed %q; want asked %q, landed %q", asked, landed, wantAsked, wantLanded)
			}
		})
	}
}
