package packaging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// releaseStep is the run script of the release workflow's step named
// name.
func releaseStep(t *testing.T, name string) (run string, env map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Name == name {
				return s.Run, s.Env
			}
		}
	}
	t.Fatalf("release.yml has no step %q", name)
	return "", nil
}

// A release moves its major version's tag (v1 for 1.4.2) to the release's
// commit, so that `uses: gemini-ls/gemini-ls@v1` follows it: made the
// first time, moved by force after (a fake gh).
func TestReleaseMovesTheActionsMajorTag(t *testing.T) {
	run, env := releaseStep(t, "The action's major tag")
	if env["GH_TOKEN"] != "${{ github.token }}" || env["VERSION"] != "${{ needs.build.outputs.version }}" {
		t.Fatalf("the step's env is %v", env)
	}
	gh := fakeProgram(t, "gh", `case "$1 $2" in "api repos/acme/gemini-ls/git/ref/tags/v1") [ -n "$FAKE_HAS_TAG" ] ;; esac`)
	for _, c := range []struct {
		name, has, want string
	}{
		{"first release of v1", "", "gh api -X POST repos/acme/gemini-ls/git/refs -f ref=refs/tags/v1 -f sha=abc123"},
		{"a later one", "yes", "gh api -X PATCH repos/acme/gemini-ls/git/refs/tags/v1 -f sha=abc123 -F force=true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			r := runActionStep(t, run, map[string]string{
				"VERSION": "1.4.2", "GITHUB_REPOSITORY": "acme/gemini-ls", "GITHUB_SHA": "abc123", "GITHUB_REF_NAME": "v1.4.2",
				"FAKE_LOG": log, "FAKE_HAS_TAG": c.has,
			}, gh+string(os.PathListSeparator)+os.Getenv("PATH"))
			if r.err != nil {
				t.Fatalf("the step failed: %v\n%s", r.err, r.out)
			}
			calls, _ := os.ReadFile(log)
			lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
			if len(lines) != 2 || lines[1] != c.want {
				t.Errorf("gh was called:\n%s\nwant last: %s", calls, c.want)
			}
		})
	}
}
