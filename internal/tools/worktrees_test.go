package tools

import (
	"strings"
	"testing"
)

// The main workspace's search tools never wander into the sessions'
// worktrees under .gemini/worktrees (workspace.Walk skips them): glob and
// grep_search find the project's own file, never a worktree's copy, and
// still see the rest of .gemini.
func TestSearchToolsSkipSessionWorktrees(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"main.go":                        "package main // needle\n",
		".gemini/styleguide.go":          "package style // needle\n",
		".gemini/worktrees/fix/main.go":  "package main // needle\n",
		".gemini/worktrees/fix/.git":     "gitdir: elsewhere\n",
		".gemini/worktrees/other/new.go": "package other // needle\n",
	})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{GlobName, map[string]any{"pattern": "**/*.go"}},
		{GlobName, map[string]any{"pattern": "**/*.go", "dir_path": ".gemini"}},
		{GrepSearchName, map[string]any{"pattern": "needle"}},
		{GrepSearchName, map[string]any{"pattern": "needle", "no_ignore": true}},
	} {
		out := run(t, tw.tool(tc.tool, Options{}), tc.args).Output
		if strings.Contains(out, "worktrees") {
			t.Errorf("%s %v went into .gemini/worktrees:\n%s", tc.tool, tc.args, out)
		}
		if !strings.Contains(out, "styleguide.go") {
			t.Errorf("%s %v missed .gemini/styleguide.go:\n%s", tc.tool, tc.args, out)
		}
	}
}
