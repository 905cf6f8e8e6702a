//go:build unix

package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// hiddenWorkspace holds files the tools must not read (.geminiignore'd,
// in .git), each saying hunter2, and plain.txt, which they read.
func hiddenWorkspace(t *testing.T) *testWorkspace {
	t.Helper()
	return newTestWorkspace(t, map[string]string{
		".geminiignore":     "secret.txt\nprivate/\n",
		"secret.txt":        "hunter2 in secret\n",
		"private/vault.txt": "hunter2 in the vault\n",
		".git/config":       "# hunter2 in git\n",
		"plain.txt":         "visible\n",
	})
}

// A file hidden from the tools (.geminiignore, .git) is hidden through a
// symbolic link inside the roots too, a link to it or to its directory:
// what is checked is the file read, not the name asked for. No tool
// shows its content, however it reaches the link (by name, a pattern, a
// walk, .gitignore lifted).
func TestHiddenFilesCannotBeReadThroughALink(t *testing.T) {
	tw := hiddenWorkspace(t)
	platformtest.Symlink(t, "secret.txt", tw.abs("alias.txt"))
	platformtest.Symlink(t, ".git/config", tw.abs("config.txt"))
	platformtest.Symlink(t, "private", tw.abs("d"))
	pattern := "hunt[e]r2|visible" // not "hunter2": the output repeats it
	for _, c := range []struct {
		tool    string
		args    map[string]any
		visible bool // plain.txt is among what the call reads
	}{
		{ReadFileName, map[string]any{"file_path": "alias.txt"}, false},
		{ReadFileName, map[string]any{"file_path": "config.txt"}, false},
		{ReadFileName, map[string]any{"file_path": "d/vault.txt"}, false},
		{GrepSearchName, map[string]any{"pattern": pattern}, true},
		{GrepSearchName, map[string]any{"pattern": pattern, "no_ignore": true}, true},
		{GrepSearchName, map[string]any{"pattern": pattern, "dir_path": "alias.txt"}, false},
		{GrepSearchName, map[string]any{"pattern": pattern, "dir_path": "d"}, false},
		{GlobName, map[string]any{"pattern": "**/*.txt"}, true},
		{GlobName, map[string]any{"pattern": "**/*.txt", "dir_path": "d"}, false},
		{ListDirectoryName, map[string]any{"dir_path": "."}, true},
		{ListDirectoryName, map[string]any{"dir_path": "d"}, false},
	} {
		res := run(t, tw.tool(c.tool, Options{}), c.args)
		text := res.Output + res.Error
		if strings.Contains(text, "hunter2") {
			t.Errorf("%s %v showed a hidden file through a link:\n%s", c.tool, c.args, text)
		}
		if c.visible && !strings.Contains(text, "visible") && !strings.Contains(text, "plain.txt") {
			t.Errorf("%s %v did not show plain.txt:\n%s", c.tool, c.args, text)
		}
	}
	// The @paths of a prompt alike.
	for _, specs := range [][]string{{"**/*.txt"}, {"alias.txt", "config.txt", "d/vault.txt", "d/**"}} {
		if text := readRefs(t, tw, specs...).Output; strings.Contains(text, "hunter2") {
			t.Errorf("@%v showed a hidden file through a link:\n%s", specs, text)
		}
	}
	if text := readRefs(t, tw, "**/*.txt").Output; !strings.Contains(text, "visible") {
		t.Errorf("@**/*.txt did not show plain.txt:\n%s", text)
	}
}

// A link to a hidden file swapped in for a file after the call checked
// its path (a command racing the tools): the file opened is the hidden
// one, and it is refused.
func TestHiddenFilesCannotBeReadThroughALinkSwappedIn(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{ReadFileName, map[string]any{"file_path": "plain.txt"}},
		{GrepSearchName, map[string]any{"pattern": "hunt[e]r2|visible", "dir_path": "plain.txt"}},
	} {
		for _, target := range []string{"secret.txt", "private/vault.txt", ".git/config"} {
			t.Run(c.tool+" "+target, func(t *testing.T) {
				tw := hiddenWorkspace(t)
				call := build(t, tw.tool(c.tool, Options{}), c.args)
				if err := os.Remove(tw.abs("plain.txt")); err != nil {
					t.Fatal(err)
				}
				platformtest.Symlink(t, target, tw.abs("plain.txt"))
				res, err := call.Execute(t.Context(), CallInfo{})
				if strings.Contains(res.Output+res.Error, "hunter2") {
					t.Errorf("%s showed %s through the link swapped in:\n%s%s", c.tool, target, res.Output, res.Error)
				}
				if err != nil {
					t.Errorf("Execute: %v", err)
				}
			})
		}
	}
}

