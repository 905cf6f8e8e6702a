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
