package protected_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/protected"
)

// Windows takes a name with trailing dots or spaces, or with an NTFS
// stream after a colon, for the name without them, in every component
// of a path: an edit through such a spelling is protected as the name
// is. The spellings are folded on every system (a share may be served
// by Windows), so this holds on Linux too.
func TestWhyFoldsWindowsSpellings(t *testing.T) {
	root := t.TempDir()
	s := protected.New(protected.Path{Path: filepath.Join(root, "etc", "settings.json"), What: "the system settings"})
	for _, c := range []struct{ path, want string }{
		{".git./config", root + "/.git. holds git's configuration"},
		{".git /hooks/pre-commit", root + "/.git  holds git's configuration"},
		{".vscode.../tasks.json", root + "/.vscode... holds VS Code's"},
		{".gemini /settings.json", root + "/.gemini  holds gemini-ls's"},
		{".gemini. . ./settings.json", root + "/.gemini. . . holds gemini-ls's"},
		{".env.", root + "/.env. is the environment"},
		{".env::$DATA", root + "/.env::$DATA is the environment"},
		{".git::$INDEX_ALLOCATION/config", root + "/.git::$INDEX_ALLOCATION holds git's"},
		{"app.code-workspace. ", root + "/app.code-workspace.  is a VS Code workspace file"},
		{"home/.config./git ./config", root + "/home/.config./git . holds git's configuration"},
		{"etc./settings.json.", root + "/etc/settings.json is the system settings"},
		{"etc /settings.json::$DATA", root + "/etc/settings.json is the system settings"},
		{".git.x/config", ""},
		{".github./workflows/ci.yml", ""},
		{"etc./other.json", ""},
		{"notes.txt.", ""},
	} {
		wantWhy(t, s, root, c.path, c.want)
	}
}

// A component that looks like a short (8.3) name, which the file system
// did not resolve to a long one, may be the short name of a protected
// file: edits through it ask. Elsewhere than Windows none is resolved
// (a Windows server resolves them on a share), and on Windows one that
// does not exist is not (TestWhyResolvesShortNames, in the Windows
// tests, covers one that does). Names that only have a tilde are not
// short names.
func TestWhyShortNamesAreProtected(t *testing.T) {
	root := t.TempDir()
	var s protected.Set
	for _, c := range []struct{ path, want string }{
		{"VSCODE~1/tasks.json", "may be the short (8.3) name of a protected file"},
		{"GEMINI~1/settings.json", "GEMINI~1 may be the short (8.3) name"},
		{"gemini~2/settings.json", "gemini~2 may be the short (8.3) name"},
		{"GEMINI~1.MD", "GEMINI~1.MD may be the short (8.3) name"},
		{"GIT~1./config", "GIT~1. may be the short (8.3) name"},
		{"MYPROJ~1.COD", "MYPROJ~1.COD may be the short (8.3) name"},
		{"GE1A2B~1/settings.json", "GE1A2B~1 may be the short (8.3) name"},
		{"GE1A2B~12/settings.json", ""},
		{"notes~draft.txt", ""},
		{"file.txt~", ""},
		{"main.go.~1~", ""},
		{"~1/file", ""},
		{"LONGERNAME~1/file", ""},
		{"NAME~1.LONG", ""},
		{"a~/file", ""},
	} {
		got := s.Why(filepath.Join(root, filepath.FromSlash(c.path)))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("Why(%s) = %q, want it to say %q", c.path, got, c.want)
		}
	}
}
