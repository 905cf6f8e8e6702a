package fetchsource

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// SafeGitEnv is env without any GIT_CONFIG_* variable, plus Gemini CLI's
// getSafeGitEnv: no global or system configuration, and the settings
// that could run a program (credential helper, fsmonitor, hooks, ssh
// command, pager, editors, external diff) emptied.
func SafeGitEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_") {
			out = append(out, kv)
		}
	}
	return append(out,
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CONFIG_SYSTEM="+os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_COUNT=8",
		"GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=",
		"GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=",
		"GIT_CONFIG_KEY_2=core.hooksPath", "GIT_CONFIG_VALUE_2=",
		"GIT_CONFIG_KEY_3=core.sshCommand", "GIT_CONFIG_VALUE_3=",
		"GIT_CONFIG_KEY_4=core.pager", "GIT_CONFIG_VALUE_4=cat",
		"GIT_CONFIG_KEY_5=core.editor", "GIT_CONFIG_VALUE_5=",
		"GIT_CONFIG_KEY_6=sequence.editor", "GIT_CONFIG_VALUE_6=",
		"GIT_CONFIG_KEY_7=diff.external", "GIT_CONFIG_VALUE_7=",
		// Never wait on a terminal for a user name or password.
		"GIT_TERMINAL_PROMPT=0",
	)
}

// WithGitConfig is env with git configuration added through it (key,
// value pairs; GIT_CONFIG_COUNT and its keys), after what env gives:
// a setting for one command that never shows in its argv.
func WithGitConfig(env []string, config ...string) []string {
	if len(config) < 2 {
		return env
	}
	n := 0
	out := make([]string, 0, len(env)+len(config)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
			continue
		}
		out = append(out, kv)
	}
	for i := 0; i+1 < len(config); i += 2 {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, config[i]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, config[i+1]))
		n++
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}

// git runs git with args in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	var stdout bytes.Buffer
	if err := RunGit(ctx, dir, SafeGitEnv(os.Environ()), &stdout, args...); err != nil {
		if errors.Is(err, ErrNoGit) {
			return "", errors.New("git is not installed (it is needed for a git source)")
		}
		return "", err
	}
	return stdout.String(), nil
}

// ErrNoGit is RunGit's error when git is not installed.
var ErrNoGit = errors.New("git is not installed")

// RunGit runs git with args in dir through the door (a helper) with
// the environment env, its output to stdout: every git gemini-ls runs
// on its own. Its error names the command and git's last words, or is
// ErrNoGit, ctx's, or stdout's own.
func RunGit(ctx context.Context, dir string, env []string, stdout io.Writer, args ...string) error {
	cmd := spawn.Command(ctx, spawn.Helper{Name: "git"}, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, spawn.ErrNotFound):
		return ErrNoGit
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if last := lastLine(stderr.String()); last != "" {
		return fmt.Errorf("git %s: %s", args[0], last)
	}
	return fmt.Errorf("git %s: %w", args[0], err)
}

// TokenHeader is the git configuration that gives origin's server token
// (key, then value): http.https://host/.extraheader holding the basic
// authorization GitHub's git server takes (x-access-token:TOKEN), as
// actions/checkout sets it; nil when there is no token or origin is not
// an https URL (a local path, ssh). Given with WithGitConfig, it never
// reaches git's argv or a file.
func TokenHeader(origin, token string) []string {
	u, err := url.Parse(strings.TrimSpace(origin))
	if token == "" || err != nil || u.Scheme != "https" || u.Host == "" {
		return nil
	}
	return []string{"http.https://" + u.Host + "/.extraheader", "AUTHORIZATION: basic " + BasicAuth(token)}
}

// BasicAuth is token as GitHub's git server takes it in a basic
// authorization: base64 of x-access-token:TOKEN.
func BasicAuth(token string) string {
	return base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
}

// lastLine is the last line of s that is not blank.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Clone clones the repository at source into dst, an empty directory, as
// Gemini CLI's cloneFromGit does: a shallow clone, then a fetch of ref
// (HEAD when "") from its remote, checked out detached.
func Clone(ctx context.Context, source, ref, dst string) error {
	if _, err := git(ctx, dst, "clone", "--depth", "1", "--", source, "./"); err != nil {
		return err
	}
	remote, err := git(ctx, dst, "remote")
	if err != nil {
		return err
	}
	name, _, _ := strings.Cut(strings.TrimSpace(remote), "\n")
	if name == "" {
		return fmt.Errorf("unable to find any remotes for repo %s", source)
	}
	if ref == "" {
		ref = "HEAD"
	}
	if _, err := git(ctx, dst, "fetch", "--", name, ref); err != nil {
		return err
	}
	_, err = git(ctx, dst, "checkout", "FETCH_HEAD")
	return err
}

// Head is the commit checked out in the clone dir.
func Head(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// RemoteHead is the commit ref (HEAD when "") names now in the first
// remote of the clone dir, as Gemini CLI's update check asks it with
// git ls-remote. A ref the remote does not have is an error.
func RemoteHead(ctx context.Context, dir, ref string) (string, error) {
	remote, err := git(ctx, dir, "remote")
	if err != nil {
		return "", err
	}
	name, _, _ := strings.Cut(strings.TrimSpace(remote), "\n")
	if name == "" {
		return "", errors.New("no git remotes found")
	}
	url, err := git(ctx, dir, "remote", "get-url", "--", name)
	if err != nil {
		return "", err
	}
	if ref == "" {
		ref = "HEAD"
	}
	out, err := git(ctx, dir, "ls-remote", "--", strings.TrimSpace(url), ref)
	if err != nil {
		return "", err
	}
	hash, _, _ := strings.Cut(strings.TrimSpace(out), "\t")
	if hash == "" {
		return "", fmt.Errorf("git ref %s not found", ref)
	}
	return hash, nil
}
