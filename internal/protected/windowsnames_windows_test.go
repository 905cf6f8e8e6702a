package protected_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/gemini-ls/gemini-ls/internal/protected"
)

// On Windows an existing file's short (8.3) name is resolved by the
// file system (GetLongPathName): an edit through the short name of
// .vscode is protected as .vscode, and a directory whose long name only
// looks short is an ordinary one.
func TestWhyResolvesShortNames(t *testing.T) {
	root := t.TempDir()
	mkdir(t, root, ".vscode", "ABC~1")
	short := shortName(t, filepath.Join(root, ".vscode"))
	if strings.EqualFold(filepath.Base(short), ".vscode") {
		t.Skip("this volume makes no short (8.3) names")
	}
	var s protected.Set
	got := s.Why(filepath.Join(short, "tasks.json"))
	if !strings.Contains(got, ".vscode holds VS Code's") {
		t.Errorf("Why(%s) = %q, want .vscode's reason", filepath.Join(short, "tasks.json"), got)
	}
	if got := s.Why(filepath.Join(root, "ABC~1", "notes.txt")); got != "" {
		t.Errorf("Why of a file in a directory named ABC~1 = %q, want nothing", got)
	}
	if got := s.Why(filepath.Join(root, "NEW~1", "settings.json")); !strings.Contains(got, "NEW~1 may be the short (8.3) name") {
		t.Errorf("Why of a short-looking name that does not exist = %q, want it treated as protected", got)
	}
}

// shortName is path's short (8.3) form, as Windows names it.
func shortName(t *testing.T, path string) string {
	t.Helper()
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint16, windows.MAX_PATH)
	n, err := windows.GetShortPathName(p, &buf[0], uint32(len(buf)))
	if err != nil || int(n) >= len(buf) {
		t.Fatalf("GetShortPathName(%s): %d, %v", path, n, err)
	}
	if _, err := os.Stat(windows.UTF16ToString(buf[:n])); err != nil {
		t.Fatal(err)
	}
	return windows.UTF16ToString(buf[:n])
}
