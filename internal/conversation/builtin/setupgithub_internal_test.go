package builtin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// fakeGitHub stands in for api.github.com and raw.githubusercontent.com:
// run-gemini-cli's latest release is tag, each example file's content
// names its path; fail, when set, answers that path with 500.
type fakeGitHub struct {
	tag      string
	fail     string
	requests atomic.Int32
}

func (f *fakeGitHub) start(t *testing.T) gitHubEndpoints {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if r.URL.Path == f.fail {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		if r.URL.Path == "/repos/google-github-actions/run-gemini-cli/releases/latest" {
			if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" {
				http.Error(w, "bad headers", http.StatusBadRequest)
				return
			}
			w.Write([]byte(`{"tag_name":"` + f.tag + `"}`))
			return
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, "/google-github-actions/run-gemini-cli/refs/tags/"+f.tag+"/examples/workflows/"); ok {
			w.Write([]byte("# " + rest + "\n"))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return gitHubEndpoints{API: srv.URL, Raw: srv.URL}
}

// gitRepo is a new git repository whose origin is remote ("" for none).
func gitRepo(t *testing.T, remote string) string {
	t.Helper()
	platformtest.Tool(t, "git")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q")
	if remote != "" {
		runGit(t, dir, "remote", "add", "origin", remote)
	}
	return dir
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

var wantSetupFiles = map[string]string{
	".github/workflows/gemini-dispatch.yml":         "# gemini-dispatch/gemini-dispatch.yml\n",
	".github/workflows/gemini-invoke.yml":           "# gemini-assistant/gemini-invoke.yml\n",
	".github/workflows/gemini-plan-execute.yml":     "# gemini-assistant/gemini-plan-execute.yml\n",
	".github/workflows/gemini-triage.yml":           "# issue-triage/gemini-triage.yml\n",
	".github/workflows/gemini-scheduled-triage.yml": "# issue-triage/gemini-scheduled-triage.yml\n",
	".github/workflows/gemini-review.yml":           "# pr-review/gemini-review.yml\n",
	".github/commands/gemini-invoke.toml":           "# gemini-assistant/gemini-invoke.toml\n",
	".github/commands/gemini-plan-execute.toml":     "# gemini-assistant/gemini-plan-execute.toml\n",
	".github/commands/gemini-scheduled-triage.toml": "# issue-triage/gemini-scheduled-triage.toml\n",
	".github/commands/gemini-triage.toml":           "# issue-triage/gemini-triage.toml\n",
	".github/commands/gemini-review.toml":           "# pr-review/gemini-review.toml\n",
	".github/workflows/gemini-ls.yml":               geminiLSWorkflow,
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Run from a folder inside the repository, /setup-github writes 0.61's
// eleven files of the latest release at the repository's top and
// gemini-ls's own workflow beside them, creates
// .gitignore with 0.61's two lines, and says 0.61's next steps with the
// URLs it would open: the release's README and origin's secrets page,
// and what gemini-ls's workflow does and needs.
func TestSetupGitHubWritesTheLatestReleasesFiles(t *testing.T) {
	fake := &fakeGitHub{tag: "v0.1.21"}
	at := fake.start(t)
	root := gitRepo(t, "git@github.com:acme/widgets.git")
	sub := filepath.Join(root, "src")
	if err := os.Mkdir(sub, 0o777); err != nil {
		t.Fatal(err)
	}
	reply, err := setUpGitHubAt(context.Background(), sub, at, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range wantSetupFiles {
		if got := readFile(t, filepath.Join(root, rel)); got != want {
			t.Errorf("%s holds %q, want %q", rel, got, want)
		}
		if !strings.Contains(reply.Text, "- "+rel+"\n") {
			t.Errorf("the reply does not name %s:\n%s", rel, reply.Text)
		}
	}
	if got := readFile(t, filepath.Join(root, ".gitignore")); got != ".gemini/\ngha-creds-*.json\n" {
		t.Errorf(".gitignore is %q", got)
	}
	for _, want := range []string{
		"Successfully downloaded 6 workflows , 5 commands and updated .gitignore. Follow the steps in https://github.com/google-github-actions/run-gemini-cli/blob/v0.1.21/README.md#quick-start (skipping the /setup-github step) to complete setup.",
		"- https://github.com/acme/widgets/settings/secrets/actions\n",
		"Written in " + root + ":",
		"- .gitignore (added .gemini/, gha-creds-*.json)",
		"Beside them, .github/workflows/gemini-ls.yml runs gemini-ls itself on GitHub Actions",
		"It needs the repository secret GEMINI_API_KEY.",
	} {
		if !strings.Contains(reply.Text, want) {
			t.Errorf("the reply lacks %q:\n%s", want, reply.Text)
		}
	}
}

// A .gitignore that has one of the lines (a comment after it) gets only
// the other, after what it holds; run again, nothing more.
func TestSetupGitHubAddsOnlyTheMissingGitignoreLines(t *testing.T) {
	at := (&fakeGitHub{tag: "v1"}).start(t)
	root := gitRepo(t, "https://github.com/acme/widgets")
	gitignore := filepath.Join(root, ".gitignore")
	if err := os.WriteFile(gitignore, []byte("node_modules\n .gemini/  # ours\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := setUpGitHubAt(context.Background(), root, at, http.DefaultClient); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, gitignore); got != "node_modules\n .gemini/  # ours\n\ngha-creds-*.json\n" {
		t.Errorf(".gitignore is %q", got)
	}
}

// Outside a git repository, or in one without a GitHub remote, 0.61's
// words, and GitHub is not asked.
func TestSetupGitHubNeedsAGitHubRepository(t *testing.T) {
	fake := &fakeGitHub{tag: "v1"}
	at := fake.start(t)
	plain, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{
		"no repository":    plain,
		"no GitHub remote": gitRepo(t, "https://gitlab.com/acme/widgets.git"),
		"no remote at all": gitRepo(t, ""),
	} {
		_, err := setUpGitHubAt(context.Background(), dir, at, http.DefaultClient)
		if err == nil || err.Error() != notAGitHubRepository {
			t.Errorf("%s: %v, want %q", name, err, notAGitHubRepository)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".github")); err == nil {
			t.Errorf("%s: .github was made", name)
		}
	}
	if n := fake.requests.Load(); n != 0 {
		t.Errorf("GitHub was asked %d times", n)
	}
}

// Without git, /setup-github says git is what is missing, not a
// repository: a Windows often has no git.
func TestSetupGitHubSaysGitIsMissing(t *testing.T) {
	fake := &fakeGitHub{tag: "v1"}
	at := fake.start(t)
	t.Setenv("PATH", t.TempDir())
	_, err := setUpGitHubAt(context.Background(), t.TempDir(), at, http.DefaultClient)
	if err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("without git: %v, want it to say git is not installed", err)
	}
	if n := fake.requests.Load(); n != 0 {
		t.Errorf("GitHub was asked %d times", n)
	}
}

// When GitHub fails, for the release or one file, the error says so in
// 0.61's words and nothing at all is written.
func TestSetupGitHubWritesNothingWhenGitHubFails(t *testing.T) {
	for fail, want := range map[string]string{
		"/repos/google-github-actions/run-gemini-cli/releases/latest":                                        "Unable to determine the latest run-gemini-cli release on GitHub.",
		"/google-github-actions/run-gemini-cli/refs/tags/v1/examples/workflows/pr-review/gemini-review.toml": "/examples/workflows/pr-review/gemini-review.toml: Invalid response code: 500 Internal Server Error",
	} {
		at := (&fakeGitHub{tag: "v1", fail: fail}).start(t)
		root := gitRepo(t, "https://github.com/acme/widgets.git")
		_, err := setUpGitHubAt(context.Background(), root, at, http.DefaultClient)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s failing: %v, want %q", fail, err, want)
		}
		for _, name := range []string{".github", ".gitignore"} {
			if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
				t.Errorf("%s failing: %s was written", fail, name)
			}
		}
	}
	root := gitRepo(t, "https://github.com/acme/widgets.git")
	for name, at := range map[string]gitHubEndpoints{
		"GitHub unreachable": {API: "http://127.0.0.1:1", Raw: "http://127.0.0.1:1"},
		"no tag_name":        (&fakeGitHub{}).start(t),
	} {
		_, err := setUpGitHubAt(context.Background(), root, at, http.DefaultClient)
		if err == nil || !strings.HasPrefix(err.Error(), "Unable to determine the latest run-gemini-cli release on GitHub.") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".github")); err == nil {
		t.Error(".github was made")
	}
}

