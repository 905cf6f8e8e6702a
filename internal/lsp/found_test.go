package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A search's toolResult lists what it found, named relative to the
// workspace as toolCall's path is, at most maxFound of it with the total:
// a grep of a common word finds thousands of lines.
func TestToolResultListsWhatASearchFound(t *testing.T) {
	root := t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := []dialog.Location{{Path: filepath.Join(root, "pkg"), Dir: true}}
	for i := range 150 {
		found = append(found, dialog.Location{Path: filepath.Join(root, "main.go"), Line: i + 1})
	}
	ev := dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "c", Name: "grep_search", Status: dialog.StatusOK, Display: "Found 150 matches.", Found: found}}
	b, err := json.Marshal(updateOf(ev, ws))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Found      []foundPlace `json:"found"`
		FoundTotal int          `json:"foundTotal"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Found) != maxFound || got.FoundTotal != 151 {
		t.Fatalf("the update lists %d places of %d, want %d of 151", len(got.Found), got.FoundTotal, maxFound)
	}
	if got.Found[0] != (foundPlace{Path: "pkg", Dir: true}) || got.Found[1] != (foundPlace{Path: "main.go", Line: 1}) {
		t.Errorf("the places are named %+v, %+v", got.Found[0], got.Found[1])
	}

	// Any other call's result has neither field.
	ev.Result.Found = nil
	b, _ = json.Marshal(updateOf(ev, ws))
	if s := string(b); strings.Contains(s, "found") {
		t.Errorf("a result that found nothing carries %s", s)
	}
}
