package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// fakeGitHubEnv points the test build (signInBinary's, with the
// gemini_ls_e2e tag) at a fake GitHub whose run-gemini-cli's latest
// release is v9.9.9 and whose example files each hold their own path.
func fakeGitHubEnv(t *testing.T) []string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/repos/google-github-actions/run-gemini-cli/releases/latest" {
			w.Write([]byte(`{"tag_name":"v9.9.9"}`))
			return
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, "/google-github-actions/run-gemini-cli/refs/tags/v9.9.9/examples/workflows/"); ok {
			w.Write([]byte("# " + rest + "\n"))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return []string{"GEMINI_LS_E2E_GITHUB_API_URL=" + srv.URL, "GEMINI_LS_E2E_GITHUB_RAW_URL=" + srv.URL}
}

// gitHubRepo makes dir a git repository whose origin is on GitHub.
func gitHubRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/acme/widgets.git"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// wantWorkflows checks the files /setup-github wrote in root: one
// workflow and one command, their contents the fake's, and .gitignore.
func wantWorkflows(t *testing.T, root string) {
	t.Helper()
	for rel, want := range map[string]string{
		".github/workflows/gemini-review.yml": "# pr-review/gemini-review.yml\n",
		".github/commands/gemini-triage.toml": "# issue-triage/gemini-triage.toml\n",
		".gitignore":                          ".gemini/\ngha-creds-*.json\n",
	} {
		if data, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(data) != want {
			t.Errorf("%s: %q, %v; want %q", rel, data, err, want)
		}
	}
}

// /setup-github runs headless without a model request: outside a git
// repository with a GitHub remote it says 0.61's words (stderr, exit 42);
// in one, it writes run-gemini-cli's latest workflows and commands and
// .gitignore's lines, and prints 0.61's next steps with the URLs 0.61
// opens. Over LSP it does the same, and gemini/commands lists it.
func TestSetupGitHubHeadlessAndOverLSP(t *testing.T) {
	bin := signInBinary(t)
	h := newHeadless(t, nil)
	env := append(h.env, fakeGitHubEnv(t)...)
	run := func() (code int, stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "run", "-p", "/setup-github")
		cmd.Dir, cmd.Env = h.root, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}

	code, _, stderr := run()
	if want := "gemini-ls: Unable to determine the GitHub repository. /setup-github must be run from a git repository.\n"; code != exitInput || stderr != want {
		t.Errorf("outside a repository: exit %d, stderr %q; want %d, %q", code, stderr, exitInput, want)
	}
	gitHubRepo(t, h.root)
	code, stdout, stderr := run()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Successfully downloaded 6 workflows , 5 commands and updated .gitignore. Follow the steps in https://github.com/google-github-actions/run-gemini-cli/blob/v9.9.9/README.md#quick-start (skipping the /setup-github step) to complete setup.",
		"https://github.com/acme/widgets/settings/secrets/actions",
		"- .github/workflows/gemini-dispatch.yml",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("headless output lacks %q:\n%s", want, stdout)
		}
	}
	wantWorkflows(t, h.root)
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests; /setup-github made some", n)
	}

	root := newRoot(t, nil)
	gitHubRepo(t, root)
	lsp := start(t, setup{profile: lsptest.Plugin(), root: root, env: fakeGitHubEnv(t), bin: bin}, geminitest.TextTurn("Hello."))
	var list commandsResult
	if err := lsp.client.Call(lsp.ctx, "gemini/commands", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, c := range list.Commands {
		listed = listed || c.Name == "setup-github" && c.Source == "built-in"
	}
	if !listed {
		t.Errorf("gemini/commands does not list /setup-github: %+v", list.Commands)
	}
	got := lsp.prompt(map[string]any{"prompt": "/setup-github"})
	if !strings.Contains(got.Text, "Successfully downloaded 6 workflows") || !strings.Contains(got.Text, "Written in "+root+":") {
		t.Errorf("/setup-github over LSP: %+v", got)
	}
	wantWorkflows(t, root)
	if n := len(lsp.model.Requests()); n != 0 {
		t.Errorf("%d model requests over LSP; /setup-github made some", n)
	}
}
