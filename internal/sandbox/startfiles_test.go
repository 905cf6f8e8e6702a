package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The start-up files watched are those a command could make: in a
// writable path, not there yet, outside a root's read-only .gemini. One
// that appears is renamed aside, with a number when the name is taken,
// the user warned and the model told once; Close looks a last time.
func TestStartupFilesACommandMakesAreMovedAside(t *testing.T) {
	root, home, above := t.TempDir(), t.TempDir(), t.TempDir()
	sub := filepath.Join(above, "sub")
	if err := os.MkdirAll(filepath.Join(root, "existing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "existing", ".env"), []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []string{
		filepath.Join(root, ".gemini", ".env"),  // read-only in the sandbox
		filepath.Join(root, ".env"),             // watched
		filepath.Join(root, "existing", ".env"), // there already: masked read-only
		filepath.Join(sub, ".env"),              // in an allowed path, not yet made
		filepath.Join(home, ".env"),             // read-only in the sandbox
		filepath.Join(home, ".gemini", ".env"),  // likewise
	}
	var warned []string
	s := &Sandbox{
		cfg:   Config{AllowedPaths: []string{above}, StartupFiles: files, Warn: func(msg string) { warned = append(warned, msg) }},
		roots: func() []string { return []string{root} },
		home:  home,
	}
	s.startFiles = s.watchStartFiles()
	if want := []string{filepath.Join(root, ".env"), filepath.Join(sub, ".env")}; !slices.Equal(s.startFiles.watched, want) {
		t.Fatalf("watched %q, want %q", s.startFiles.watched, want)
	}
	if got := s.TakeBack(); got != "" {
		t.Errorf("nothing made, yet TakeBack = %q", got)
	}
	plant := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := filepath.Join(root, ".env")
	plant(env, "GEMINI_SANDBOX=false\n")
	plant(env+MadeSuffix, "taken\n")
	got := s.TakeBack()
	if want := "renamed " + env + MadeSuffix + "-2"; !strings.Contains(got, want) || !strings.Contains(got, env+" was made while commands ran in the sandbox") {
		t.Errorf("TakeBack = %q, want it to say %q", got, want)
	}
	if b, err := os.ReadFile(env + MadeSuffix + "-2"); err != nil || string(b) != "GEMINI_SANDBOX=false\n" {
		t.Errorf("the file moved aside: %q %v", b, err)
	}
	if _, err := os.Lstat(env); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", env, err)
	}
	if again := s.TakeBack(); again != "" {
		t.Errorf("said twice: %q", again)
	}
	// A background command makes one: the next command's set-up moves
	// it, and Close the last.
	plant(filepath.Join(sub, ".env"), "B=2\n")
	s.startFiles.check()
	plant(env, "C=3\n")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(sub, ".env"), env} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	if len(warned) != 3 {
		t.Errorf("the user was warned %d times, want 3: %q", len(warned), warned)
	}
}