// A symbolic link on the way (.github/workflows leading out of the
// repository, .gitignore leading anywhere) or a directory where a file
// goes is refused, and nothing is written there or anywhere.
func TestSetupGitHubRefusesLinksAndDirectories(t *testing.T) {
	at := (&fakeGitHub{tag: "v1"}).start(t)
	outside := t.TempDir()

	root := gitRepo(t, "https://github.com/acme/widgets.git")
	if err := os.Mkdir(filepath.Join(root, ".github"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".github", "workflows")); err != nil {
		t.Fatal(err)
	}
	_, err := setUpGitHubAt(context.Background(), root, at, http.DefaultClient)
	if err == nil || !strings.Contains(err.Error(), "workflows is a symbolic link: nothing was written") {
		t.Errorf("workflows a link out: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the repository: %v", entries)
	}
	if _, err := os.Lstat(filepath.Join(root, ".github", "commands")); err == nil {
		t.Error(".github/commands was made after a refusal")
	}

	root = gitRepo(t, "https://github.com/acme/widgets.git")
	if err := os.MkdirAll(filepath.Join(root, ".github", "commands", "gemini-review.toml"), 0o777); err != nil {
		t.Fatal(err)
	}
	_, err = setUpGitHubAt(context.Background(), root, at, http.DefaultClient)
	if err == nil || !strings.Contains(err.Error(), "gemini-review.toml is a directory: nothing was written") {
		t.Errorf("a directory in a file's place: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".github", "workflows")); err == nil {
		t.Error(".github/workflows was made after a refusal")
	}

	root = gitRepo(t, "https://github.com/acme/widgets.git")
	target := filepath.Join(outside, "ignored")
	if err := os.Symlink(target, filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	reply, err := setUpGitHubAt(context.Background(), root, at, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error(".gitignore's link was followed")
	}
	if !strings.Contains(reply.Text, "and could not update .gitignore.") || !strings.Contains(reply.Text, ".gitignore was not updated: "+filepath.Join(root, ".gitignore")+" is a symbolic link") {
		t.Errorf("the reply does not say .gitignore was refused:\n%s", reply.Text)
	}
}
