// Package gitignoretest asks git itself which paths its ignore rules
// ignore (git check-ignore), for tests that hold a matcher to git's word.
// The git run reads no configuration but the repository's and the
// test's: not the system's, nor the real user's (HOME and
// XDG_CONFIG_HOME are the test's), nor their core.excludesFile.
package gitignoretest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gitTimeout bounds one git run.
const gitTimeout = 20 * time.Second

// Verdict is git's word on one path: the rule that decides it, if any.
type Verdict struct {
	Path    string
	Source  string // the ignore file of the deciding rule; "" when none does
	Line    int    // its line, from 1
	Pattern string // the rule as git shows it ("!" when it re-includes)
}

// Ignored reports whether git ignores the path.
func (v Verdict) Ignored() bool { return v.Source != "" && !strings.HasPrefix(v.Pattern, "!") }

func (v Verdict) String() string {
	if v.Source == "" {
		return fmt.Sprintf("%q: no rule", v.Path)
	}
	return fmt.Sprintf("%q: %s:%d:%q", v.Path, v.Source, v.Line, v.Pattern)
}

// Git is the git program, or t skipped where there is none.
func Git(t testing.TB) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return git
}

// Repo makes dir a git repository with the fewest writes git accepts (a
// HEAD, objects/ and refs/: no git init to run), so that a fuzz input
// costs one git run.
func Repo(t testing.TB, dir string) {
	t.Helper()
	for _, sub := range []string{"objects", "refs", "info"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git", sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckIgnore is git check-ignore's word on each of paths (relative to
// the repository at repo, slash-separated, no NUL byte), one git run for
// all of them; fold runs it with core.ignorecase. The user's
// configuration is an empty directory's.
func CheckIgnore(t testing.TB, git, repo string, fold bool, paths []string) []Verdict {
	t.Helper()
	home := t.TempDir()
	return CheckIgnoreIn(t, git, repo, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home},
		[]string{"-c", "core.ignorecase=" + strconv.FormatBool(fold)}, paths)
}

// CheckIgnoreIn is git check-ignore's word on each of paths, relative to
// dir (a work tree's top or a directory below it, where git runs), with
// the user's environment env (HOME, XDG_CONFIG_HOME: a test's own
// directories, never the real user's) and git's options before the
// command (-c name=value). Git reads no system configuration.
func CheckIgnoreIn(t testing.TB, git, dir string, env, options []string, paths []string) []Verdict {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		// "./" keeps a path starting with ':' from reading as pathspec magic.
		in.WriteString("./" + p + "\x00")
	}
	// Git before 2.41 takes exponential time over some globs ("*a*a*a…"
	// against a long name): a fuzz input it cannot answer in time is
	// skipped, saying so.
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	args := append(slices.Clone(options), "check-ignore", "--no-index", "--verbose", "--non-matching", "-z", "--stdin")
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = dir
	cmd.Stdin = &in
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Skipf("git check-ignore did not answer within %v", gitTimeout)
	}
	// check-ignore's status is 1 when nothing is ignored.
	if exit, ok := err.(*exec.ExitError); err != nil && (!ok || exit.ExitCode() != 1) {
		t.Fatalf("git check-ignore %q: %v\n%s", paths, err, stderr.String())
	}
	return parseVerdicts(t, out, paths)
}

// Worktree makes main a git repository with one empty commit and wt a
// linked worktree of it (git worktree add), git reading the user's
// configuration from the empty directory home: the layout the coming
// worktree sessions make, .git in wt a file naming main's
// .git/worktrees/<name>, whose commondir names main's .git.
func Worktree(t testing.TB, git, main, wt, home string) {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	for _, args := range [][]string{
		{"-c", "init.defaultBranch=main", "init", "-q", main},
		{"-C", main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "empty"},
		{"-C", main, "worktree", "add", "-q", wt},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
}

// LinkedRepo makes main a repository as Repo does and wt a linked
// worktree of it by writing what git worktree add writes (wt/.git
// naming main/.git/worktrees/wt, whose commondir names main/.git),
// without a git run: a fuzz input's layout. Worktree makes the real one.
func LinkedRepo(t testing.TB, main, wt string) {
	t.Helper()
	Repo(t, main)
	gitDir := filepath.Join(main, ".git", "worktrees", filepath.Base(wt))
	for name, content := range map[string]string{
		filepath.Join(gitDir, "HEAD"):      "ref: refs/heads/wt\n",
		filepath.Join(gitDir, "commondir"): "../..\n",
		filepath.Join(gitDir, "gitdir"):    filepath.Join(wt, ".git") + "\n",
		filepath.Join(wt, ".git"):          "gitdir: " + gitDir + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parseVerdicts reads check-ignore -v -n -z's records: source, line,
// pattern and path, each NUL-terminated, one for each path asked.
func parseVerdicts(t testing.TB, out []byte, paths []string) []Verdict {
	t.Helper()
	fields := strings.Split(string(out), "\x00")
	if len(fields) != 4*len(paths)+1 || fields[len(fields)-1] != "" {
		t.Fatalf("git check-ignore answered %d fields for %d paths: %q", len(fields)-1, len(paths), out)
	}
	verdicts := make([]Verdict, len(paths))
	for i, p := range paths {
		f := fields[4*i : 4*i+4]
		if f[3] != "./"+p {
			t.Fatalf("git check-ignore answered for %q where %q was asked", f[3], "./"+p)
		}
		v := Verdict{Path: p, Source: f[0], Pattern: f[2]}
		if v.Source != "" {
			var err error
			if v.Line, err = strconv.Atoi(f[1]); err != nil {
				t.Fatalf("git check-ignore's line %q: %v", f[1], err)
			}
		}
		verdicts[i] = v
	}
	return verdicts
}

// Version is git's version, as [major, minor].
func Version(t testing.TB, git string) [2]int {
	t.Helper()
	out, err := exec.Command(git, "version").Output()
	if err != nil {
		t.Fatalf("git version: %v", err)
	}
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("git version says %q", out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	return [2]int{major, minor}
}

// ForGit is an ignore file's content as git of the given version must
// read it to mean what today's git (2.52 on) reads in content. Git
// before 2.52 cut a rule's literal start off before globbing the rest,
// so a "**" right after it counted as at a path component's start:
// "foo**/bar" matched "foobar" and "foo/x/bar" (fixed by git's commit
// 1940a02dc1, "match_pathname(): give fnmatch one char of prefix
// context"). Such a "**" is an ordinary '*', as git's documentation
// says, and older git is given it written as one.
func ForGit(version [2]int, content string) string {
	if version[0] > 2 || (version[0] == 2 && version[1] >= 52) {
		return content
	}
	lines := strings.Split(content, "\n")
	for i, line := range lines {
		lines[i] = oneStarAfterLiteral(line)
	}
	return strings.Join(lines, "\n")
}

// oneStarAfterLiteral rewrites a rule whose first glob characters are a
// "**" following a literal byte other than '/' with a single '*'.
func oneStarAfterLiteral(line string) string {
	if line == "" || line[0] == '#' {
		return line
	}
	start := 0
	if line[start] == '!' {
		start++
	}
	if start < len(line) && line[start] == '/' {
		start++
	}
	p := start
	for p < len(line) && !strings.ContainsRune(`*?[\`, rune(line[p])) {
		p++
	}
	if p == start || line[p-1] == '/' || !strings.HasPrefix(line[p:], "**") {
		return line
	}
	end := p
	for end < len(line) && line[end] == '*' {
		end++
	}
	return line[:p] + "*" + line[end:]
}
