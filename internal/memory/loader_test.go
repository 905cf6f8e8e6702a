package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// write creates path (and its directories) holding text.
func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree is a temporary layout: a user dir and a git repo whose workspace
// root is repo/a/b.
type tree struct {
	base, userDir, repo, root string
}

func newTree(t testing.TB) tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{
		base:    base,
		userDir: filepath.Join(base, "home", ".gemini"),
		repo:    filepath.Join(base, "repo"),
	}
	tr.root = filepath.Join(tr.repo, "a", "b")
	if err := os.MkdirAll(filepath.Join(tr.repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tr.repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tr.root, 0o755); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr tree) loader(t testing.TB, names ...string) *Loader {
	t.Helper()
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Workspace: ws, UserDir: tr.userDir, FileNames: names})
}

func systemMemory(t *testing.T, l *Loader) string {
	t.Helper()
	got, err := l.SystemMemory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// block is one file's wrapper as Gemini CLI writes it.
func block(path, text string) string {
	return "--- Context from: " + path + " ---\n" + text + "\n--- End of Context from: " + path + " ---"
}

// inOrder fails unless each of parts occurs in s after the one before.
func inOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			t.Fatalf("%q not found (in order) in:\n%s", p, s)
		}
		at += i + len(p)
	}
}

func TestSystemMemoryOrderGlobalThenGitRootDownToRoot(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.base, "GEMINI.md"), "above the git root")
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules\n")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo rules")
	write(t, filepath.Join(tr.repo, "a", "GEMINI.md"), "  middle rules  ")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "subdirectory rules")
	write(t, filepath.Join(tr.root, "GEMINI2.md"), "not a context file name")

	got := systemMemory(t, tr.loader(t))
	want := strings.Join([]string{
		block(filepath.Join(tr.userDir, "GEMINI.md"), "global rules"),
		block(filepath.Join(tr.repo, "GEMINI.md"), "repo rules"),
		block(filepath.Join(tr.repo, "a", "GEMINI.md"), "middle rules"),
		block(filepath.Join(tr.root, "GEMINI.md"), "root rules"),
	}, "\n\n")
	if !strings.HasPrefix(got, "# Contextual Instructions (GEMINI.md)\n") {
		t.Errorf("heading missing:\n%s", got)
	}
	if !strings.HasSuffix(got, "<loaded_context>\n"+want+"\n</loaded_context>") {
		t.Errorf("loaded context:\n%s\nwant it to end with:\n%s", got, want)
	}
	for _, absent := range []string{"above the git root", "subdirectory rules", "not a context file name"} {
		if strings.Contains(got, absent) {
			t.Errorf("%q loaded:\n%s", absent, got)
		}
	}
}

