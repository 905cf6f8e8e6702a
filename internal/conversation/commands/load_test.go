package commands

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// write makes the files of tree (path → content) below dir.
func write(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for name, content := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// names maps each command's name to it.
func names(cmds []Custom) map[string]Custom {
	m := map[string]Custom{}
	for _, c := range cmds {
		m[c.Name] = c
	}
	return m
}

// Gemini CLI's FileCommandLoader.test.ts cases, with gemini-ls's
// deviations (symlinks out of the directory, bounds) beside them.
func TestLoadUserCommands(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  map[string]string // name → description
		bad   []string          // files reported as skipped
	}{
		{"single", map[string]string{"test.toml": `prompt = "This is a test prompt"`}, map[string]string{"test": "Custom command from test.toml"}, nil},
		{"multiple", map[string]string{"test1.toml": `prompt = "Prompt 1"`, "test2.toml": `prompt = "Prompt 2"`}, map[string]string{"test1": "Custom command from test1.toml", "test2": "Custom command from test2.toml"}, nil},
		{"deep namespaces", map[string]string{"gcp/pipelines/run.toml": `prompt = "run pipeline"`}, map[string]string{"gcp:pipelines:run": "Custom command from run.toml"}, nil},
		{"namespace", map[string]string{"git/commit.toml": `prompt = "git commit prompt"`}, map[string]string{"git:commit": "Custom command from commit.toml"}, nil},
		{"TOML syntax error", map[string]string{"invalid.toml": "this is not valid toml", "good.toml": `prompt = "This one is fine"`}, map[string]string{"good": "Custom command from good.toml"}, []string{"invalid.toml"}},
		{"missing prompt", map[string]string{"no_prompt.toml": `description = "This file is missing a prompt"`, "good.toml": `prompt = "fine"`}, map[string]string{"good": "Custom command from good.toml"}, []string{"no_prompt.toml"}},
		{"prompt not a string", map[string]string{"num.toml": `prompt = 3`}, map[string]string{}, []string{"num.toml"}},
		{"description not a string", map[string]string{"d.toml": "prompt = \"p\"\ndescription = [1]"}, map[string]string{}, []string{"d.toml"}},
		{"dotted name", map[string]string{"test.v1.toml": `prompt = "Test prompt"`}, map[string]string{"test.v1": "Custom command from test.v1.toml"}, nil},
		{"description", map[string]string{"test.toml": "prompt = \"Test prompt\"\ndescription = \"My test command\""}, map[string]string{"test": "My test command"}, nil},
		{"colon in file name", map[string]string{"legacy:command.toml": `prompt = "legacy"`}, map[string]string{"legacy_command": "Custom command from legacy:command.toml"}, nil},
		{"control characters in file name", map[string]string{"test\twith\nnewlines.toml": `prompt = "Test prompt"`}, map[string]string{"test_with_newlines": "Custom command from test with newlines.toml"}, nil},
		{"long file name", map[string]string{strings.Repeat("a", 60) + ".toml": `prompt = "Test prompt"`}, map[string]string{strings.Repeat("a", 47) + "...": "Custom command from " + strings.Repeat("a", 60) + ".toml"}, nil},
		{"description sanitized", map[string]string{"test.toml": "prompt = \"Test\"\ndescription = \"Line 1\\nLine 2\\tTabbed\\r\\n\\u001B[31mRed text\\u001B[0m\""}, map[string]string{"test": "Line 1 Line 2 Tabbed Red text"}, nil},
		{"long description", map[string]string{"test.toml": "prompt = \"Test\"\ndescription = \"" + strings.Repeat("d", 150) + "\""}, map[string]string{"test": strings.Repeat("d", 97) + "..."}, nil},
		{"not a .toml", map[string]string{"readme.md": "# hi", "x.toml.bak": "prompt = \"x\""}, map[string]string{}, nil},
		{"too large", map[string]string{"big.toml": "prompt = \"" + strings.Repeat("x", maxFileSize) + "\""}, map[string]string{}, []string{"big.toml"}},
		{"too deep", map[string]string{strings.Repeat("d/", maxDepth) + "ok.toml": `prompt = "ok"`, strings.Repeat("d/", maxDepth+1) + "deep.toml": `prompt = "deep"`}, map[string]string{strings.Repeat("d:", maxDepth) + "ok": "Custom command from ok.toml"}, []string{strings.Repeat("d/", maxDepth) + "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.ContainsAny(strings.Join(slices.Collect(maps.Keys(tt.files)), ""), "\t\n") {
				platformtest.Unix(t, "file names with control characters")
			}
			home := t.TempDir()
			userDir := filepath.Join(home, ".gemini")
			write(t, Dir(userDir), tt.files)
			cmds, errs := Load(context.Background(), userDir, t.TempDir(), true)
			got := names(cmds)
			if len(got) != len(tt.want) {
				t.Errorf("commands %v, want %v", got, tt.want)
			}
			for name, desc := range tt.want {
				c, ok := got[name]
				if !ok {
					t.Errorf("no command %q in %v", name, got)
					continue
				}
				if c.Description != desc || c.Source != User {
					t.Errorf("%s: description %q, source %v; want %q, user", name, c.Description, c.Source, desc)
				}
			}
			if len(errs) != len(tt.bad) {
				t.Errorf("errors %v, want for %v", errs, tt.bad)
			}
			for i, bad := range tt.bad {
				var fe *FileError
				if i >= len(errs) || !errors.As(errs[i], &fe) || fe.Path != filepath.Join(Dir(userDir), filepath.FromSlash(bad)) {
					t.Errorf("error %d: %v, want one naming %s", i, errs, bad)
				}
			}
		})
	}
}

