package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// maxGitignore bounds the project's .gitignore, copied into the shadow
// repository.
const maxGitignore = 1 << 20

// The shadow repository's author, and its .gitconfig, as Gemini CLI's.
const (
	authorName  = "Gemini CLI"
	authorEmail = "gemini-cli@google.com"
	gitConfig   = "[user]\n  name = " + authorName + "\n  email = " + authorEmail + "\n[commit]\n  gpgsign = false\n"
)

// shadowRepo is the shadow git repository of the project at root, in dir
// (its history directory: the repository is dir/.git).
type shadowRepo struct {
	dir  string
	root string
	door *spawn.Door
}

// env is the environment git runs in: the process's without any GIT_*
// variable, with the repository's own configuration and identity.
func (r shadowRepo) env(workTree bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_CONFIG_GLOBAL="+filepath.Join(r.dir, ".gitconfig"),
		"GIT_CONFIG_SYSTEM="+filepath.Join(r.dir, ".gitconfig_system_empty"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+authorName, "GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName, "GIT_COMMITTER_EMAIL="+authorEmail,
		"GIT_TERMINAL_PROMPT=0",
	)
	if workTree {
		env = append(env, "GIT_DIR="+filepath.Join(r.dir, ".git"), "GIT_WORK_TREE="+r.root)
	}
	return env
}

// git runs git with args on the shadow repository, the workspace its
// work tree, and returns its standard output.
func (r shadowRepo) git(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, true, r.root, nil, args...)
}

// gitIn is git with stdin as its standard input.
func (r shadowRepo) gitIn(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.run(ctx, true, r.root, stdin, args...)
}

func (r shadowRepo) run(ctx context.Context, workTree bool, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := r.door.Command(ctx, spawn.Helper{Name: "git"}, "git", args...)
	cmd.Dir = dir
	cmd.Env = r.env(workTree)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, spawn.ErrNotFound) {
			return nil, fmt.Errorf("%w (%v)", ErrNoGit, err)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// ensure creates the repository as Gemini CLI does when it has none: its
// .gitconfig, an empty system config, a main branch with an empty
// initial commit; and copies the project's .gitignore beside it, as
// Gemini CLI does each time.
func (r shadowRepo) ensure(ctx context.Context) error {
	if inside(r.root, r.dir) {
		return fmt.Errorf("the shadow repository %s would be inside the workspace %s", r.dir, r.root)
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("creating the shadow repository: %w", err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, ".gitconfig"), []byte(gitConfig), 0o600); err != nil {
		return fmt.Errorf("creating the shadow repository: %w", err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, ".gitconfig_system_empty"), nil, 0o600); err != nil {
		return fmt.Errorf("creating the shadow repository: %w", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "HEAD")); errors.Is(err, fs.ErrNotExist) {
		if _, err := r.run(ctx, false, r.dir, nil, "init", "--quiet", "--initial-branch", "main"); err != nil {
			return fmt.Errorf("creating the shadow repository: %w", err)
		}
		if _, err := r.run(ctx, false, r.dir, nil, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "Initial commit"); err != nil {
			return fmt.Errorf("creating the shadow repository: %w", err)
		}
	}
	gitignore := filepath.Join(r.root, ".gitignore")
	ignore, err := safefile.Read(gitignore, maxGitignore)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading the project's .gitignore, %s: %w", gitignore, err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, ".gitignore"), ignore, 0o600); err != nil {
		return fmt.Errorf("copying the project's .gitignore: %w", err)
	}
	return nil
}

// snapshot commits the workspace as the user sees it (see stage) and
// returns the commit's hash; HEAD's when nothing changed since the last
// snapshot.
func (r shadowRepo) snapshot(ctx context.Context, message string, buffers []buffer) (string, error) {
	if err := r.stage(ctx, buffers); err != nil {
		return "", err
	}
	// The index, not the work tree, is what a commit holds: an unsaved
	// buffer differs from disk without being a change to commit.
	tree, err := r.git(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	headTree, err := r.git(ctx, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return "", err
	}
	if !bytes.Equal(bytes.TrimSpace(tree), bytes.TrimSpace(headTree)) {
		if _, err := r.git(ctx, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
			return "", err
		}
	}
	head, err := r.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(head)), nil
}

// buffer is an editor's unsaved text of a file of the workspace: its
// path from the root (slashed) and the bytes it would save.
type buffer struct {
	path    string
	content []byte
}

// stage puts the workspace as the user sees it in the shadow index,
// built afresh from what is read beneath the root (see snapshotEntries)
// with each buffer's text in place of its file's, so neither the
// user's files nor their .git are touched. A buffer is staged only in
// place of a regular file the snapshot holds (so not of an ignored
// file, one in a nested repository, or one only the editor has),
// keeping its mode.
func (r shadowRepo) stage(ctx context.Context, buffers []buffer) error {
	entries, err := r.snapshotEntries(ctx, buffers)
	if err != nil {
		return err
	}
	var info bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.hash, e.path)
	}
	if _, err := r.git(ctx, "read-tree", "--empty"); err != nil {
		return err
	}
	if info.Len() == 0 {
		return nil
	}
	_, err = r.gitIn(ctx, info.Bytes(), "update-index", "-z", "--index-info")
	return err
}

// differences are the files (slash paths from the root) that differ
// between commit and the workspace now, each with whether commit has it.
// The workspace as the user sees it now (with buffers) is staged in the
// shadow index to compare it, as a snapshot stages it; ignored files are
// left out, as Gemini CLI's restore leaves them.
func (r shadowRepo) differences(ctx context.Context, commit string, buffers []buffer) ([]difference, error) {
	if _, err := r.git(ctx, "rev-parse", "--verify", "--quiet", commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("the snapshot %s is not in the shadow repository: %w", commit, err)
	}
	if err := r.stage(ctx, buffers); err != nil {
		return nil, err
	}
	out, err := r.git(ctx, "diff", "--cached", "--raw", "--no-renames", "-z", commit)
	if err != nil {
		return nil, err
	}
	return parseRaw(string(out))
}

// parseRaw reads git diff --raw -z: for each file, ":<old mode> <new
// mode> <old hash> <new hash> <status>" and the path, NUL-separated.
func parseRaw(out string) ([]difference, error) {
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var diffs []difference
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 {
			return nil, fmt.Errorf("unexpected git diff output %q", fields[i])
		}
		d := difference{path: fields[i+1], inSnapshot: meta[4] != "A", executable: meta[0] == "100755"}
		// A symbolic link or a submodule is not a file's bytes to land.
		for _, mode := range meta[:2] {
			switch mode {
			case "120000":
				d.notAFile = "it is a symbolic link in the snapshot or now; restore it yourself"
			case "160000":
				d.notAFile = "it is a nested git repository; restore it yourself"
			}
		}
		diffs = append(diffs, d)
	}
	return diffs, nil
}

type difference struct {
	path       string
	inSnapshot bool
	// executable: the snapshot has it as an executable file.
	executable bool
	// notAFile says why the difference cannot be restored as a file.
	notAFile string
}

// content is path's bytes in commit.
func (r shadowRepo) content(ctx context.Context, commit, path string) ([]byte, error) {
	return r.git(ctx, "cat-file", "blob", commit+":"+path)
}

// inside reports whether path is root or under it.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
