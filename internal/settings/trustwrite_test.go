package settings

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// TestSetFolderTrustKeepsOrderAndRefusesBadFiles: the rules already there
// stay, in order; a file that is not trust levels is not touched.
func TestSetFolderTrustKeepsOrderAndRefusesBadFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	writeFile(t, path, `{"/z": "DO_NOT_TRUST", "/a": "TRUST_PARENT"}`)
	if err := SetFolderTrust(t.Context(), path, "/m", TrustFolder); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, path), "{\n  \"/z\": \"DO_NOT_TRUST\",\n  \"/a\": \"TRUST_PARENT\",\n  "+jsString(trustKeyOf(t, "/m"))+": \"TRUST_FOLDER\"\n}"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 { // Windows has no modes
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	bad := `{"/z": "MAYBE"}`
	writeFile(t, path, bad)
	if err := SetFolderTrust(t.Context(), path, "/m", TrustFolder); err == nil {
		t.Fatal("an invalid trust level was overwritten")
	}
	if got := readFile(t, path); got != bad {
		t.Fatalf("the invalid file was changed: %s", got)
	}
	if err := SetFolderTrust(t.Context(), path, "/m", "TRUST_ME"); err == nil {
		t.Fatal("a level that is not one was written")
	}
}

// TestSetFolderTrustWritesAsGeminiCLI: from no file, through each level,
// a level changed in place, and a file of the user's with comments, a
// path given twice and characters Go's encoder would escape, the file
// gemini-ls writes is Gemini CLI 0.61's, byte for byte, with its mode.
func TestSetFolderTrustWritesAsGeminiCLI(t *testing.T) {
	theirs, ours := t.TempDir(), t.TempDir()
	theirFile := filepath.Join(theirs, ".gemini", "trustedFolders.json")
	ourFile := filepath.Join(ours, ".gemini", "trustedFolders.json")
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b <&> ü")
	steps := []struct {
		start         string // the file before the step, "" to keep it
		folder, level string
	}{
		{"", a, TrustFolder},
		{"", b, TrustParent},
		{"", a, DoNotTrust},
		{"// mine\n{\n  \"/x\": \"TRUST_FOLDER\", /* old */ \"/y\": \"DO_NOT_TRUST\",\n  \"/x\": \"TRUST_PARENT\"\n}\n", b, TrustFolder},
	}
	for i, s := range steps {
		if s.start != "" {
			writeFile(t, theirFile, s.start)
			writeFile(t, ourFile, s.start)
		}
		geminicli.SetFolderTrust(t, theirs, s.folder, s.level)
		if err := SetFolderTrust(t.Context(), ourFile, s.folder, s.level); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := readFile(t, ourFile), readFile(t, theirFile); got != want {
			t.Fatalf("step %d (%s %s): gemini-ls wrote\n%s\nGemini CLI wrote\n%s", i, s.level, s.folder, got, want)
		}
		ourInfo, _ := os.Stat(ourFile)
		theirInfo, _ := os.Stat(theirFile)
		if ourInfo.Mode() != theirInfo.Mode() {
			t.Errorf("step %d: mode %v, Gemini CLI's %v", i, ourInfo.Mode(), theirInfo.Mode())
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