func TestLoadPrompt(t *testing.T) {
	home := t.TempDir()
	write(t, Dir(home), map[string]string{"review.toml": "description = \"Review\"\nprompt = \"\"\"\nReview {{args}}\n!{git diff}\n\"\"\""})
	cmds, errs := Load(context.Background(), home, t.TempDir(), true)
	if len(errs) > 0 || len(cmds) != 1 {
		t.Fatalf("commands %v, errors %v", cmds, errs)
	}
	if want := "Review {{args}}\n!{git diff}\n"; cmds[0].Prompt != want || cmds[0].File != filepath.Join(Dir(home), "review.toml") {
		t.Errorf("prompt %q of %s, want %q", cmds[0].Prompt, cmds[0].File, want)
	}
}

// A project command replaces a user command of its name in a trusted
// root; an untrusted root loads the user's alone, as Gemini CLI 0.61's
// getCommandDirectories has it.
func TestLoadProjectOverridesUserOnlyWhenTrusted(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	write(t, Dir(home), map[string]string{"test.toml": `prompt = "User prompt"`, "mine.toml": `prompt = "only mine"`})
	write(t, ProjectDir(root), map[string]string{"test.toml": `prompt = "Project prompt"`, "team.toml": `prompt = "team"`})

	cmds, errs := Load(context.Background(), home, root, true)
	got := names(cmds)
	if len(errs) > 0 || len(got) != 3 {
		t.Fatalf("commands %v, errors %v", got, errs)
	}
	if c := got["test"]; c.Prompt != "Project prompt" || c.Source != Project {
		t.Errorf("test = %+v, want the project's", c)
	}
	if c := got["mine"]; c.Source != User {
		t.Errorf("mine = %+v, want the user's", c)
	}

	cmds, errs = Load(context.Background(), home, root, false)
	got = names(cmds)
	if len(errs) > 0 || len(got) != 2 {
		t.Fatalf("untrusted root: commands %v, errors %v; want the user's two", got, errs)
	}
	if c := got["test"]; c.Prompt != "User prompt" || c.Source != User {
		t.Errorf("untrusted root: test = %+v, want the user's", c)
	}
	if c := got["mine"]; c.Source != User {
		t.Errorf("untrusted root: mine = %+v, want the user's", c)
	}
	if _, ok := got["team"]; ok {
		t.Error("untrusted root: the project's team command loaded")
	}
}

