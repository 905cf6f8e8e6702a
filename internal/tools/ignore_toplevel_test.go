package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/gitignore/gitignoretest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// With the workspace's root below a git work tree's top (repo/app, as
// red team ten opened it), read_file refuses, and glob and grep_search
// leave out, what git ignores there from above the root: a rule of the
// top's .gitignore, of the repository's info/exclude (in a linked
// worktree, the main repository's), of the user's excludes file
// ($XDG_CONFIG_HOME/git/ignore) and one matching only under the
// repository's core.ignorecase. Before, each came through all three.
func TestToolsHideWhatGitIgnoresAboveTheRoot(t *testing.T) {
	for _, worktree := range []bool{false, true} {
		name := "repository"
		if worktree {
			name = "linked worktree"
		}
		t.Run(name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			home, xdg := filepath.Join(base, "home"), filepath.Join(base, "xdg")
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", xdg)
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")

			main, top := filepath.Join(base, "main"), filepath.Join(base, "main")
			if worktree {
				top = filepath.Join(base, "wt")
				gitignoretest.LinkedRepo(t, main, top)
			} else {
				gitignoretest.Repo(t, main)
			}
			root := filepath.Join(top, "app")
			tw := &testWorkspace{t: t, root: root, docs: workspace.NewDocuments()}
			for name, content := range map[string]string{
				"../.gitignore":   "*.log\n/app/build/\nNOTES.TXT\n",
				"a.log":           "needle\n",
				"build/out.go":    "needle\n",
				"secret.env":      "needle\n",
				"x.swp":           "needle\n",
				"notes.txt":       "needle\n",
				"src/keep.go":     "needle\n",
				"src/keep.logger": "needle\n",
			} {
				tw.write(name, content)
			}
			for name, content := range map[string]string{
				filepath.Join(main, ".git", "info", "exclude"): "secret.env\n",
				filepath.Join(main, ".git", "config"):          "[core]\n\tignorecase = true\n",
				filepath.Join(xdg, "git", "ignore"):            "*.swp\n",
			} {
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tw.ws, err = workspace.New([]string{root}, tw.docs); err != nil {
				t.Fatal(err)
			}

			hidden := []string{"a.log", "build/out.go", "secret.env", "x.swp", "notes.txt"}
			read := tw.tool(ReadFileName, Options{})
			for _, name := range hidden {
				wantError(t, run(t, read, map[string]any{"path": name}), "File path '"+tw.abs(name)+"' is ignored by configured ignore patterns.")
			}
			wantOutput(t, run(t, read, map[string]any{"path": "src/keep.go"}), "needle\n")

			globbed := run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*"})
			grepped := run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
			for _, res := range []Result{globbed, grepped} {
				if res.Error != "" {
					t.Fatalf("Error = %q", res.Error)
				}
				for _, want := range []string{"src/keep.go", "src/keep.logger"} {
					wantContains(t, res.Output, want)
				}
				for _, name := range hidden {
					if strings.Contains(res.Output, name) {
						t.Errorf("%s came through:\n%s", name, res.Output)
					}
				}
			}
			wantContains(t, globbed.Output, "(5 additional files were ignored)")
		})
	}
}
