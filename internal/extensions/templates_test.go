package extensions

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// TestTemplatesAreGeminiCLIs: the templates `new` copies are, file for
// file, the examples the installed Gemini CLI 0.61 package ships.
func TestTemplatesAreGeminiCLIs(t *testing.T) {
	examples := filepath.Join(filepath.Dir(geminicli.JS(t)), "examples")
	want := map[string]string{}
	err := filepath.WalkDir(examples, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(examples, path)
		want[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	err = fs.WalkDir(templates, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "templates/NOTICE" {
			return err
		}
		data, err := templates.ReadFile(path)
		got[path[len("templates/"):]] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("template file %s differs from Gemini CLI's (or is missing)", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("template file %s is not Gemini CLI's", name)
		}
	}
	entries, _ := os.ReadDir(examples)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if !slices.Equal(Templates(), names) {
		t.Errorf("Templates() = %v, Gemini CLI has %v", Templates(), names)
	}
}

// TestIDAndGitHubRepo: the id Gemini CLI lists, and which sources it
// takes for GitHub's.
func TestIDAndGitHubRepo(t *testing.T) {
	for src, want := range map[string]string{
		"https://github.com/a/b":      "a/b",
		"https://github.com/a/b.git":  "a/b",
		"git@github.com:a/b.git":      "a/b",
		"a/b":                         "a/b",
		"https://gitlab.com/a/b":      "",
		"git@gitlab.com:a/b":          "",
		"http://127.0.0.1:80/b.git":   "",
		"https://github.com/a/b/tree": "",
	} {
		if got := GitHubRepo(src); got != want {
			t.Errorf("GitHubRepo(%q) = %q, want %q", src, got, want)
		}
	}
	// As `gemini extensions list` printed them.
	if got := ID("myext", &Record{Source: "/tmp/gx/src/myext", Type: TypeLocal}); got != "8b8f227abb007939aa15c5656cc3078958d3981787ba904f5945973b0222bdfd" {
		t.Errorf("ID = %s", got)
	}
	if ID("x", &Record{Source: "https://github.com/a/b.git", Type: TypeGit}) != hash("https://github.com/a/b") {
		t.Error("a GitHub source's id is not its repository URL's hash")
	}
	if ID("x", nil) != hash("x") {
		t.Error("without install metadata the id is not the name's hash")
	}
}