// A root that is the home directory has the user's commands once.
func TestLoadHomeAsRoot(t *testing.T) {
	home := t.TempDir()
	userDir := filepath.Join(home, ".gemini")
	write(t, Dir(userDir), map[string]string{"test.toml": `prompt = "User prompt"`, "another.toml": `prompt = "Another"`})
	cmds, errs := Load(context.Background(), userDir, home, true)
	if len(errs) > 0 || len(cmds) != 2 {
		t.Fatalf("commands %v, errors %v", cmds, errs)
	}
	for _, c := range cmds {
		if c.Source != User {
			t.Errorf("%s: source %v, want user", c.Name, c.Source)
		}
	}
}

func TestLoadMissingDirectories(t *testing.T) {
	cmds, errs := Load(context.Background(), filepath.Join(t.TempDir(), "nothing"), t.TempDir(), true)
	if len(cmds) != 0 || len(errs) != 0 {
		t.Errorf("commands %v, errors %v; want none", cmds, errs)
	}
}

// The commands directory may be a symlink, and so may what is in it if it
// stays inside; a symlink out of it is refused and reported (Gemini CLI
// follows it: a workspace could make it read any file).
func TestLoadSymlinks(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	write(t, elsewhere, map[string]string{"real/test.toml": `prompt = "linked dir"`, "outside.toml": `prompt = "secret"`, "ns/x.toml": `prompt = "x"`})
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	platformtest.Symlink(t, filepath.Join(elsewhere, "real"), Dir(home))
	cmds, errs := Load(context.Background(), home, "", true)
	if len(errs) > 0 || len(cmds) != 1 || cmds[0].Name != "test" {
		t.Fatalf("symlinked commands directory: commands %v, errors %v", cmds, errs)
	}

	root := t.TempDir()
	dir := ProjectDir(root)
	write(t, dir, map[string]string{"inner/a.toml": `prompt = "a"`})
	links := map[string]string{
		"alias.toml":    filepath.Join(dir, "inner", "a.toml"),
		"innerlink":     filepath.Join(dir, "inner"),
		"escape.toml":   filepath.Join(elsewhere, "outside.toml"),
		"escapedir":     filepath.Join(elsewhere, "ns"),
		"loop":          dir,
		"dangling.toml": filepath.Join(dir, "gone.toml"),
	}
	for name, target := range links {
		platformtest.Symlink(t, target, filepath.Join(dir, name))
	}
	cmds, errs = Load(context.Background(), "", root, true)
	got := names(cmds)
	for _, want := range []string{"alias", "inner:a", "innerlink:a"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s in %v", want, got)
		}
	}
	for _, refused := range []string{"escape", "escapedir:x", "loop:inner:a"} {
		if _, ok := got[refused]; ok {
			t.Errorf("%s loaded through a symlink out of the directory", refused)
		}
	}
	reported := map[string]bool{}
	for _, err := range errs {
		var fe *FileError
		if errors.As(err, &fe) {
			reported[filepath.Base(fe.Path)] = true
		}
	}
	for _, name := range []string{"escape.toml", "escapedir", "loop", "dangling.toml"} {
		if !reported[name] {
			t.Errorf("%s not reported; errors %v", name, errs)
		}
	}
}

func TestLoadBoundsFileCount(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{}
	for i := range maxFiles + 5 {
		files[fmt.Sprintf("many/c%04d.toml", i)] = `prompt = "p"`
	}
	write(t, Dir(home), files)
	cmds, errs := Load(context.Background(), home, "", true)
	if len(cmds) > maxFiles {
		t.Errorf("%d commands loaded, more than %d", len(cmds), maxFiles)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "more than") {
		t.Errorf("errors %v, want one saying the rest were skipped", errs)
	}
}
