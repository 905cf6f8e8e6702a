package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/memory"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
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

// What a read discovers is shown to the model, so it follows the rules
// of what the model reads: a GEMINI.md the model wrote imports neither
// an ignored file nor one in a sibling folder outside the roots (the
// root sits in a larger git repository), and listing an ignored
// directory discovers none of its context files.
func TestDiscoveredContextImportsNothingHidden(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		"sibling/secret.txt":     "SIBLING SECRET",
		"root/.geminiignore":     "secret.txt\nprivate/\n",
		"root/secret.txt":        "IGNORED SECRET",
		"root/private/GEMINI.md": "PRIVATE RULES",
		"root/sub/a.go":          "package sub\n",
		// As the model's write_file would leave it.
		"root/sub/GEMINI.md": "written @../secret.txt @../../sibling/secret.txt",
	} {
		path := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(repo, "root")
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWorkspace{t: t, root: root, ws: ws}
	opts := Options{Memory: memory.New(memory.Config{Workspace: ws})}

	res := runIn(t, "s", tw.tool(ReadFileName, opts), map[string]any{"file_path": "sub/a.go"})
	for _, secret := range []string{"IGNORED SECRET", "SIBLING SECRET"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("read_file's discovered context inlined %q:\n%s", secret, res.Output)
		}
	}
	wantContains(t, res.Output, "written <!-- Import failed: ../secret.txt - it is ignored by .gitignore or .geminiignore")
	wantContains(t, res.Output, "<!-- Import failed: ../../sibling/secret.txt - it lies outside the workspace roots")

	res = runIn(t, "s", tw.tool(ListDirectoryName, opts), map[string]any{"dir_path": "private"})
	if strings.Contains(res.Output, "PRIVATE RULES") || strings.Contains(res.Output, "Newly Discovered") {
		t.Errorf("listing an ignored directory discovered its context file:\n%s", res.Output)
	}
}
