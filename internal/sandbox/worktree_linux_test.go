package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// agentWorktrees is a repository at main with one commit holding a.txt,
// (in the home) and two worktrees of it as gemini-ls makes them for its agents
// (.gemini/worktrees/<name> on worktree-<name>), and a sandbox whose one
// root is the first: an agent's session.
func agentWorktrees(t *testing.T) (sb *Sandbox, main, own, sibling, home string) {
	t.Helper()
	sandboxtest.NeedBubblewrap(t)
	sandboxtest.NeedGit(t)
	// Under the home, as a user's projects are: the sandbox's /tmp is a
	// tmpfs of its own, where a repository would not even be seen.
	home = t.TempDir()
	main = filepath.Join(home, "project")
	if err := os.Mkdir(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, home, main, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(main, "a.txt"), []byte("main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, home, main, "add", "a.txt")
	git(t, home, main, "commit", "-q", "-m", "first")
	own = filepath.Join(main, ".gemini", "worktrees", "own")
	sibling = filepath.Join(main, ".gemini", "worktrees", "sibling")
	git(t, home, main, "worktree", "add", "-q", "-b", "worktree-own", own)
	git(t, home, main, "worktree", "add", "-q", "-b", "worktree-sibling", sibling)
	sb, err := New(Config{Command: Bubblewrap, Why: "test"}, func() []string { return []string{own} }, home, "")
	if err != nil {
		t.Fatal(err)
	}
	return sb, main, own, sibling, home
}

// An agent's session in a worktree writes its worktree, and git keeps
// working there (status, diff, its index), but it writes nothing of the
// main tree, of a sibling worktree, or of the repository's git
// directory beyond its own worktree's files: not the configuration nor
// the hooks, no branch, not main's HEAD, not another worktree's.
func TestBubblewrapConfinesAWorktreeSession(t *testing.T) {
	sb, main, own, sibling, home := agentWorktrees(t)
	refused := map[string]string{
		"the main tree":                "echo agent > " + filepath.Join(main, "a.txt"),
		"a new file in the main tree":  "echo agent > " + filepath.Join(main, "new.txt"),
		"a sibling worktree":           "echo agent > " + filepath.Join(sibling, "a.txt"),
		"the main .gemini":             "echo agent > " + filepath.Join(main, ".gemini", "settings.json"),
		".git/config":                  "echo '[core]' >> " + filepath.Join(main, ".git", "config"),
		".git/hooks/x":                 "echo 'touch PWNED' > " + filepath.Join(main, ".git", "hooks", "x"),
		"main's HEAD":                  "echo 'ref: refs/heads/worktree-own' > " + filepath.Join(main, ".git", "HEAD"),
		"another branch's ref":         "git update-ref refs/heads/main HEAD",
		"another branch's ref file":    "echo 0000 > " + filepath.Join(main, ".git", "refs", "heads", "worktree-sibling"),
		"a new branch":                 "git branch planted",
		"the sibling's own git files":  "echo 0000 > " + filepath.Join(main, ".git", "worktrees", "sibling", "HEAD"),
		"its worktree's commondir":     "echo /tmp > " + filepath.Join(main, ".git", "worktrees", "own", "commondir"),
		"its worktree's gitdir":        "echo " + filepath.Join(main, ".git") + " > " + filepath.Join(main, ".git", "worktrees", "own", "gitdir"),
		"its worktree's git directory": "mv " + filepath.Join(main, ".git", "worktrees", "own") + " " + filepath.Join(main, ".git", "worktrees", "moved"),
		"an object (git commit)":       "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside",
	}
	for what, script := range refused {
		if out, err := runGit(t, sb, home, own, script); err == nil || !strings.Contains(out, "Read-only file system") {
			t.Errorf("writing %s from the worktree's session: %v (%q), want the sandbox's refusal", what, err, out)
		}
	}
	if out, err := runGit(t, sb, home, own, "set -e; echo agent > a.txt; echo new > new.txt; git status --porcelain; git diff --stat; git rm -q --cached a.txt; git reset -q a.txt; git diff --name-only"); err != nil {
		t.Errorf("work in its own worktree: %v\n%s", err, out)
	} else if !strings.Contains(out, " M a.txt") || !strings.Contains(out, "?? new.txt") || !strings.HasSuffix(out, "(-)\na.txt\n") {
		t.Errorf("git in its own worktree: %q", out)
	}
	for path, want := range map[string]string{
		filepath.Join(main, "a.txt"):    "main\n",
		filepath.Join(sibling, "a.txt"): "main\n",
		filepath.Join(own, "a.txt"):     "agent\n",
	} {
		if data, err := os.ReadFile(path); err != nil || string(data) != want {
			t.Errorf("%s: %q %v, want %q", path, data, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(main, "new.txt")); err == nil {
		t.Error("the main tree got new.txt")
	}
	if branches := git(t, home, main, "branch", "--format=%(refname:short) %(objectname)"); strings.Contains(branches, "planted") || strings.Count(branches, git(t, home, main, "rev-parse", "main")[:40]) != 3 {
		t.Errorf("branches after the session: %q", branches)
	}
	if head, err := os.ReadFile(filepath.Join(main, ".git", "HEAD")); err != nil || string(head) != "ref: refs/heads/main\n" {
		t.Errorf("main's HEAD: %q %v", head, err)
	}
	if _, err := os.Stat(filepath.Join(main, ".git", "hooks", "x")); err == nil {
		t.Error("a hook was planted in the main repository")
	}
	if note := sb.Note(); !strings.Contains(note, own+" is a git worktree") || !strings.Contains(note, "commit") {
		t.Errorf("the model is not told what git cannot do in its worktree: %q", note)
	}
}

// A root's .git file naming another worktree's git directory, which
// does not name the root back, makes nothing writable: the .git file is
// the worktree's own to write, so what it names is checked.
func TestBubblewrapWritesOnlyTheGitDirectoryThatNamesTheRootBack(t *testing.T) {
	_, main, _, sibling, home := agentWorktrees(t)
	root := filepath.Join(home, "elsewhere")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	siblingGitDir := filepath.Join(main, ".git", "worktrees", "sibling")
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+siblingGitDir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Config{Command: Bubblewrap, Why: "test"}, func() []string { return []string{root} }, home, "")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := runGit(t, sb, home, root, "echo 0000 > "+filepath.Join(siblingGitDir, "HEAD")); err == nil {
		t.Errorf("writing the git directory another worktree's .git names: allowed (%q)", out)
	}
	if head := git(t, home, sibling, "branch", "--show-current"); head != "worktree-sibling\n" {
		t.Errorf("the sibling's branch: %q", head)
	}
}

// What a command in a worktree's session makes in its own git directory
// is no reason to look at, let alone set aside, the other worktrees'
// git directories beside it, which the main repository's configuration
// (here an alias running a program) would otherwise have judged.
func TestBubblewrapWorktreeSessionLeavesTheOtherWorktreesAlone(t *testing.T) {
	sb, main, own, sibling, home := agentWorktrees(t)
	git(t, home, main, "config", "alias.hi", "!echo hi")
	if out, err := runGit(t, sb, home, own, "set -e; mkdir \"$(git rev-parse --git-dir)/made\"; git status --porcelain"); err != nil {
		t.Fatalf("%v %q", err, out)
	}
	sb.Close()
	if _, err := os.Stat(filepath.Join(main, ".git", "worktrees", "sibling")); err != nil {
		t.Errorf("the sibling worktree's git directory: %v", err)
	}
	if head := git(t, home, sibling, "branch", "--show-current"); head != "worktree-sibling\n" {
		t.Errorf("the sibling's branch: %q", head)
	}
}
