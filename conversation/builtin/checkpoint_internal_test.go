package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

// Tags are file names as JavaScript's encodeURIComponent makes them, and
// read back as Gemini CLI's decodeTagName reads them.
func TestTagEncoding(t *testing.T) {
	for tag, want := range map[string]string{
		"ada":           "ada",
		"before lunch":  "before%20lunch",
		"a.b-c_d!~*'()": "a.b-c_d!~*'()",
		"größe":         "gr%C3%B6%C3%9Fe",
		"50%+?#&=":      "50%25%2B%3F%23%26%3D",
		"..":            "..",
	} {
		if got := encodeTag(tag); got != want {
			t.Errorf("encodeTag(%q) = %q, want %q", tag, got, want)
		}
		if got := decodeTag(want); got != tag {
			t.Errorf("decodeTag(%q) = %q, want %q", want, got, tag)
		}
	}
	// Not valid as a URI component: each %XX is the character of its code.
	if got := decodeTag("a%E9b%zz"); got != "a\u00e9b%zz" {
		t.Errorf("decodeTag of a malformed name = %q", got)
	}
}

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
	dirs, err := newProjectDirs(gemini, root)
	if err != nil {
		t.Fatal(err)
	}
	if dir, err := dirs.find(); dir != "" || err != nil {
		t.Fatalf("find before a claim = %q, %v", dir, err)
	}
	dir, err := dirs.findOrClaim()
	if want := filepath.Join(gemini, "tmp", "app-1"); dir != want || err != nil {
		t.Fatalf("findOrClaim = %q, %v; want %q", dir, err, want)
	}
	for _, base := range []string{"tmp", "history"} {
		if owner, err := os.ReadFile(filepath.Join(gemini, base, "app-1", projectRootFile)); err != nil || string(owner) != dirs.root {
			t.Errorf("%s marker = %q, %v", base, owner, err)
		}
	}
	if again, err := dirs.find(); again != dir || err != nil {
		t.Errorf("find after the claim = %q, %v", again, err)
	}
}
