package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// setupSource is files of run-gemini-cli's examples/workflows that
// /setup-github writes into dir, each under its base name.
type setupSource struct {
	dir   string
	paths []string
}

// setupSources are Gemini CLI 0.61's GITHUB_WORKFLOW_PATHS and
// GITHUB_COMMANDS_PATHS.
func setupSources() (workflows, commands setupSource) {
	return setupSource{".github/workflows", []string{
			"gemini-dispatch/gemini-dispatch.yml",
			"gemini-assistant/gemini-invoke.yml",
			"gemini-assistant/gemini-plan-execute.yml",
			"issue-triage/gemini-triage.yml",
			"issue-triage/gemini-scheduled-triage.yml",
			"pr-review/gemini-review.yml",
		}}, setupSource{".github/commands", []string{
			"gemini-assistant/gemini-invoke.toml",
			"gemini-assistant/gemini-plan-execute.toml",
			"issue-triage/gemini-scheduled-triage.toml",
			"issue-triage/gemini-triage.toml",
			"pr-review/gemini-review.toml",
		}}
}

// geminiLSWorkflow is gemini-ls's own workflow, which /setup-github
// writes beside 0.61's as geminiLSWorkflowPath: it runs gemini-ls itself
// on a runner through the action at this repository's top (action.yml)
// of this server's release. packaging/ holds its version to the server's;
// make actionlint lints it, alone and against action.yml's inputs.
//
//go:embed workflows/gemini-ls.yml
var geminiLSWorkflow string

const geminiLSWorkflowPath = ".github/workflows/gemini-ls.yml"

// gitignoreEntries are the lines 0.61 adds to .gitignore.
func gitignoreEntries() []string { return []string{".gemini/", "gha-creds-*.json"} }

const (
	notAGitHubRepository = "Unable to determine the GitHub repository. /setup-github must be run from a git repository."
	// gitHubRequestTimeout is 0.61's, each request's.
	gitHubRequestTimeout = 30 * time.Second
	// maxSetupFileSize bounds a downloaded file: the workflows are a few
	// KB; anything near this is not one.
	maxSetupFileSize = 1 << 20
)

// gitHubEndpoints are where /setup-github reads: GitHub's API and its
// raw files (gitHub() in setupgithub_endpoints*.go).
type gitHubEndpoints struct {
	API, Raw string
}

// setupFile is one file /setup-github writes: where, relative to the
// repository root, and what.
type setupFile struct {
	rel  string
	data []byte
}

// setupGitHub is Gemini CLI 0.61's /setup-github: in the git repository
// the workspace is in (one with a GitHub remote), the workflows and
// commands of run-gemini-cli's latest release written into
// .github/workflows and .github/commands and .gemini/ and
// gha-creds-*.json added to .gitignore, then the next steps; and, beside
// 0.61's, gemini-ls's own workflow (geminiLSWorkflow). The user
// asked for these files by name of the command, so they are written
// directly, as 0.61 writes them and as /export-session writes its file,
// not proposed as an edit; 0.61's shell command that opens the README and
// the repository's secrets page in a browser is, here, their URLs.
func setupGitHub(ctx context.Context, env Env, _ string) (Reply, error) {
	return setUpGitHubAt(ctx, env.Root, gitHub(), http.DefaultClient)
}

// setUpGitHubAt is /setup-github run in dir, asking GitHub at at through
// client: what the tests call with a fake GitHub.
func setUpGitHubAt(ctx context.Context, dir string, at gitHubEndpoints, client *http.Client) (Reply, error) {
	root, err := gitHubRepositoryRoot(ctx, dir)
	if err != nil {
		return Reply{}, err
	}
	tag, err := latestRunGeminiCLIRelease(ctx, client, at.API)
	if err != nil {
		return Reply{}, err
	}
	// Everything is downloaded before anything is written: a failure
	// half-way leaves the repository as it was.
	files, err := downloadSetupFiles(ctx, client, at.Raw, tag)
	if err != nil {
		return Reply{}, err
	}
	files = append(files, setupFile{rel: geminiLSWorkflowPath, data: []byte(geminiLSWorkflow)})
	if err := writeSetupFiles(root, files); err != nil {
		return Reply{}, err
	}
	added, gitignoreErr := updateGitignore(root)
	return Reply{Text: setupGitHubReport(ctx, dir, root, tag, files, added, gitignoreErr)}, nil
}