// A listing judges a symbolic link by where it leads, as a read does: a
// link whose own name no rule ignores, to an ignored file, an ignored
// directory or a file in .git, is left out of glob's and list_directory's
// answers and counted with the ignored entries, never named. A link to a
// file the model may read is listed as before.
func TestListingsLeaveOutLinksToHiddenFiles(t *testing.T) {
	tw := hiddenWorkspace(t)
	tw.write(".gitignore", "local.txt\n")
	tw.write("local.txt", "git-ignored\n")
	platformtest.Symlink(t, "secret.txt", tw.abs("alias.txt"))
	platformtest.Symlink(t, "private/vault.txt", tw.abs("vault-link.txt"))
	platformtest.Symlink(t, ".git/config", tw.abs("config.txt"))
	platformtest.Symlink(t, "private", tw.abs("d"))
	platformtest.Symlink(t, "local.txt", tw.abs("local-link.txt"))
	platformtest.Symlink(t, "plain.txt", tw.abs("plain-link.txt"))
	hiddenLinks := []string{"alias.txt", "vault-link.txt", "config.txt", "local-link.txt"}

	glob := run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*.txt"})
	list := run(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"dir_path": "."})
	for name, res := range map[string]Result{"glob": glob, "list_directory": list} {
		for _, link := range append(hiddenLinks, "[DIR] d") {
			if strings.Contains(res.Output, link) {
				t.Errorf("%s named %s, a link to a hidden file:\n%s", name, link, res.Output)
			}
		}
		for _, shown := range []string{"plain.txt", "plain-link.txt"} {
			if !strings.Contains(res.Output, shown) {
				t.Errorf("%s left out %s:\n%s", name, shown, res.Output)
			}
		}
	}
	// glob counts the four links with secret.txt, local.txt and
	// private/vault.txt; the listing the five links with .git, private,
	// secret.txt and local.txt.
	wantContains(t, glob.Output, "(7 additional files were ignored)")
	wantContains(t, list.Output, "(9 ignored)")

	// Lifting .gitignore lists what it alone hid, through a link too; the
	// rest stays hidden.
	lifted := run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*.txt", "respect_git_ignore": false})
	wantContains(t, lifted.Output, "local-link.txt")
	for _, link := range hiddenLinks[:3] {
		if strings.Contains(lifted.Output, link) {
			t.Errorf("glob with .gitignore lifted named %s:\n%s", link, lifted.Output)
		}
	}
	listed := run(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"dir_path": ".", "file_filtering_options": map[string]any{"respect_git_ignore": false}})
	wantContains(t, listed.Output, "local-link.txt")
	if strings.Contains(listed.Output, "alias.txt") || strings.Contains(listed.Output, "config.txt") {
		t.Errorf("list_directory with .gitignore lifted named a link to a hidden file:\n%s", listed.Output)
	}
}

// A prompt's @path with a line range is refused as the whole file's is:
// a link to an ignored file that the @path's search finds, a file in
// .git, and a read that a link swapped in led to a hidden file.
func TestLineRangesOfHiddenFilesAreRefused(t *testing.T) {
	tw := hiddenWorkspace(t)
	platformtest.Symlink(t, "secret.txt", tw.abs("alias.txt"))
	platformtest.Symlink(t, "private/vault.txt", tw.abs("vault-link.txt"))

	for _, name := range []string{"alia", "vault-li"} {
		if ref, ok, err := ResolveReference(t.Context(), tw.ws, name); err != nil || ok && !ref.Ignored {
			t.Errorf("the search for @%s found %+v (%v), a link to an ignored file, as readable", name, ref, err)
		}
	}
	if ref, ok := ResolvePath(t.Context(), tw.ws, ".git/config"); !ok || !ref.Ignored {
		t.Errorf("@.git/config resolved to %+v, %v; want it ignored, as 0.61's ignore rules always hold .git", ref, ok)
	}
	// ReadLines holds the rules itself, of the file it read.
	for _, name := range []string{"alias.txt", ".git/config", "private/vault.txt"} {
		lines, why, err := ReadLines(t.Context(), tw.ws, tw.abs(name), 1, 1)
		if err != nil || why != ignoredReferenceReason || strings.Contains(lines.Text, "hunter2") {
			t.Errorf("ReadLines(%s) = %q, %q, %v; want it refused: %q", name, lines.Text, why, err, ignoredReferenceReason)
		}
	}
	if lines, why, err := ReadLines(t.Context(), tw.ws, tw.abs("plain.txt"), 1, 1); err != nil || why != "" || lines.Text != "visible\n" {
		t.Errorf("ReadLines(plain.txt) = %+v, %q, %v", lines, why, err)
	}
}
