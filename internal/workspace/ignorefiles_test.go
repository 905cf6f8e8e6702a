package workspace

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// SetIgnoreFiles chooses which ignore files count, in walks, listings and
// Ignored alike: without .gitignore (and .git/info/exclude), without
// .geminiignore, and with custom files joined to the root, which count
// over both, the first over the later; IgnoredByAny counts every file
// whatever was chosen.
func TestSetIgnoreFiles(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		".gitignore":        "git.txt\n",
		".git/info/exclude": "excluded.txt\n",
		".geminiignore":     "gemini.txt\n",
		"sub/.gitignore":    "subgit.txt\n",
		"conf/first.ignore": "custom.txt\n!both.txt\n",
		"second.ignore":     "both.txt\nsecond.txt\n",
		"git.txt":           "", "excluded.txt": "", "gemini.txt": "", "sub/subgit.txt": "",
		"custom.txt": "", "both.txt": "", "second.txt": "", "plain.txt": "",
	})
	txt := func() []string {
		var out []string
		for _, n := range walkNames(t, w, root, true) {
			if filepath.Ext(n) == ".txt" {
				out = append(out, n)
			}
		}
		return out
	}
	all := []string{"both.txt", "custom.txt", "excluded.txt", "gemini.txt", "git.txt", "plain.txt", "second.txt", "sub/subgit.txt"}
	for _, tc := range []struct {
		name  string
		files IgnoreFiles
		want  []string
	}{
		{"every file", IgnoreFiles{}, []string{"both.txt", "custom.txt", "plain.txt", "second.txt"}},
		{"no .gitignore", IgnoreFiles{SkipGit: true}, []string{"both.txt", "custom.txt", "excluded.txt", "git.txt", "plain.txt", "second.txt", "sub/subgit.txt"}},
		{"no .geminiignore", IgnoreFiles{SkipGemini: true}, []string{"both.txt", "custom.txt", "gemini.txt", "plain.txt", "second.txt"}},
		{"neither", IgnoreFiles{SkipGit: true, SkipGemini: true}, all},
		// The first custom file re-includes what the second ignores.
		{"custom files", IgnoreFiles{SkipGit: true, SkipGemini: true, Custom: []string{"conf/first.ignore", "second.ignore"}},
			[]string{"both.txt", "excluded.txt", "gemini.txt", "git.txt", "plain.txt", "sub/subgit.txt"}},
		{"custom files over the others", IgnoreFiles{Custom: []string{"second.ignore"}}, []string{"custom.txt", "plain.txt"}},
	} {
		w.SetIgnoreFiles(tc.files)
		if got := txt(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: walk finds %v, want %v", tc.name, got, tc.want)
		}
		entries, _, err := w.ReadDir(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if filepath.Ext(e.Name) == ".txt" && e.Ignored == slices.Contains(tc.want, e.Name) {
				t.Errorf("%s: ReadDir has %s ignored %v", tc.name, e.Name, e.Ignored)
			}
		}
		ignored, err := w.Ignored(context.Background(), filepath.Join(root, "sub", "subgit.txt"))
		if err != nil || ignored == slices.Contains(tc.want, "sub/subgit.txt") {
			t.Errorf("%s: Ignored(sub/subgit.txt) = %v, %v", tc.name, ignored, err)
		}
		for _, name := range []string{"git.txt", "gemini.txt", "excluded.txt"} {
			if any, err := w.IgnoredByAny(context.Background(), filepath.Join(root, name)); err != nil || !any {
				t.Errorf("%s: IgnoredByAny(%s) = %v, %v; want true", tc.name, name, any, err)
			}
		}
	}
}