// gitHubRepositoryRoot is the top of the git repository dir is in, which
// must have a remote on github.com, as 0.61 asks of it.
func gitHubRepositoryRoot(ctx context.Context, dir string) (string, error) {
	remotes, err := git(ctx, dir, "remote", "-v")
	if errors.Is(err, spawn.ErrNotFound) {
		// Not 0.61's sentence, which would send the user looking for a
		// repository they are in: a Windows often has no git.
		return "", errors.New("Unable to determine the GitHub repository: git is not installed, and /setup-github needs it. Install git (https://git-scm.com) and run it again.")
	}
	if err != nil || !strings.Contains(remotes, "github.com") {
		return "", errors.New(notAGitHubRepository)
	}
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil || root == "" {
		return "", errors.New(notAGitHubRepository)
	}
	return root, nil
}

// git is what `git args...` run in dir printed, trimmed.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := spawn.Command(ctx, spawn.Helper{Name: "git"}, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// latestRunGeminiCLIRelease is the tag of run-gemini-cli's latest
// release, asked of GitHub's API as 0.61 asks it.
func latestRunGeminiCLIRelease(ctx context.Context, client *http.Client, api string) (string, error) {
	endpoint := api + "/repos/google-github-actions/run-gemini-cli/releases/latest"
	body, err := get(ctx, client, endpoint, map[string]string{
		"Accept":               "application/vnd.github+json",
		"X-GitHub-Api-Version": "2022-11-28",
	})
	var release struct {
		TagName string `json:"tag_name"`
	}
	if err == nil {
		err = json.Unmarshal(body, &release)
	}
	if err == nil && release.TagName == "" {
		err = errors.New("Response did not include tag_name field")
	}
	if err != nil {
		return "", fmt.Errorf("Unable to determine the latest run-gemini-cli release on GitHub. (%w)", err)
	}
	return release.TagName, nil
}

// downloadSetupFiles downloads the workflows and commands of release tag
// from run-gemini-cli's examples.
func downloadSetupFiles(ctx context.Context, client *http.Client, raw, tag string) ([]setupFile, error) {
	var files []setupFile
	workflows, commands := setupSources()
	for _, set := range []setupSource{workflows, commands} {
		for _, p := range set.paths {
			endpoint := raw + "/google-github-actions/run-gemini-cli/refs/tags/" + url.PathEscape(tag) + "/examples/workflows/" + p
			data, err := get(ctx, client, endpoint, nil)
			if err != nil {
				return nil, fmt.Errorf("downloading %s: %w", endpoint, err)
			}
			files = append(files, setupFile{rel: path.Join(set.dir, path.Base(p)), data: data})
		}
	}
	return files, nil
}

// get is the body GitHub answers a GET of endpoint with, within 0.61's
// time and a size no workflow comes near.
func get(ctx context.Context, client *http.Client, endpoint string, header map[string]string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitHubRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("Invalid response code: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSetupFileSize+1))
	if err == nil && len(body) > maxSetupFileSize {
		err = fmt.Errorf("the answer is larger than %s", size(maxSetupFileSize))
	}
	return body, err
}

// writeSetupFiles writes files under root, making their directories.
// Every place is checked first, and nothing is written when one is
// refused: a directory on the way that is a symbolic link (which could
// lead out of the repository) or not a directory, or a file's place
// taken by anything but a regular file.
func writeSetupFiles(root string, files []setupFile) error {
	for _, f := range files {
		if err := checkSetupPlace(root, f.rel); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := makeDirs(root, path.Dir(f.rel)); err != nil {
			return err
		}
		if err := safefile.Write(filepath.Join(root, filepath.FromSlash(f.rel)), f.data); err != nil {
			return fmt.Errorf("writing %s: %w", f.rel, err)
		}
	}
	return nil
}

// checkSetupPlace refuses rel under root unless each directory on the
// way is a real one or absent, and rel a regular file or absent.
func checkSetupPlace(root, rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := filepath.Join(root, filepath.Join(parts[:i+1]...))
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // nothing below it exists either
		case err != nil:
			return err
		case i < len(parts)-1 && !fi.IsDir(), i == len(parts)-1 && !fi.Mode().IsRegular():
			return fmt.Errorf("%s is %s: nothing was written", p, safefile.DescribeMode(fi.Mode()))
		}
	}
	return nil
}

