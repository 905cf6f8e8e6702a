package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// filteringFiles is a workspace whose .gitignore, .geminiignore and a
// custom ignore file each ignore one file, with settings setting
// context.fileFiltering to filtering.
func filteringFiles(t *testing.T, filtering map[string]any) map[string]string {
	t.Helper()
	settings, err := json.Marshal(map[string]any{"context": map[string]any{"fileFiltering": filtering}})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		".gemini/settings.json": string(settings),
		".gitignore":            "git-secret.txt\n",
		".geminiignore":         "gemini-secret.txt\n",
		"ci/ignore":             "custom-secret.txt\n",
		"git-secret.txt":        "ignored by git\n",
		"gemini-secret.txt":     "ignored by gemini\n",
		"custom-secret.txt":     "ignored by the custom file\n",
		"plain.txt":             "plain\n",
	}
}

// globFinds is what the model's glob for "*.txt" found: the file names,
// listed after its first line relative to the workspace root.
func globFinds(t *testing.T, h *headless) []string {
	t.Helper()
	lines := strings.Split(responseOutput(h.responses(1)[0]), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "Found ") {
		t.Fatalf("glob's output: %q", lines)
	}
	return lines[1:]
}

// context.fileFiltering chooses the ignore files glob (and every search)
// obeys: respectGitIgnore false finds a .gitignore'd file,
// respectGeminiIgnore false a .geminiignore'd one, and
// customIgnoreFilePaths ignores what its files name, whichever of the
// others count.
func TestFileFilteringSettingsInGlob(t *testing.T) {
	for _, tc := range []struct {
		name      string
		filtering map[string]any
		want      string
	}{
		{"defaults", map[string]any{}, "custom-secret.txt plain.txt"},
		{"respectGitIgnore false", map[string]any{"respectGitIgnore": false}, "custom-secret.txt git-secret.txt plain.txt"},
		{"respectGeminiIgnore false", map[string]any{"respectGeminiIgnore": false}, "custom-secret.txt gemini-secret.txt plain.txt"},
		{"customIgnoreFilePaths", map[string]any{"respectGitIgnore": false, "respectGeminiIgnore": false, "customIgnoreFilePaths": []string{"ci/ignore"}},
			"gemini-secret.txt git-secret.txt plain.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHeadless(t, filteringFiles(t, tc.filtering), call("glob", map[string]any{"pattern": "*.txt"}), geminitest.TextTurn("found"))
			r := h.run("run", "-p", "find the text files")
			r.wantExit(t, 0)
			if strings.Contains(r.stderr, "fileFiltering") {
				t.Errorf("the settings were reported as not read:\n%s", r.stderr)
			}
			got := globFinds(t, h)
			slices.Sort(got)
			if strings.Join(got, " ") != tc.want {
				t.Errorf("glob found %q, want %q", got, tc.want)
			}
		})
	}
}

// An @path of a .gitignore'd file is read with respectGitIgnore false,
// and skipped, saying so, with a custom ignore file naming it.
func TestFileFilteringSettingsInAtPath(t *testing.T) {
	h := newHeadless(t, filteringFiles(t, map[string]any{"respectGitIgnore": false}), geminitest.TextTurn("read"))
	h.run("run", "-p", "read @git-secret.txt").wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"read @git-secret.txt",
		"\n--- Content from referenced files ---",
		"\nContent from @git-secret.txt:\n", "ignored by git",
		"\n--- End of content ---",
	})

	h = newHeadless(t, filteringFiles(t, map[string]any{"respectGitIgnore": false, "customIgnoreFilePaths": []string{"ci/ignore"}}), geminitest.TextTurn("read"))
	h.run("run", "-p", "read @custom-secret.txt").wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"read @custom-secret.txt",
		"\nSkipped 1 item(s):\n- @custom-secret.txt (Reason: ignored by .gitignore or .geminiignore)",
	})
}

// enableRecursiveFileSearch false: an @path naming no file is not searched
// for: it stays as typed and the model is told it was not attached; by
// default the file it matches is read.
func TestFileFilteringRecursiveSearch(t *testing.T) {
	files := map[string]string{"src/deep/parser.go": "package deep\n"}
	h := newHeadless(t, files, geminitest.TextTurn("read"))
	h.run("run", "-p", "explain @parser.go").wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"explain @src/deep/parser.go",
		"\n--- Content from referenced files ---",
		"\nContent from @parser.go:\n", "package deep",
		"\n--- End of content ---",
	})

	files[".gemini/settings.json"] = `{"context": {"fileFiltering": {"enableRecursiveFileSearch": false}}}`
	h = newHeadless(t, files, geminitest.TextTurn("read"))
	h.run("run", "-p", "explain @parser.go").wantExit(t, 0)
	wantUserParts(t, userParts(t, h.model), []string{
		"explain @parser.go",
		"\nSkipped 1 item(s):\n- @parser.go (Reason: no file or directory in the workspace matches it)",
	})
}