// A line longer than 64 KB (a long comment, a long pattern) does not end
// the rules: those after it hold, in .geminiignore and .gitignore alike,
// for Ignored and a walk. bufio.Scanner's default limit stopped there,
// silently.
func TestIgnoreRulesAfterALongLineHold(t *testing.T) {
	long := "# " + strings.Repeat("x", 70<<10) + "\n"
	w, root := newTestWorkspace(t, map[string]string{
		".geminiignore": long + "secret.env\n",
		".gitignore":    long + "\r\n" + "build.log\r\n",
		"secret.env":    "", "build.log": "", "plain.txt": "",
	})
	for _, name := range []string{"secret.env", "build.log"} {
		ignored, err := w.Ignored(t.Context(), filepath.Join(root, name))
		if err != nil || !ignored {
			t.Errorf("Ignored(%s) = %v, %v; want ignored by the rule after the long line", name, ignored, err)
		}
	}
	if got := walkNames(t, w, root, true); !slices.Equal(got, []string{".geminiignore", ".gitignore", "plain.txt"}) {
		t.Errorf("the walk found %q", got)
	}
}

// A root nested in another (AddRoot, /directory add, an editor's folders
// /proj and /proj/pkg) keeps the outer root's ignore rules, each read
// from its own root: Ignored, ReadDir and a walk from either root ignore
// what the outer root's .geminiignore names inside the inner one, and
// the inner root's own rules (its .git/info/exclude too) still hold.
func TestNestedRootKeepsTheOuterRootsIgnoreRules(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		".geminiignore":         "sub/secret.env\nkeys/\n",
		"sub/secret.env":        "TOKEN=1\n",
		"sub/keys/id":           "KEY\n",
		"sub/.geminiignore":     "own.txt\n",
		"sub/.git/info/exclude": "excluded.txt\n",
		"sub/own.txt":           "", "sub/excluded.txt": "", "sub/plain.txt": "",
	})
	sub, _, err := w.AddRoot(filepath.Join(root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"sub/secret.env", "sub/keys", "sub/keys/id", "sub/own.txt", "sub/excluded.txt"} {
		ignored, err := w.Ignored(t.Context(), filepath.Join(root, rel))
		if err != nil || !ignored {
			t.Errorf("Ignored(%s) = %v, %v; want ignored", rel, ignored, err)
		}
	}
	if ignored, err := w.Ignored(t.Context(), filepath.Join(sub, "plain.txt")); err != nil || ignored {
		t.Errorf("Ignored(sub/plain.txt) = %v, %v; want not ignored", ignored, err)
	}
	entries, _, err := w.ReadDir(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, e := range entries {
		if !e.Ignored && e.Name != ".git" { // .git: the tools hide it by name
			shown = append(shown, e.Name)
		}
	}
	if want := []string{".geminiignore", "plain.txt"}; !slices.Equal(shown, want) {
		t.Errorf("ReadDir(sub) shows %q, want %q", shown, want)
	}
	want := []string{"sub/.geminiignore", "sub/plain.txt"}
	if got := walkNames(t, w, sub, true); !slices.Equal(got, want) {
		t.Errorf("a walk of sub found %q, want %q", got, want)
	}
	if got := walkNames(t, w, root, true); !slices.Equal(got, append([]string{".geminiignore", "sub/"}, want...)) {
		t.Errorf("a walk of the outer root found %q", got)
	}
}

// Ignore rules match letters in any case where file systems ignore case
// by default (Windows, macOS), as git does there, and case for case
// elsewhere, as git does there: secret.txt hides Secret.txt only where
// they are the same file.
func TestIgnoreRulesFoldCaseWhereTheSystemDoes(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{".geminiignore": "secret.txt\n*.KEY\n", "Secret.txt": "", "id.key": ""})
	fold := runtime.GOOS == "windows" || runtime.GOOS == "darwin"
	for _, name := range []string{"Secret.txt", "id.key"} {
		if ignored, err := w.Ignored(t.Context(), filepath.Join(root, name)); err != nil || ignored != fold {
			t.Errorf("on %s, Ignored(%s) = %v, %v; want %v", runtime.GOOS, name, ignored, err, fold)
		}
	}
}
