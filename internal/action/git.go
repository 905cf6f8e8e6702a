package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
)

// Bot is the identity of a commit where git has none configured: the
// one GitHub gives github-actions[bot], as Actions' own commits use.
const (
	botName  = "github-actions[bot]"
	botEmail = "41898282+github-actions[bot]@users.noreply.github.com"
)

// repo is the workspace's git repository.
type repo struct {
	dir string
	// auth is the environment that gives git the token for origin
	// (authEnv), for fetch and push alone; nil when origin needs none.
	auth []string
}

// git runs git with args in the repository through the door and
// returns its standard output; its error names the command and git's
// last words. Its environment is the process's, made safe
// (fetchsource.SafeGitEnv), without the secrets.
func (r repo) git(ctx context.Context, args ...string) (string, error) {
	return r.run(ctx, nil, args)
}

// remote is git for a command that talks to origin (fetch, push): with
// the token, when origin needs it, in its environment alone.
func (r repo) remote(ctx context.Context, args ...string) (string, error) {
	return r.run(ctx, r.auth, args)
}

func (r repo) run(ctx context.Context, auth []string, args []string) (string, error) {
	var stdout bytes.Buffer
	env := fetchsource.WithGitConfig(fetchsource.SafeGitEnv(withoutSecrets(os.Environ())), auth...)
	if err := fetchsource.RunGit(ctx, r.dir, env, &stdout, args...); err != nil {
		return "", err
	}
	return stdout.String(), nil
}

// line is git's output trimmed.
func (r repo) line(ctx context.Context, args ...string) (string, error) {
	out, err := r.git(ctx, args...)
	return strings.TrimSpace(out), err
}

func withoutSecrets(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(secretVars, name)
	})
}

// identity is git's options naming github-actions[bot] as a commit's
// author where git has no identity configured.
func (r repo) identity(ctx context.Context) []string {
	var opts []string
	if name, _ := r.line(ctx, "config", "user.name"); name == "" {
		opts = append(opts, "-c", "user.name="+botName)
	}
	if email, _ := r.line(ctx, "config", "user.email"); email == "" {
		opts = append(opts, "-c", "user.email="+botEmail)
	}
	return opts
}

// fetchBranch fetches origin's branch into refs/remotes/origin/branch
// and reports whether origin has it.
func (r repo) fetchBranch(ctx context.Context, branch string) bool {
	_, err := r.remote(ctx, "fetch", "--no-tags", "--quiet", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch)
	return err == nil
}

// Change is a file the commit changes: git's status letter and path.
type Change struct{ Status, Path string }

// staged are the changes in the index against HEAD.
func (r repo) staged(ctx context.Context) ([]Change, error) {
	out, err := r.git(ctx, "diff", "--cached", "--name-status", "--no-renames", "-z")
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var changes []Change
	for i := 0; i+1 < len(f); i += 2 {
		changes = append(changes, Change{Status: f[i], Path: f[i+1]})
	}
	return changes, nil
}

// workflows are the protected directory's pathspec: .github/workflows
// in any case (a case-insensitive checkout writes .GitHub/Workflows
// there too).
const (
	workflows    = ":(icase).github/workflows"
	notWorkflows = ":(exclude,icase).github/workflows"
)

// unstagedIn are the paths git sees changed (untracked ones too) under
// pathspec, left out of the index.
func (r repo) changedIn(ctx context.Context, pathspec string) ([]string, error) {
	out, err := r.git(ctx, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", pathspec)
	if err != nil {
		return nil, err
	}
	var paths []string
	for e := range strings.SplitSeq(out, "\x00") {
		if len(e) > 3 {
			paths = append(paths, e[3:])
		}
	}
	return paths, nil
}

// authEnv is what gives git token for origin, as actions/checkout does
// but never on disk (the workflow checks out with persist-credentials:
// false): git's http.<server>.extraheader set to the token's basic
// authorization, through GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n in its
// environment, never in its arguments or a file. Nothing when there is
// no token, when origin is not an https URL (a local path, ssh), or when
// the checkout's own config already gives origin's server a header (a
// checkout that kept its credentials: two would be refused).
func (r repo) authEnv(ctx context.Context, token string) ([]string, error) {
	if token == "" {
		return nil, nil
	}
	origin, err := r.line(ctx, "remote", "get-url", "origin")
	if err != nil {
		return nil, fmt.Errorf("reading origin's URL: %w", err)
	}
	header := fetchsource.TokenHeader(origin, token)
	if header == nil {
		return nil, nil
	}
	if kept, _ := r.line(ctx, "config", "--local", "--get-all", header[0]); kept != "" {
		return nil, nil
	}
	return header, nil
}