// makeDirs makes rel's directories under root, one at a time.
func makeDirs(root, rel string) error {
	p := root
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		if err := os.Mkdir(p, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("Unable to create %s directory. Do you have file permissions in the current directory?", p)
		}
	}
	return nil
}

// updateGitignore adds the entries .gitignore lacks (compared as 0.61
// does: a line's text before any '#', spaces trimmed), creating it when absent; added are
// the entries added.
func updateGitignore(root string) (added []string, err error) {
	p := filepath.Join(root, ".gitignore")
	if err := checkSetupPlace(root, ".gitignore"); err != nil {
		return nil, err
	}
	existing, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lines := strings.FieldsFunc(string(existing), func(r rune) bool { return r == '\n' })
	for _, entry := range gitignoreEntries() {
		present := false
		for _, line := range lines {
			text, _, _ := strings.Cut(line, "#")
			present = present || strings.TrimSpace(text) == entry
		}
		if !present {
			added = append(added, entry)
		}
	}
	if len(added) == 0 {
		return nil, nil
	}
	var data bytes.Buffer
	data.Write(existing)
	if len(existing) > 0 {
		data.WriteString("\n")
	}
	data.WriteString(strings.Join(added, "\n") + "\n")
	if err := safefile.Write(p, data.Bytes()); err != nil {
		return nil, fmt.Errorf("writing %s: %w", p, err)
	}
	return added, nil
}

// setupGitHubReport is 0.61's closing message, the URLs it would open,
// and what was written.
func setupGitHubReport(ctx context.Context, dir, root, tag string, files []setupFile, added []string, gitignoreErr error) string {
	readme := "https://github.com/google-github-actions/run-gemini-cli/blob/" + tag + "/README.md#quick-start"
	var b strings.Builder
	gitignore := "updated .gitignore"
	if gitignoreErr != nil {
		gitignore = "could not update .gitignore"
	}
	workflows, commands := setupSources()
	fmt.Fprintf(&b, "Successfully downloaded %d workflows , %d commands and %s. Follow the steps in %s (skipping the /setup-github step) to complete setup.\n\n",
		len(workflows.paths), len(commands.paths), gitignore, readme)
	b.WriteString("Open to complete setup:\n- " + readme + "\n")
	if secrets, err := gitHubSecretsPage(ctx, dir); err == nil {
		b.WriteString("- " + secrets + "\n")
	} else {
		b.WriteString("- your repository's Actions secrets (" + err.Error() + ")\n")
	}
	b.WriteString("\nBeside them, " + geminiLSWorkflowPath + " runs gemini-ls itself on GitHub Actions: " +
		"dispatch it (the Actions tab's Run workflow, with a prompt), label an issue gemini-ls, or comment @gemini-ls on one " +
		"(as someone with write access), and it works on a branch gemini/<task> and opens a draft pull request. " +
		"It needs the repository secret GEMINI_API_KEY.\n")
	b.WriteString("\nWritten in " + root + ":\n")
	for _, f := range files {
		b.WriteString("- " + f.rel + "\n")
	}
	switch {
	case gitignoreErr != nil:
		fmt.Fprintf(&b, "\n.gitignore was not updated: %v\n", gitignoreErr)
	case len(added) > 0:
		b.WriteString("- .gitignore (added " + strings.Join(added, ", ") + ")\n")
	}
	return b.String()
}

// gitHubSecretsPage is the Actions secrets page of the repository
// origin names, as 0.61 reads its owner and name.
func gitHubSecretsPage(ctx context.Context, dir string) (string, error) {
	remote, err := git(ctx, dir, "remote", "get-url", "origin")
	if err != nil {
		return "", err
	}
	bad := fmt.Errorf("Owner & repo could not be extracted from remote URL: %s", remote)
	s := remote
	switch {
	case strings.HasPrefix(s, "git@github.com:"):
		s = "https://github.com/" + strings.TrimPrefix(s, "git@github.com:")
	case strings.HasPrefix(s, "git@"):
		return "", bad
	}
	u, err := url.Parse(s)
	if err != nil || u.Host != "github.com" {
		return "", bad
	}
	parts := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	if len(parts) != 2 {
		return "", bad
	}
	return "https://github.com/" + parts[0] + "/" + strings.TrimSuffix(parts[1], ".git") + "/settings/secrets/actions", nil
}
