package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// failedImport is the comment an import refused for why leaves.
func failedImport(path, why string) string {
	return "<!-- Import failed: " + path + " - " + why + " -->"
}

// noneOf fails when got holds any of secrets.
func noneOf(t *testing.T, got string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("%q was imported:\n%s", s, got)
		}
	}
}

// The root sits inside a larger git repository (repo/a/b): a context file
// inside the roots imports nothing outside them, however it names it (a
// path climbing out, an absolute one, a link), nor does a file the
// repository's own GEMINI.md (above the roots, which keeps the git root
// as its scope) imports from inside the roots.
func TestImportsOfAWorkspaceFileStayInTheRoots(t *testing.T) {
	tr := newTree(t)
	sibling := filepath.Join(tr.repo, "sibling", "secret.md")
	write(t, sibling, "SIBLING SECRET")
	write(t, filepath.Join(tr.repo, "shared.md"), "shared in the repo")
	linked := symlink(t, sibling, filepath.Join(tr.root, "link.md"))
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@../../sibling/secret.md @"+sibling+" @./link.md @./inner.md")
	write(t, filepath.Join(tr.root, "inner.md"), "inner @../../shared.md")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo @shared.md @a/b/inner.md")

	got := systemMemory(t, tr.loader(t))
	noneOf(t, got, "SIBLING SECRET")
	refused := []string{"../../sibling/secret.md", sibling}
	if linked {
		refused = append(refused, "./link.md")
	}
	for _, p := range refused {
		if !strings.Contains(got, failedImport(p, outsideRootsWhy)) {
			t.Errorf("the import of %s was not refused as outside the roots:\n%s", p, got)
		}
	}
	// The repository's file reaches its git root; inner.md, imported by
	// it, is inside the roots, so its own import is held to them.
	if want := "repo <!-- Imported from: shared.md -->\nshared in the repo\n"; !strings.Contains(got, want) {
		t.Errorf("the repository's GEMINI.md could not import inside its git root:\n%s", got)
	}
	if want := "<!-- Imported from: a/b/inner.md -->\ninner " + failedImport("../../shared.md", outsideRootsWhy); !strings.Contains(got, want) {
		t.Errorf("a file inside the roots, imported from above them, reached out of them:\n%s", got)
	}
}

// No project import brings what the agent may not read: a file the
// workspace's ignore rules ignore, or one in .git; nor, above the roots,
// one the git root's rules ignore. The settings' choice of ignore files
// holds there too.
func TestImportsOfIgnoredFilesRefused(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, ".geminiignore"), "secret.txt\nprivate/\n")
	write(t, filepath.Join(tr.root, "secret.txt"), "IGNORED SECRET")
	write(t, filepath.Join(tr.root, "private", "notes.md"), "PRIVATE NOTES")
	write(t, filepath.Join(tr.root, "sub", ".git", "config"), "GIT CONFIG")
	write(t, filepath.Join(tr.root, "plain.md"), "plain notes")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@./secret.txt @private/notes.md @sub/.git/config @plain.md")
	write(t, filepath.Join(tr.repo, ".gitignore"), "local.md\n")
	write(t, filepath.Join(tr.repo, "local.md"), "GIT-IGNORED LOCAL")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "@local.md")

	got := systemMemory(t, tr.loader(t))
	noneOf(t, got, "IGNORED SECRET", "PRIVATE NOTES", "GIT CONFIG", "GIT-IGNORED LOCAL")
	for _, want := range []string{
		failedImport("./secret.txt", ignoredWhy),
		failedImport("private/notes.md", ignoredWhy),
		failedImport("sub/.git/config", gitDirWhy),
		failedImport("local.md", ignoredWhy),
		"<!-- Imported from: plain.md -->\nplain notes\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q missing from:\n%s", want, got)
		}
	}

	// respectGitIgnore false: .gitignore ignores nothing, above the roots
	// too; .geminiignore still holds.
	ws, err := workspace.New([]string{tr.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetIgnoreFiles(workspace.IgnoreFiles{SkipGit: true})
	got = systemMemory(t, New(Config{Workspace: ws}))
	if !strings.Contains(got, "GIT-IGNORED LOCAL") {
		t.Errorf("with .gitignore not counted, its file was not imported:\n%s", got)
	}
	noneOf(t, got, "IGNORED SECRET")
}

// An expansion is kept only while what its imports were judged by holds:
// a file ignored since it was imported is not shown again.
func TestImportIgnoredSinceIsDropped(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "notes.md"), "NOTES")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@notes.md")
	l := tr.loader(t)
	if got := systemMemory(t, l); !strings.Contains(got, "NOTES") {
		t.Fatalf("notes.md not imported:\n%s", got)
	}
	write(t, filepath.Join(tr.root, ".geminiignore"), "notes.md\n")
	got := systemMemory(t, l)
	noneOf(t, got, "NOTES")
	if !strings.Contains(got, failedImport("notes.md", ignoredWhy)) {
		t.Errorf("the import ignored since was not refused:\n%s", got)
	}
}

// What a tool discovers follows the same rules: a GEMINI.md the model
// wrote in a subdirectory imports neither an ignored file nor one in a
// sibling folder outside the roots, and a context file in an ignored
// directory (listed by name) is not discovered at all.
func TestDiscoveredImportsFollowTheRules(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, ".geminiignore"), "secret.txt\nprivate/\n")
	write(t, filepath.Join(tr.root, "secret.txt"), "IGNORED SECRET")
	write(t, filepath.Join(tr.repo, "a", "sibling", "secret.md"), "SIBLING SECRET")
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "written @../secret.txt @../../sibling/secret.md")
	write(t, filepath.Join(tr.root, "private", "GEMINI.md"), "PRIVATE RULES")
	l := tr.loader(t)

	got := l.Discover(context.Background(), "s", filepath.Join(tr.root, "c", "x.go"))
	want := block(filepath.Join(tr.root, "c", "GEMINI.md"),
		"written "+failedImport("../secret.txt", ignoredWhy)+" "+failedImport("../../sibling/secret.md", outsideRootsWhy))
	if got != want {
		t.Errorf("discovered:\n%s\nwant:\n%s", got, want)
	}
	if got := l.Discover(context.Background(), "s", filepath.Join(tr.root, "private")); got != "" {
		t.Errorf("a context file in an ignored directory was discovered:\n%s", got)
	}
}
