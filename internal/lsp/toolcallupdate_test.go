package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A toolCall update tells the editor what the tool presents: its kind,
// its file as protocol.md names files (relative to the first root,
// absolute outside it), the line, the to-do list write_todos sets (sent
// empty when it clears the list, absent for other calls) and whether it
// presents a plan.
func TestToolCallUpdateTellsWhatTheToolIs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(root), "elsewhere.txt")
	for _, c := range []struct {
		name string
		call dialog.ToolCall
		want string
	}{
		{"an edit", dialog.ToolCall{CallID: "c1", Name: "rename_symbol", Title: "Rename", Kind: dialog.KindEdit, Path: filepath.Join(root, "dir", "main.go"), Line: 7},
			`{"sessionId":"s","kind":"toolCall","callId":"c1","name":"rename_symbol","title":"Rename","toolKind":"edit","line":7,"path":"dir/main.go"}`},
		{"a file outside the workspace, whole", dialog.ToolCall{CallID: "c2", Name: "read_file", Title: "ReadFile", Kind: dialog.KindRead, Path: outside},
			`{"sessionId":"s","kind":"toolCall","callId":"c2","name":"read_file","title":"ReadFile","toolKind":"read","path":` + quoteJSON(t, outside) + `}`},
		{"a to-do list", dialog.ToolCall{CallID: "c3", Name: "write_todos", Title: "Todos", Kind: dialog.KindThink, Todos: []dialog.Todo{{Description: "Read the code", Status: "completed"}, {Description: "Fix it", Status: "in_progress"}}},
			`{"sessionId":"s","kind":"toolCall","callId":"c3","name":"write_todos","title":"Todos","toolKind":"think","todos":[{"description":"Read the code","status":"completed"},{"description":"Fix it","status":"in_progress"}]}`},
		{"the list cleared", dialog.ToolCall{CallID: "c4", Name: "write_todos", Title: "Todos", Kind: dialog.KindThink, Todos: []dialog.Todo{}},
			`{"sessionId":"s","kind":"toolCall","callId":"c4","name":"write_todos","title":"Todos","toolKind":"think","todos":[]}`},
		{"a plan", dialog.ToolCall{CallID: "c5", Name: "exit_plan_mode", Title: "Plan", Kind: dialog.KindOther, Path: filepath.Join(root, "plan.md"), PresentsPlan: true},
			`{"sessionId":"s","kind":"toolCall","callId":"c5","name":"exit_plan_mode","title":"Plan","toolKind":"other","presentsPlan":true,"path":"plan.md"}`},
		{"a call that could not be built", dialog.ToolCall{CallID: "c6", Name: "nope", Title: "nope", Args: map[string]any{"x": 1.0}},
			`{"sessionId":"s","kind":"toolCall","callId":"c6","name":"nope","title":"nope","args":{"x":1}}`},
	} {
		var sent []update
		updates{"s", func(u update) { sent = append(sent, u) }, ws}.Show(context.Background(), dialog.Subagent{}, dialog.ToolCallEvent{Call: c.call})
		if len(sent) != 1 {
			t.Fatalf("%s: sent %d updates, want one", c.name, len(sent))
		}
		b, err := json.Marshal(sent[0])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s: sent\n%s\nwant\n%s", c.name, b, c.want)
		}
	}
}

func quoteJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
