package commands

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// @{path} reads with @path's rules: inside the roots, ignore files obeyed,
// a directory's files laid out as Gemini CLI lays them out.
func TestWorkspaceFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, root, map[string]string{
		"a.txt":          "content of a\n",
		"docs/x.md":      "x",
		"docs/y.md":      "y",
		"secret.env":     "KEY=1",
		".gitignore":     "secret.env\n",
		"docs/.keep.txt": "k",
	})
	write(t, outside, map[string]string{"out.txt": "outside"})
	if err := os.Symlink(filepath.Join(outside, "out.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	files := WorkspaceFiles{WS: ws}
	read := func(path string) ([]string, error) {
		parts, err := files.Read(context.Background(), path)
		var texts []string
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return texts, err
	}

	if got, err := read("a.txt"); err != nil || !slices.Equal(got, []string{"content of a\n"}) {
		t.Errorf("a.txt: %q, %v", got, err)
	}
	if got, err := read(filepath.Join(root, "a.txt")); err != nil || len(got) != 1 {
		t.Errorf("absolute a.txt: %q, %v", got, err)
	}
	if got, err := read("secret.env"); err != nil || len(got) != 0 {
		t.Errorf("ignored file: %q, %v; want nothing, no error", got, err)
	}
	got, err := read("docs")
	want := []string{"--- Start of content for directory: docs ---\n", "--- .keep.txt ---\n", "k", "\n", "--- x.md ---\n", "x", "\n", "--- y.md ---\n", "y", "\n", "--- End of content for directory: docs ---"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("docs: %q, %v; want %q", got, err, want)
	}
	for path, wantErr := range map[string]string{
		"nope.txt":                                  "path not found in workspace: nope.txt",
		filepath.Join(outside, "out.txt"):           "outside of the allowed workspace",
		"../" + filepath.Base(outside) + "/out.txt": "path not found in workspace",
		"link.txt":                                  "path not found in workspace",
	} {
		if got, err := read(path); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: %q, %v; want error %q", path, got, err, wantErr)
		}
	}
}