// The empty .git a sandbox makes in a workspace root that had none (so
// that no repository can be planted there) is not a repository's top:
// the files from the real one down to the root still load.
func TestSandboxMadeGitIsNotTheGitRoot(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo rules")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	write(t, filepath.Join(tr.root, ".git", "config"), "")
	if err := os.MkdirAll(filepath.Join(tr.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	inOrder(t, systemMemory(t, tr.loader(t)), "repo rules", "root rules")
}

func TestSystemMemoryWithoutGitStopsAtTheRoot(t *testing.T) {
	tr := newTree(t)
	if err := os.RemoveAll(filepath.Join(tr.repo, ".git")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo rules")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	got := systemMemory(t, tr.loader(t))
	if !strings.Contains(got, "root rules") || strings.Contains(got, "repo rules") {
		t.Errorf("without a git root only the root's file loads:\n%s", got)
	}
}

func TestSystemMemoryEmptyWithoutFiles(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "  \n")
	if got := systemMemory(t, tr.loader(t)); got != "" {
		t.Errorf("blank files give no section, got:\n%s", got)
	}
}

func TestContextFileNameList(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global gemini")
	write(t, filepath.Join(tr.userDir, "AGENTS.md"), "global agents")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root gemini")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root agents")
	write(t, filepath.Join(tr.root, "CLAUDE.md"), "not configured")

	got := systemMemory(t, tr.loader(t, "AGENTS.md", " GEMINI.md ", "AGENTS.md", "../escape.md"))
	if !strings.HasPrefix(got, "# Contextual Instructions (AGENTS.md, GEMINI.md)\n") {
		t.Errorf("heading should name both files:\n%s", got)
	}
	inOrder(t, got, "global agents", "global gemini", "root agents", "root gemini")
	if strings.Contains(got, "not configured") {
		t.Errorf("a file not named in context.fileName loaded:\n%s", got)
	}
	if n := strings.Count(got, "root agents"); n != 1 {
		t.Errorf("a name listed twice loads once, got %d", n)
	}
}

func TestTwoRootsShareTheirGitRootFilesOnce(t *testing.T) {
	tr := newTree(t)
	other := filepath.Join(tr.repo, "other")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo rules")
	write(t, filepath.Join(other, "GEMINI.md"), "other root rules")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	ws, err := workspace.New([]string{tr.root, other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := systemMemory(t, New(Config{Workspace: ws}))
	inOrder(t, got, "repo rules", "root rules", "other root rules")
	if n := strings.Count(got, "repo rules"); n != 1 {
		t.Errorf("the shared git root's file loaded %d times:\n%s", n, got)
	}
}

func TestUntrustedRootLoadsOnlyGlobalFiles(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := New(Config{Workspace: ws, UserDir: tr.userDir, Trusted: func(string) bool { return false }})
	got := systemMemory(t, l)
	if !strings.Contains(got, "global rules") || strings.Contains(got, "root rules") {
		t.Errorf("untrusted root:\n%s", got)
	}
}

func TestEditedMemorySeenNextCall(t *testing.T) {
	tr := newTree(t)
	global := filepath.Join(tr.userDir, "GEMINI.md")
	write(t, global, "# Notes\n")
	l := tr.loader(t)
	if got := systemMemory(t, l); !strings.Contains(got, "# Notes") {
		t.Fatalf("first call:\n%s", got)
	}
	// What the model's edit does: rewrite the file with the fact added.
	write(t, global, "# Notes\n\n## Gemini Added Memories\n- likes tabs\n")
	if got := systemMemory(t, l); !strings.Contains(got, "- likes tabs") {
		t.Errorf("the saved memory is not in the next call:\n%s", got)
	}
}

func TestGlobalFileCreatedLaterIsSeen(t *testing.T) {
	tr := newTree(t)
	l := tr.loader(t)
	if got := systemMemory(t, l); got != "" {
		t.Fatalf("no files yet, got:\n%s", got)
	}
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "## Gemini Added Memories\n- first fact\n")
	if got := systemMemory(t, l); !strings.Contains(got, "- first fact") {
		t.Errorf("the new global file is not seen:\n%s", got)
	}
}

func TestChangedImportSeenNextCall(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "see @./style.md")
	write(t, filepath.Join(tr.root, "style.md"), "tabs")
	l := tr.loader(t)
	if got := systemMemory(t, l); !strings.Contains(got, "tabs") {
		t.Fatalf("first call:\n%s", got)
	}
	write(t, filepath.Join(tr.root, "style.md"), "spaces, four")
	if got := systemMemory(t, l); !strings.Contains(got, "spaces, four") {
		t.Errorf("an imported file's change is not seen:\n%s", got)
	}
}

func TestUnsavedBufferRead(t *testing.T) {
	tr := newTree(t)
	path := filepath.Join(tr.root, "GEMINI.md")
	write(t, path, "on disk")
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{tr.root}, docs)
	if err != nil {
		t.Fatal(err)
	}
	l := New(Config{Workspace: ws})
	systemMemory(t, l) // cache what disk holds
	docs.Open(workspace.Document{Path: path, Version: 1, Text: "in the editor"})
	if got := systemMemory(t, l); !strings.Contains(got, "in the editor") {
		t.Fatalf("the open buffer is not read:\n%s", got)
	}
	if err := docs.Change(path, 2, []workspace.ContentChange{{Text: "edited again"}}, workspace.UTF16); err != nil {
		t.Fatal(err)
	}
	if got := systemMemory(t, l); !strings.Contains(got, "edited again") {
		t.Errorf("the buffer's change is not seen:\n%s", got)
	}
}

