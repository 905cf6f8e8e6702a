package geminidir

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

func TestSlugify(t *testing.T) {
	for name, want := range map[string]string{
		"gemini-ls":     "gemini-ls",
		"My Project!!":  "my-project",
		"--a__b--":      "a-b",
		"日本":            "project",
		"":              "project",
		"Go1.22 (beta)": "go1-22-beta",
	} {
		if got := slugify(name); got != want {
			t.Errorf("slugify(%q) = %q, want %q", name, got, want)
		}
	}
}

// A slug another project's marker holds is not taken: the next free one
// is claimed, as Gemini CLI claims one, and found again after.
func TestProjectDirClaimsAFreeSlug(t *testing.T) {
	gemini := t.TempDir()
	root := filepath.Join(t.TempDir(), "app")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(gemini, "tmp", "app")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, projectRootFile), []byte("/somewhere/else/app"), 0o600); err != nil {
		t.Fatal(err)
	}
	dirs, err := New(gemini, root)
	if err != nil {
		t.Fatal(err)
	}
	if dir, err := dirs.Find(); dir != "" || err != nil {
		t.Fatalf("find before a claim = %q, %v", dir, err)
	}
	dir, err := dirs.FindOrClaim()
	if want := filepath.Join(gemini, "tmp", "app-1"); dir != want || err != nil {
		t.Fatalf("findOrClaim = %q, %v; want %q", dir, err, want)
	}
	for _, base := range []string{"tmp", "history"} {
		if owner, err := os.ReadFile(filepath.Join(gemini, base, "app-1", projectRootFile)); err != nil || string(owner) != dirs.root {
			t.Errorf("%s marker = %q, %v", base, owner, err)
		}
	}
	if again, err := dirs.Find(); again != dir || err != nil {
		t.Errorf("find after the claim = %q, %v", again, err)
	}
}

// A claim waits for the registry's lock, which Gemini CLI holds while it
// claims a directory, and is made once it is released.
func TestClaimWaitsForTheRegistryLock(t *testing.T) {
	gemini := t.TempDir()
	dirs, err := New(gemini, filepath.Join(t.TempDir(), "app"))
	if err != nil {
		t.Fatal(err)
	}
	var dir string
	locktest.Waits(t, filepath.Join(gemini, registryFile), func(context.Context) error {
		dir, err = dirs.FindOrClaim()
		return err
	})
	if owner, err := dirs.owner(dir); err != nil || owner != dirs.root {
		t.Errorf("after the wait the claim is %q, owned by %q (%v)", dir, owner, err)
	}
}

// projects.json is read as Gemini CLI's JSON.parse reads it: "Projects"
// is not "projects", and does not undo it.
func TestRegistryReadByExactNames(t *testing.T) {
	gemini := t.TempDir()
	root := filepath.Join(t.TempDir(), "app")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	dirs, err := New(gemini, root)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := json.Marshal(dirs.root)
	registry := `{"projects": {` + string(key) + `: "kept"}, "Projects": {` + string(key) + `: "folded"}}`
	if err := os.WriteFile(filepath.Join(gemini, registryFile), []byte(registry), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := dirs.registry()[dirs.root]; got != "kept" {
		t.Errorf("registry[%s] = %q, want the id \"projects\" gives", dirs.root, got)
	}
}
