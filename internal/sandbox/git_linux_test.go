package sandbox

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// gitEnv is an environment in which git reads home's configuration
// alone and commits without asking who the user is.
func gitEnv(home string) []string {
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// git runs git outside the sandbox, in dir.
func git(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sandboxOverARepository is a sandbox of cfg over a root holding a
// repository with one commit and whatever setUp (when not nil) makes
// there, all there before the sandbox first looks: the user's.
func sandboxOverARepository(t *testing.T, cfg Config, setUp func(root, home string)) (sb *Sandbox, root, home string) {
	t.Helper()
	sb, root, home = sandboxFor(t, cfg)
	git(t, home, root, "init", "-q", "-b", "main")
	git(t, home, root, "commit", "-q", "--allow-empty", "-m", "first")
	if setUp != nil {
		setUp(root, home)
	}
	return sb, root, home
}

// runGit runs bash -c script in the sandbox, in root, with gitEnv.
func runGit(t *testing.T, sb *Sandbox, home, root, script string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "bash", "-c", script)
	cmd.Dir, cmd.Env = root, gitEnv(home)
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Nothing a sandboxed command writes makes the user's git, run outside
// later, run a program: not a commondir pointing at a configuration it
// wrote, .git/config or `git config core.fsmonitor`, a new hook, a
// config.worktree or info/attributes, a linked worktree's or a
// submodule's files, a file the configuration includes, nor the hooks
// directory it names. Each leaves `git status` outside without the
// marker; a sandboxed `git add` and `git commit` still work.
func TestBubblewrapGitRunsNothingPlanted(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	marker := filepath.Join(t.TempDir(), "marker")
	git(t, home, root, "init", "-q", "-b", "main")
	// Included, and a hooks directory, in the work tree: the sandbox
	// keeps them read-only too.
	git(t, home, root, "config", "include.path", "../shared.gitconfig")
	git(t, home, root, "config", "core.hooksPath", "githooks")
	if err := os.WriteFile(filepath.Join(root, "shared.gitconfig"), []byte("[user]\n\tname = t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, home, root, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, home, root, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"))
	if err := os.MkdirAll(filepath.Join(root, ".git", "modules", "lib", "a", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{".git/modules/lib/a/HEAD": "ref: refs/heads/main\n", ".git/modules/lib/a/config": "[core]\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What a planted commondir or include would point git at.
	evil := "[core]\n\tfsmonitor = touch " + marker + "\n"
	if err := os.MkdirAll(filepath.Join(root, "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "evil", "config"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	plants := []string{
		"printf '../evil\\n' > .git/commondir",
		"cat evil/config >> .git/config",
		"git config core.fsmonitor 'touch " + marker + "'",
		"mkdir -p .git/hooks && printf '" + hook + "' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change",
		"printf '" + hook + "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
		"git config extensions.worktreeConfig true; cat evil/config > .git/config.worktree",
		"printf '* diff=evil\\n' > .git/info/attributes",
		"cat evil/config >> shared.gitconfig",
		"mkdir -p githooks && printf '" + hook + "' > githooks/pre-commit && chmod +x githooks/pre-commit",
		"printf '../../../evil\\n' > .git/worktrees/wt/commondir",
		"cat evil/config > .git/worktrees/wt/config.worktree",
		"cat evil/config >> .git/modules/lib/a/config",
		"printf '" + hook + "' > .git/modules/lib/a/hooks/pre-commit",
		"mv .git .git.old && mkdir .git && cp -r .git.old/. .git/ && cat evil/config >> .git/config",
		// The directories that hold the kept files, renamed with their
		// mounts and made again.
		"mv .git/info .git/info.old && mkdir .git/info && printf '* diff=evil\\n' > .git/info/attributes",
		"mv .git/worktrees/wt .git/worktrees/wt.old && mkdir .git/worktrees/wt && printf '../../../evil\\n' > .git/worktrees/wt/commondir",
		"mv .git/worktrees .git/worktrees.old && mkdir -p .git/worktrees/wt && printf '../../../evil\\n' > .git/worktrees/wt/commondir",
		"mv .git/modules/lib .git/modules/lib.old && mkdir -p .git/modules/lib/a && cat evil/config > .git/modules/lib/a/config",
		"mv .git/modules .git/modules.old && mkdir -p .git/modules/lib/a && cat evil/config > .git/modules/lib/a/config",
	}
	for _, script := range plants {
		if out, err := runGit(t, sb, home, root, script); err == nil {
			t.Errorf("%s: allowed (%q)", script, out)
		}
	}
	git(t, home, root, "status")
	if err := os.WriteFile(filepath.Join(root, "f"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, home, root, "add", "f")
	git(t, home, root, "commit", "-q", "-m", "outside")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git outside the sandbox ran what the sandboxed command planted")
	}

	if out, err := runGit(t, sb, home, root, "echo g > g && git add g && git -c user.name=t -c user.email=t@example.com commit -q -m inside && git checkout -q -b other && git checkout -q main && git log --format=%s -1"); err != nil || out != "inside\n" {
		t.Errorf("a sandboxed git commit: %v %q", err, out)
	}
	if log := git(t, home, root, "log", "--format=%s"); log != "inside\noutside\nfirst\n" {
		t.Errorf("git log outside: %q", log)
	}
}

// A linked worktree's git directory renamed aside, with the read-only
// mounts inside it, and made again with a commondir naming a planted
// configuration: refused, so git in the worktree runs nothing planted.
func TestBubblewrapGitRenamedWorktreeDirRunsNothing(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	marker := filepath.Join(root, "PWNED")
	git(t, home, root, "init", "-q", "-b", "main")
	git(t, home, root, "commit", "-q", "--allow-empty", "-m", "first")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, home, root, "worktree", "add", "-q", wt)
	out, err := runGit(t, sb, home, root, `set -e; cd .git/worktrees; mv wt wt.old; mkdir wt; cp -r wt.old/. wt/ 2>/dev/null || true
cd wt; rm -f commondir config.worktree; echo ../../../evil > commondir
mkdir -p ../../../evil; cp -r ../../../.git/. ../../../evil/ 2>/dev/null || true
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch `+marker+` #\n' > ../../../evil/config; echo renamed`)
	if err == nil {
		t.Errorf("renaming the worktree's git directory: allowed (%q)", out)
	}
	cmd := exec.Command("git", "status")
	cmd.Dir, cmd.Env = wt, gitEnv(home)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git status in the worktree: %v\n%s", err, o)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git status in the linked worktree ran what the sandboxed command planted")
	}
}

// The commondir the sandbox makes where there is none, naming the git
// directory itself, leaves git outside as it was.
func TestBubblewrapGitPlaceholderCommondirChangesNothing(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	git(t, home, root, "init", "-q", "-b", "main")
	git(t, home, root, "commit", "-q", "--allow-empty", "-m", "first")
	if out, err := runGit(t, sb, home, root, "true"); err != nil {
		t.Fatalf("%v %q", err, out)
	}
	if data, err := os.ReadFile(filepath.Join(root, ".git", "commondir")); err != nil || string(data) != ".\n" {
		t.Fatalf("commondir: %v %q", err, data)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, home, root, "worktree", "add", "-q", wt)
	if list := git(t, home, root, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+root+"\n") || !strings.Contains(list, "worktree "+wt+"\n") {
		t.Errorf("git worktree list: %q", list)
	}
	git(t, home, wt, "commit", "-q", "--allow-empty", "-m", "in the worktree")
	git(t, home, root, "gc", "-q")
	if log := git(t, home, root, "log", "--all", "--format=%s"); !strings.Contains(log, "in the worktree") {
		t.Errorf("git log --all: %q", log)
	}
}

// tree is what lies under dir: each path's mode and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var sum [32]byte
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = sha256.Sum256(data)
		}
		out[p] = fmt.Sprintf("%v %x", info.Mode(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A workspace whose .git links to a git directory outside the writable
// paths: the sandbox sets up nothing through the link (the target is
// byte for byte as it was), the command still runs, and the note tells
// the model that git cannot write there.
func TestBubblewrapFollowsNoGitLinkOutOfTheRoots(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	outside := filepath.Join(t.TempDir(), "repo")
	git(t, home, filepath.Dir(outside), "init", "-q", "-b", "main", outside)
	if err := os.RemoveAll(filepath.Join(outside, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, ".git")
	if err := os.Symlink(target, filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, target)
	out, err := runGit(t, sb, home, root, "echo ran > ran.txt && cat ran.txt")
	if err != nil || out != "ran\n" {
		t.Errorf("the command did not run: %v %q", err, out)
	}
	if _, err := runGit(t, sb, home, root, "git config core.fsmonitor x"); err == nil {
		t.Error("git config through the link: allowed")
	}
	if after := tree(t, target); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the link's target changed:\nbefore %v\nafter  %v", before, after)
	}
	if note := sb.Note(); !strings.Contains(note, filepath.Join(root, ".git")+" links outside the workspace") {
		t.Errorf("the note does not say .git links outside: %q", note)
	}
}

// Commands the model runs at once are set up at once: the paths made
// empty for the first are not an error for the others.
func TestWrapSetsUpCommandsInParallel(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	sb := &Sandbox{cfg: Config{Command: Podman, Image: DefaultImage}, roots: func() []string { return []string{root} }, home: home, tool: "/usr/bin/podman"}
	errs := make(chan error, 16)
	for range cap(errs) {
		go func() { errs <- sb.Wrap(exec.Command("true")) }()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A command makes a git directory the sandbox did not know of (a
// repository in a subdirectory, or a submodule's under .git/modules)
// whose core.fsmonitor runs a command, and records it in the root's
// index (git add sub), so that git status outside, in the root, would
// enter it. It is set aside when the command ends (TakeBack, which the
// shell tool calls), the model and the user told; git status outside
// then runs nothing. A repository made clean, and one the user had,
// stay where they are.
func TestBubblewrapGitDirsACommandMadeThatRunAProgramAreSetAside(t *testing.T) {
	sandboxtest.NeedGit(t)
	for name, plant := range map[string]string{
		"embedded": `git init -q sub && S && git -C sub config core.fsmonitor "touch $M #"`,
		"modules":  `mkdir -p .git/modules && git init -q --separate-git-dir .git/modules/sub sub && S && git -C sub config core.fsmonitor "touch $M #"`,
		"hook":     `git init -q sub && S && printf '#!/bin/sh\ntouch %s\n' "$M" > sub/.git/hooks/post-index-change && chmod +x sub/.git/hooks/post-index-change`,
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex // Warn is called by the watch's own checks too
			var warned []string
			warn := func(s string) {
				mu.Lock()
				defer mu.Unlock()
				warned = append(warned, s)
			}
			sb, root, home := sandboxOverARepository(t, Config{Command: Bubblewrap, Why: "test", Warn: warn}, func(root, home string) {
				// The user's own, with a program of theirs: known, left alone.
				git(t, home, root, "init", "-q", "mine")
				git(t, home, filepath.Join(root, "mine"), "config", "core.pager", "less")
			})
			marker := filepath.Join(root, "PWNED")
			// S makes sub a submodule git status enters, before the
			// program is planted: the watch may set it aside at once,
			// before the plant's next step (the hook's chmod) runs.
			out, err := runGit(t, sb, home, root, `M=`+marker+`; C="-c user.name=t -c user.email=t@example.com"
S() { git -C sub $C commit -q --allow-empty -m x && git add sub; }
git init -q clean && git -C clean $C commit -q --allow-empty -m x && git add clean &&
`+plant+`; rm -f "$M"; echo planted`)
			if err != nil || !strings.HasSuffix(out, "planted\n") {
				t.Fatalf("inside: %v %q", err, out)
			}
			said := sb.TakeBack()
			if !strings.Contains(said, "set aside") || !strings.Contains(said, MadeSuffix) {
				t.Errorf("TakeBack says %q", said)
			}
			mu.Lock()
			if len(warned) != 1 {
				t.Errorf("warned %q", warned)
			}
			mu.Unlock()
			git(t, home, root, "status") // what the user, or the editor, runs outside
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git status outside the sandbox ran the command a sandboxed command planted")
			}
			for _, kept := range []string{"clean/.git", "mine/.git"} {
				if _, err := os.Stat(filepath.Join(root, kept)); err != nil {
					t.Errorf("%s: %v", kept, err)
				}
			}
			if said := sb.TakeBack(); said != "" {
				t.Errorf("TakeBack says again: %q", said)
			}
		})
	}
}

// What the last commands made is set aside when the sandbox closes too.
func TestBubblewrapGitDirsAreSetAsideAtClose(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	if out, err := runGit(t, sb, home, root, `git init -q sub && git -C sub config alias.st '!touch x'`); err != nil {
		t.Fatalf("%v %q", err, out)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "sub", ".git")); err == nil {
		t.Error("sub/.git is still there after Close")
	}
	if _, err := os.Stat(filepath.Join(root, "sub", ".git"+MadeSuffix)); err != nil {
		t.Error(err)
	}
}

// The user's repositories in subdirectories, there before the sandbox's
// first command, are kept as a root's: a sandboxed command can make
// neither's git, run outside later, run a program, through a
// repository's own .git directory (mine) or through the git directory
// its .git file names (split). Legitimate git work in them still runs.
func TestBubblewrapGitOfARepositoryInASubdirectoryRunsNothingPlanted(t *testing.T) {
	sandboxtest.NeedGit(t)
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	marker := filepath.Join(t.TempDir(), "marker")
	git(t, home, root, "init", "-q", "-b", "main")
	git(t, home, root, "init", "-q", "-b", "main", "mine")
	git(t, home, filepath.Join(root, "mine"), "commit", "-q", "--allow-empty", "-m", "first")
	if err := os.Mkdir(filepath.Join(root, "gits"), 0o755); err != nil {
		t.Fatal(err)
	}
	// All there before the sandbox's first look (its first command).
	git(t, home, root, "init", "-q", "-b", "main", "--separate-git-dir", filepath.Join(root, "gits", "split"), "split")
	evil := "[core]\\n\\tfsmonitor = touch " + marker + "\\n"
	hook := "#!/bin/sh\\ntouch " + marker + "\\n"
	plants := []string{
		"git -C mine config core.fsmonitor 'touch " + marker + "'",
		"printf '" + evil + "' >> mine/.git/config",
		"printf '" + hook + "' > mine/.git/hooks/post-index-change && chmod +x mine/.git/hooks/post-index-change",
		"printf '* diff=evil\\n' > mine/.git/info/attributes",
		"printf '../evil\\n' > mine/.git/commondir",
		"mv mine/.git mine/.git.old && mkdir mine/.git && cp -r mine/.git.old/. mine/.git/ && printf '" + evil + "' >> mine/.git/config",
		"mv mine/.git/hooks mine/.git/hooks.old && mkdir mine/.git/hooks",
		"git -C split config core.fsmonitor 'touch " + marker + "'",
		"printf '" + hook + "' > gits/split/hooks/post-index-change && chmod +x gits/split/hooks/post-index-change",
		"mkdir -p evilgit && cp -r gits/split/. evilgit/ && printf '" + evil + "' >> evilgit/config && printf 'gitdir: ../evilgit\\n' > split/.git",
	}
	for _, script := range plants {
		if out, err := runGit(t, sb, home, root, script); err == nil {
			t.Errorf("%s: allowed (%q)", script, out)
		}
	}
	for _, dir := range []string{"mine", "split"} {
		git(t, home, filepath.Join(root, dir), "status")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git outside the sandbox, in a repository in a subdirectory, ran what a sandboxed command planted")
	}
	if out, err := runGit(t, sb, home, root, "echo g > mine/g && git -C mine add g && git -C mine -c user.name=t -c user.email=t@example.com commit -q -m inside && git -C mine log --format=%s -1"); err != nil || out != "inside\n" {
		t.Errorf("a sandboxed git commit in mine: %v %q", err, out)
	}
}

// A git directory a command made that runs nothing is left, and read
// again at every check: a later command may write a program into it with
// no entry made where the kernel tells (appending to its config), or in
// a directory not watched (its hooks). Either is set aside before git
// outside enters it.
func TestBubblewrapGitDirsMadeHarmlessAreReadAgain(t *testing.T) {
	sandboxtest.NeedGit(t)
	for name, plant := range map[string]string{
		"config": `printf '[core]\n\tfsmonitor = touch %s #\n' "$M" >> sub/.git/config`,
		"hook":   `printf '#!/bin/sh\ntouch %s\n' "$M" > sub/.git/hooks/post-index-change && chmod +x sub/.git/hooks/post-index-change`,
	} {
		t.Run(name, func(t *testing.T) {
			sb, root, home := sandboxOverARepository(t, Config{Command: Bubblewrap, Why: "test"}, nil)
			marker := filepath.Join(root, "PWNED")
			out, err := runGit(t, sb, home, root, `C="-c user.name=t -c user.email=t@example.com"
git init -q sub && git -C sub $C commit -q --allow-empty -m x && git add sub && echo made`)
			if err != nil || !strings.HasSuffix(out, "made\n") {
				t.Fatalf("inside: %v %q", err, out)
			}
			if said := sb.TakeBack(); said != "" {
				t.Errorf("a harmless repository made: TakeBack says %q", said)
			}
			if out, err := runGit(t, sb, home, root, "M="+marker+"; "+plant+"; echo planted"); err != nil || !strings.HasSuffix(out, "planted\n") {
				t.Fatalf("inside: %v %q", err, out)
			}
			if said := sb.TakeBack(); !strings.Contains(said, "set aside") {
				t.Errorf("TakeBack says %q", said)
			}
			git(t, home, root, "status")
			if _, err := os.Stat(marker); err == nil {
				t.Error("git status outside the sandbox ran what a later command wrote into a repository a command made")
			}
		})
	}
}

// A command that makes a submodule git status enters, plants a program
// in it (by git config, or appending to the config of the repository it
// made harmless a moment before) and runs on: the repository is set
// aside while it still runs, so that git outside meanwhile (the
// editor's git status) runs nothing.
func TestBubblewrapGitDirsAreSetAsideWhileTheCommandRuns(t *testing.T) {
	sandboxtest.NeedGit(t)
	for name, plant := range map[string]string{
		"config": `git -C sub config core.fsmonitor "touch $M #"`,
		"append": `sleep 0.3 && printf '[core]\n\tfsmonitor = touch %s #\n' "$M" >> sub/.git/config`,
	} {
		t.Run(name, func(t *testing.T) {
			sb, root, home := sandboxOverARepository(t, Config{Command: Bubblewrap, Why: "test", Warn: func(string) {}}, nil)
			marker := filepath.Join(root, "PWNED")
			ran := make(chan string, 1)
			go func() {
				out, err := runGit(t, sb, home, root, `M=`+marker+`; C="-c user.name=t -c user.email=t@example.com"
git init -q sub && git -C sub $C commit -q --allow-empty -m x && git add sub && `+plant+` && sleep 3; echo ended`)
				ran <- fmt.Sprint(out, err)
			}()
			aside := filepath.Join(root, "sub", ".git"+MadeSuffix)
			for deadline := time.Now().Add(2500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(aside); err == nil {
					break
				}
			}
			select {
			case out := <-ran:
				t.Fatalf("the command ended (%q) before its repository was set aside", out)
			default:
			}
			if _, err := os.Stat(aside); err != nil {
				t.Fatalf("the repository the running command planted in was not set aside: %v", err)
			}
			git(t, home, root, "status") // the editor's, while the command runs
			if _, err := os.Stat(marker); err == nil {
				t.Error("git status outside, while the command ran, ran what it planted")
			}
			if out := <-ran; !strings.Contains(out, "ended") {
				t.Errorf("the command: %q", out)
			}
		})
	}
}
