package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/memory"
)

// jitWorkspace has a root GEMINI.md (the system instruction's, never
// discovered) and one in sub/, which the tools discover.
func jitWorkspace(t *testing.T) (*testWorkspace, Options) {
	tw := newTestWorkspace(t, map[string]string{
		"GEMINI.md":     "root rules",
		"sub/GEMINI.md": "sub rules",
		"sub/a.go":      "package sub\n",
		"sub/b.go":      "package sub // b\n",
	})
	return tw, Options{Memory: memory.New(memory.Config{Workspace: tw.ws})}
}

func (tw *testWorkspace) subContext() string {
	path := tw.abs("sub/GEMINI.md")
	return "\n\n--- Newly Discovered Project Context ---\n" +
		"--- Context from: " + path + " ---\nsub rules\n--- End of Context from: " + path + " ---" +
		"\n--- End Project Context ---"
}

func runIn(t *testing.T, session string, tool Tool, args map[string]any) Result {
	t.Helper()
	res, err := build(t, tool, args).Execute(context.Background(), CallInfo{SessionID: session, CallID: "c"})
	if err != nil {
		t.Fatalf("Execute(%v): %v", args, err)
	}
	return res
}

func TestReadFileAppendsDiscoveredContextOnce(t *testing.T) {
	tw, opts := jitWorkspace(t)
	tool := tw.tool(ReadFileName, opts)

	res := runIn(t, "s1", tool, map[string]any{"path": "sub/a.go"})
	wantOutput(t, res, "package sub\n"+tw.subContext())
	if strings.Contains(res.Display, "Newly Discovered") {
		t.Errorf("the user's display holds the model's context: %q", res.Display)
	}
	wantOutput(t, runIn(t, "s1", tool, map[string]any{"path": "sub/b.go"}), "package sub // b\n")
	wantOutput(t, runIn(t, "s2", tool, map[string]any{"path": "sub/b.go"}), "package sub // b\n"+tw.subContext())
	wantOutput(t, runIn(t, "s3", tool, map[string]any{"path": "GEMINI.md"}), "root rules")
}

func TestReadFileWithoutMemory(t *testing.T) {
	tw, _ := jitWorkspace(t)
	wantOutput(t, run(t, tw.tool(ReadFileName, Options{}), map[string]any{"path": "sub/a.go"}), "package sub\n")
}

func TestListDirectoryAppendsDiscoveredContext(t *testing.T) {
	tw, opts := jitWorkspace(t)
	res := runIn(t, "s", tw.tool(ListDirectoryName, opts), map[string]any{"path": "sub"})
	if !strings.HasSuffix(res.Output, tw.subContext()) || !strings.Contains(res.Output, "a.go") {
		t.Errorf("output:\n%s", res.Output)
	}
	if strings.Contains(res.Display, "Newly Discovered") {
		t.Errorf("display: %q", res.Display)
	}
}
