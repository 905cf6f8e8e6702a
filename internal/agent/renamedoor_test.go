package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// renameServer answers every rename with one edit of "Foo" at 0:5-0:8
// in each of files.
type renameServer struct{ files []string }

func (r renameServer) Ask(context.Context, codeintel.Request) (codeintel.Answer, error) {
	changes := map[string]any{}
	for _, f := range r.files {
		changes[codeintel.URIOf(f)] = []any{map[string]any{
			"range":   map[string]any{"start": map[string]any{"line": 0, "character": 5}, "end": map[string]any{"line": 0, "character": 8}},
			"newText": "Bar"}}
	}
	b, _ := json.Marshal(map[string]any{"changes": changes})
	return codeintel.Answer{Result: b, Source: "fake", Encoding: workspace.UTF16}, nil
}

// filesLander records whether each multi-file change was to be asked
// about, and lands nothing.
type filesLander struct{ asked []bool }

func (l *filesLander) Land(context.Context, dialog.LandRequest) (dialog.Landing, error) {
	return dialog.Landing{}, nil
}
func (l *filesLander) LandFiles(_ context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	l.asked = append(l.asked, req.Ask)
	out := make([]dialog.Decision, len(req.Changes))
	for i := range out {
		out[i] = dialog.Decision{Outcome: dialog.Applied}
	}
	return out, nil
}

// rename_symbol's call passes the door by the file it starts in, and its
// change lands in every file the language server names: each is judged
// too. In auto_edit, a rename reaching a protected file (.vscode/) asks;
// in plan mode, one started in the plan file that reaches source is
// refused, and nothing lands.
func TestARenameAcrossFilesIsJudgedByEveryFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    dialog.ApprovalMode
		start   string // the file the rename starts in, relative
		other   string // another file the rename changes
		refused bool
	}{
		{"auto_edit reaches a protected file", dialog.ApprovalAutoEdit, "main.go", ".vscode/tasks.go", false},
		{"auto_edit reaches none", dialog.ApprovalAutoEdit, "main.go", "other.go", false},
		{"plan mode reaches source from the plan file", dialog.ApprovalPlan, "plans/p.md", "main.go", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{tc.start, tc.other} {
				must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
				must(t, os.WriteFile(filepath.Join(dir, f), []byte("func Foo() {}\n"), 0o644))
			}
			ws, err := workspace.New([]string{dir}, nil)
			must(t, err)
			srvFiles := []string{filepath.Join(dir, tc.start), filepath.Join(dir, tc.other)}
			reg := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, CodeIntel: renameServer{srvFiles}, Skills: &skills.Catalog{}})...)
			srv := geminitest.NewTestServer(t,
				geminitest.CallTurn(geminitest.Call(tools.RenameSymbolName, map[string]any{"file_path": tc.start, "line": 1, "symbol": "Foo", "new_name": "Bar"})),
				geminitest.TextTurn("done"))
			lander := &filesLander{}
			ui := front{lander: lander}
			a, _ := newAgent(t, srv, agent.Config{Tools: reg, ApprovalMode: tc.mode, Workspace: ws,
				PlansDir: func(string) (string, error) { return filepath.Join(dir, "plans"), nil }})
			ui.prompt(t, a.NewSession(), "rename Foo to Bar")
			wantAsked := tc.other == ".vscode/tasks.go"
			switch {
			case tc.refused && len(lander.asked) != 0:
				t.Errorf("the rename of %s and %s was landed (asked: %v), not refused", tc.start, tc.other, lander.asked)
			case tc.refused:
				reqs := srv.Requests()
				if got := toJSON(responses(t, reqs[len(reqs)-1])); !strings.Contains(got, "You are in Plan Mode") {
					t.Errorf("the model was told %s, not plan mode's refusal", got)
				}
			case len(lander.asked) != 1 || lander.asked[0] != wantAsked:
				t.Errorf("the rename of %s and %s landed asking %v, want %v", tc.start, tc.other, lander.asked, wantAsked)
			}
		})
	}
}
