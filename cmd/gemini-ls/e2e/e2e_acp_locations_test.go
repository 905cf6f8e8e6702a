package e2e

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Each tool call's tool_call carries the locations Gemini CLI 0.61's
// toolLocations gives, so an editor following the agent (Zed) opens the
// file at the line: read_file its file at start_line, replace and
// write_file the file they change, at the line the change starts (0.61
// gives their file alone); a call about no one file, none.
func TestACPToolCallLocations(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"a.go": aGo}},
		call("read_file", map[string]any{"file_path": "a.go", "start_line": 3.0}),
		call("read_file", map[string]any{"file_path": "a.go"}),
		replaceA(),
		call("write_file", map[string]any{"file_path": "b.txt", "content": "b\n"}),
		call("glob", map[string]any{"pattern": "*.go"}),
		geminitest.TextTurn("done"))
	h.mustPrompt("look, then edit", sdk.StopReasonEndTurn)

	var got []string
	for _, c := range h.client.ToolCalls() {
		got = append(got, c.Title+" "+showLocations(c.Locations))
	}
	want := []string{
		"ReadFile a.go (lines 3-2002) [" + h.path("a.go") + ":3]",
		"ReadFile a.go [" + h.path("a.go") + "]",
		"Edit a.go [" + h.path("a.go") + ":3]",
		"WriteFile b.txt [" + h.path("b.txt") + ":1]",
		"FindFiles *.go []",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tool calls and their locations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if perms := h.client.Permissions(); len(perms) != 2 || showLocations(perms[0].ToolCall.Locations) != "["+h.path("a.go")+"]" {
		t.Errorf("permission requests %+v, want the edit's at a.go, then the write's", perms)
	}
}

// showLocations is locations as path:line, in a line.
func showLocations(locs []sdk.ToolCallLocation) string {
	var s []string
	for _, l := range locs {
		if l.Line != nil {
			s = append(s, fmt.Sprintf("%s:%d", l.Path, *l.Line))
		} else {
			s = append(s, l.Path)
		}
	}
	return "[" + strings.Join(s, " ") + "]"
}