// BenchmarkSystemMemoryUnchanged is the per-turn cost when nothing changed.
func BenchmarkSystemMemoryUnchanged(b *testing.B) {
	t := b
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), strings.Repeat("global rule\n", 200))
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo @./more.md")
	write(t, filepath.Join(tr.repo, "more.md"), strings.Repeat("more\n", 500))
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root")
	l := tr.loader(t)
	ctx := context.Background()
	for b.Loop() {
		if _, err := l.SystemMemory(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func TestChangeKeepingTheMtimeSeen(t *testing.T) {
	tr := newTree(t)
	global := filepath.Join(tr.userDir, "GEMINI.md")
	write(t, global, "short")
	fi, err := os.Stat(global)
	if err != nil {
		t.Fatal(err)
	}
	l := tr.loader(t)
	systemMemory(t, l)
	// A file system with a coarse clock: the rewrite keeps the time.
	write(t, global, "a longer text")
	if err := os.Chtimes(global, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := systemMemory(t, l); !strings.Contains(got, "a longer text") {
		t.Errorf("a change of size with the same mtime is not seen:\n%s", got)
	}
}

func TestUserDirThroughSymlink(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules @./more.md")
	write(t, filepath.Join(tr.userDir, "more.md"), "more rules")
	// HOME reached through a symlink, as /home on some systems.
	link := filepath.Join(tr.base, "homelink")
	platformtest.Symlink(t, filepath.Join(tr.base, "home"), link)
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := systemMemory(t, New(Config{Workspace: ws, UserDir: filepath.Join(link, ".gemini")}))
	if !strings.Contains(got, "global rules <!-- Imported from: ./more.md -->\nmore rules\n") {
		t.Errorf("the global file behind a symlinked home did not load:\n%s", got)
	}
}

func TestGlobalFileSymlinkedToDotfiles(t *testing.T) {
	tr := newTree(t)
	dotfiles := filepath.Join(tr.base, "dotfiles")
	write(t, filepath.Join(dotfiles, "GEMINI.md"), "from dotfiles")
	if err := os.MkdirAll(tr.userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	platformtest.Symlink(t, filepath.Join(dotfiles, "GEMINI.md"), filepath.Join(tr.userDir, "GEMINI.md"))
	if got := systemMemory(t, tr.loader(t)); !strings.Contains(got, "from dotfiles") {
		t.Errorf("the user's own symlinked global file did not load:\n%s", got)
	}
}

// An enabled extension's context file is read after the global file and
// before the project's, as Gemini CLI orders them, and its imports stay
// in its directory.
func TestSystemMemoryExtensionFiles(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "GLOBAL-TEXT")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "PROJECT-TEXT")
	ext := filepath.Join(tr.userDir, "extensions", "ext")
	write(t, filepath.Join(ext, "GEMINI.md"), "extension @./more.md @../../GEMINI.md")
	write(t, filepath.Join(ext, "more.md"), "imported")
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := New(Config{Workspace: ws, UserDir: tr.userDir, Extensions: []ExtensionFiles{{Dir: ext, Files: []string{filepath.Join(ext, "GEMINI.md")}}}})
	got := systemMemory(t, l)
	g, e, p := strings.Index(got, "GLOBAL-TEXT"), strings.Index(got, "extension "), strings.Index(got, "PROJECT-TEXT")
	if g < 0 || e < 0 || p < 0 || !(g < e && e < p) {
		t.Fatalf("want global, extension, project in that order:\n%s", got)
	}
	if !strings.Contains(got, "imported") {
		t.Errorf("the extension's own import is missing:\n%s", got)
	}
	if strings.Count(got, "GLOBAL-TEXT") != 1 {
		t.Errorf("an import left the extension's directory:\n%s", got)
	}
}
