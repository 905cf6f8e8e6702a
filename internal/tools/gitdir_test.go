package tools

import (
	"strings"
	"testing"
)

// read_file refuses every file in a .git directory; a search or listing
// whose dir_path lies in one (.git, sub/.git, .git/info) is refused with
// the same words, whatever ignore rules the call lifts, rather than
// showing what read_file refuses (a remote URL's token in .git/config):
// the walks skip .git only on the way down.
func TestSearchesAndListingsRefuseADirectoryInsideGit(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".git/config":     "[remote \"origin\"]\n\turl = https://user:ghp_SECRET@github.com/x/y\n",
		".git/info/x":     "ghp_INFOSECRET\n",
		"sub/.git/config": "token ghp_SUBSECRET\n",
		"sub/a.txt":       "ghp_visible\n",
	})
	for _, dir := range []string{".git", "sub/.git", ".git/info"} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{GrepSearchName, map[string]any{"pattern": "ghp_", "dir_path": dir}},
			{GrepSearchName, map[string]any{"pattern": "ghp_", "dir_path": dir, "no_ignore": true}},
			{GlobName, map[string]any{"pattern": "**/*", "dir_path": dir}},
			{GlobName, map[string]any{"pattern": "**/*", "dir_path": dir, "respect_git_ignore": false}},
			{ListDirectoryName, map[string]any{"dir_path": dir}},
			{ListDirectoryName, map[string]any{"dir_path": dir, "file_filtering_options": map[string]any{"respect_git_ignore": false}}},
		} {
			res := run(t, tw.tool(c.tool, Options{}), c.args)
			if strings.Contains(res.Output+res.Error, "SECRET") || strings.Contains(res.Output, "config") {
				t.Errorf("%s %v showed what .git holds:\n%s%s", c.tool, c.args, res.Output, res.Error)
			}
			if want := "File path '" + tw.abs(dir) + "' is ignored by configured ignore patterns."; res.Error != want {
				t.Errorf("%s %v: error %q, want %q", c.tool, c.args, res.Error, want)
			}
		}
	}
	// Beside .git, a search still finds what it should.
	res := run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "ghp_", "dir_path": "sub"})
	if !strings.Contains(res.Output, "ghp_visible") || strings.Contains(res.Output, "SECRET") {
		t.Errorf("grep_search in sub: %q %q", res.Output, res.Error)
	}
}
