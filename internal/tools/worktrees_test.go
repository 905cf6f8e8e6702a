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

// Nor does a listing of .gemini, or any tool given a path there
// outright: read_file, a search or a listing of an agent's worktree is
// refused with a sentence saying why.
func TestTheMainSessionsToolsStayOutOfTheAgentsWorktrees(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"a.txt":                                "needle main\n",
		".gemini/settings.json":                "{}\n",
		".gemini/worktrees/fix-login/a.txt":    "needle AGENT\n",
		".gemini/worktrees/fix-login/sub/b.go": "package AGENT\n",
	})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{GrepSearchName, map[string]any{"pattern": "needle|package"}},
		{GrepSearchName, map[string]any{"pattern": "needle|package", "no_ignore": true}},
		{GlobName, map[string]any{"pattern": "**/*"}},
		{GlobName, map[string]any{"pattern": "**/*", "respect_git_ignore": false}},
		{ListDirectoryName, map[string]any{"dir_path": ".gemini"}},
		{ListDirectoryName, map[string]any{"dir_path": ".gemini", "file_filtering_options": map[string]any{"respect_git_ignore": false}}},
	} {
		res := run(t, tw.tool(c.tool, Options{}), c.args)
		if strings.Contains(res.Output+res.Error, "AGENT") || strings.Contains(res.Output, "worktrees") || strings.Contains(res.Output, "fix-login") {
			t.Errorf("%s %v wandered into the worktrees:\n%s%s", c.tool, c.args, res.Output, res.Error)
		}
	}
	for _, dir := range []string{".gemini/worktrees", ".gemini/worktrees/fix-login", ".gemini/worktrees/fix-login/sub"} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{GrepSearchName, map[string]any{"pattern": "package", "dir_path": dir}},
			{GlobName, map[string]any{"pattern": "**/*", "dir_path": dir}},
			{ListDirectoryName, map[string]any{"dir_path": dir}},
		} {
			res := run(t, tw.tool(c.tool, Options{}), c.args)
			if strings.Contains(res.Output+res.Error, "AGENT") || !strings.Contains(res.Error, "where each agent has its git worktree") {
				t.Errorf("%s %v: output %q, error %q, want the refusal", c.tool, c.args, res.Output, res.Error)
			}
		}
	}
	res := run(t, tw.tool(ReadFileName, Options{}), map[string]any{"file_path": ".gemini/worktrees/fix-login/a.txt"})
	if strings.Contains(res.Output+res.Error, "AGENT") || !strings.Contains(res.Error, "is in .gemini/worktrees, where each agent has its git worktree") {
		t.Errorf("read_file of an agent's file: output %q, error %q", res.Output, res.Error)
	}
	// Beside the worktrees, .gemini and the tree read as before.
	res = run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
	if !strings.Contains(res.Output, "needle main") {
		t.Errorf("grep_search of the tree: %q %q", res.Output, res.Error)
	}
}
