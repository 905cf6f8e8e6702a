package memory

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// privateLoader is tr's loader with a private memory directory in the
// user's Gemini directory, where Gemini CLI 0.61 keeps it; trusted
// decides the workspace root's trust (nil: trusted).
func (tr tree) privateLoader(t testing.TB, trusted func(string) bool) (*Loader, string) {
	t.Helper()
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tr.userDir, "tmp", "b", "memory")
	return New(Config{Workspace: ws, UserDir: tr.userDir, Trusted: trusted,
		PrivateDir: func() (string, error) { return dir, nil }}), dir
}

// With a MEMORY.md, the memory takes 0.61's object form, byte for byte:
// the global file, then the index framed as private, then the project's;
// a sibling note stays out.
func TestPrivateIndexInTheObjectForm(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules\n")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules\n")
	l, dir := tr.privateLoader(t, nil)
	index := filepath.Join(dir, "MEMORY.md")
	write(t, index, "- db: see db.md\n")
	write(t, filepath.Join(dir, "db.md"), "SIBLING NOTE\n")

	want := "---\n\n<loaded_context>\n<global_context>\n" + block(filepath.Join(tr.userDir, "GEMINI.md"), "global rules") + "\n</global_context>\n" +
		"<user_project_memory>\n--- Private Project Memory Index (private, not committed to repo) ---\n" + block(index, "- db: see db.md") +
		"\n--- End Private Project Memory Index ---\n</user_project_memory>\n" +
		"<project_context>\n" + block(filepath.Join(tr.root, "GEMINI.md"), "root rules") + "\n</project_context>\n</loaded_context>"
	if got := systemMemory(t, l); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	files, err := l.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if last := files[len(files)-1].Path; len(files) != 3 || last != index {
		t.Errorf("Files = %v, want the index last", files)
	}
}

// Without MEMORY.md, a GEMINI.md older versions kept there is read, as
// 0.61 falls back to it; with neither, the memory is the string form.
func TestPrivateLegacyFileAndNone(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules\n")
	l, dir := tr.privateLoader(t, nil)
	if got := systemMemory(t, l); !strings.HasPrefix(got, "# Contextual Instructions (GEMINI.md)") || strings.Contains(got, "user_project_memory") {
		t.Errorf("without private memory:\n%s", got)
	}
	write(t, filepath.Join(dir, "GEMINI.md"), "legacy private\n")
	got := systemMemory(t, l)
	inOrder(t, got, "<user_project_memory>", block(filepath.Join(dir, "GEMINI.md"), "legacy private"), "</user_project_memory>", "<project_context>")
	write(t, filepath.Join(dir, "MEMORY.md"), "index\n")
	if got := systemMemory(t, l); !strings.Contains(got, "index") || strings.Contains(got, "legacy private") {
		t.Errorf("MEMORY.md and the legacy file both present: only the index counts:\n%s", got)
	}
}

// The private memory is the user's own, so an untrusted folder, whose
// GEMINI.md is not read, still gets it, as in 0.61.
func TestPrivateMemoryInAnUntrustedFolder(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules\n")
	l, dir := tr.privateLoader(t, func(string) bool { return false })
	write(t, filepath.Join(dir, "MEMORY.md"), "private index\n")
	got := systemMemory(t, l)
	if !strings.Contains(got, "private index") || strings.Contains(got, "root rules") {
		t.Errorf("untrusted:\n%s", got)
	}
}

// The directory is looked for until found, then kept; the index's path
// is known before the file exists, for the prompt to name it.
func TestPrivateDirFoundOnceThenKept(t *testing.T) {
	tr := newTree(t)
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	l := New(Config{Workspace: ws, UserDir: tr.userDir, PrivateDir: func() (string, error) {
		calls++
		if calls == 1 {
			return "", errors.New("registry locked")
		}
		return "/p/memory", nil
	}})
	if got := l.PrivateIndex(); got != "" {
		t.Errorf("PrivateIndex on a failure = %q", got)
	}
	for range 2 {
		if got := l.PrivateIndex(); got != filepath.Join("/p/memory", "MEMORY.md") {
			t.Errorf("PrivateIndex = %q", got)
		}
	}
	if calls != 2 {
		t.Errorf("looked for the directory %d times, want 2", calls)
	}
	if got := l.GlobalFile(); got != filepath.Join(tr.userDir, "GEMINI.md") {
		t.Errorf("GlobalFile = %q", got)
	}
}
