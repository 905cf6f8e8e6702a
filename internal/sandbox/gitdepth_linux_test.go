package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// deepDir is a directory eight levels below a root, relative to it.
const deepDir = "d1/d2/d3/d4/d5/d6/d7/d8"

// A sandboxed command makes a repository eight directories deep, and
// deeper, gives it a program to run, and adds it to the root's index as
// a submodule (or does not): made with git init in one go, under
// directories mkdir -p made at once, moved in from the command's /tmp,
// or through a .git file naming a git directory elsewhere in the root.
// Each is set aside when the command ends, the model told, and git
// status outside runs nothing. (The watch once read 6 levels below a
// directory made, and missed all of them.)
func TestBubblewrapGitDirsMadeDeepAreSetAside(t *testing.T) {
	sandboxtest.NeedGit(t)
	const arm = `git -C "$R" config core.fsmonitor "touch $M #"`
	const link = `git -C "$R" $C commit -q --allow-empty -m x && git add "$R"`
	for name, plant := range map[string]string{
		"git init, linked":                       `R=` + deepDir + `/sub; git init -q "$R" && ` + link + ` && ` + arm,
		"git init, unlinked":                     `R=` + deepDir + `; git init -q "$R" && ` + arm,
		"mkdir -p at once":                       `R=$(printf 'n%.0s/' $(seq 30))sub; mkdir -p "$R" && git init -q "$R" && ` + arm,
		"moved from /tmp":                        `R=` + deepDir + `/sub; git init -q /tmp/sub && git -C /tmp/sub config core.fsmonitor "touch $M #" && mkdir -p ` + deepDir + ` && mv /tmp/sub "$R" && ` + link,
		"a .git file naming a git dir elsewhere": `R=` + deepDir + `/sub; mkdir -p stash "$R" && git init -q --separate-git-dir stash/g "$R" && ` + link + ` && ` + arm,
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var warned []string
			warn := func(s string) {
				mu.Lock()
				defer mu.Unlock()
				warned = append(warned, s)
			}
			sb, root, home := sandboxOverARepository(t, Config{Command: Bubblewrap, Why: "test", Warn: warn}, nil)
			marker := filepath.Join(root, "PWNED")
			out, err := runGit(t, sb, home, root, `M=`+marker+`; C="-c user.name=t -c user.email=t@example.com"
`+plant+`; rm -f "$M"; echo planted`)
			if err != nil || !strings.HasSuffix(out, "planted\n") {
				t.Fatalf("inside: %v %q", err, out)
			}
			said := sb.TakeBack()
			if !strings.Contains(said, "set aside") || !strings.Contains(said, MadeSuffix) || !strings.Contains(said, "core.fsmonitor") {
				t.Errorf("TakeBack says %q", said)
			}
			mu.Lock()
			if len(warned) != 1 {
				t.Errorf("warned %q", warned)
			}
			mu.Unlock()
			git(t, home, root, "status")
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git status outside the sandbox ran the command a sandboxed command planted")
			}
		})
	}
}

// armedConfig is a git configuration that runs a program.
const armedConfig = "[core]\n\tfsmonitor = touch /tmp/pwned #\n"

// makeGitDir makes a repository at dir, its git directory dir/.git
// holding config: made as a command would, with no git.
func makeGitDir(t *testing.T, dir, config string) {
	t.Helper()
	for _, d := range []string{"hooks", "objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": config} {
		if err := os.WriteFile(filepath.Join(dir, ".git", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// appendFile appends s to the file p.
func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// gitlinkOID is the commit a test's gitlinks record: git status, reading
// the index, does not look it up.
const gitlinkOID = "1111111111111111111111111111111111111111"

// linkInIndex records path as a gitlink in the index of the repository
// at repo, as `git add path` of a submodule does.
func linkInIndex(t *testing.T, home, repo, path string) {
	t.Helper()
	git(t, home, repo, "update-index", "--add", "--cacheinfo", "160000,"+gitlinkOID+","+path)
}

// testScanDirs is the bound of the walks of a test's watch (watchOf),
// cheaper to go past than gitScanDirs.
const testScanDirs = 100

// watchOf is a watch of the one root root, its walks bounded by
// testScanDirs, warnings dropped, closed with the test.
func watchOf(t *testing.T, root string) *gitWatch {
	w := newGitWatch(func() []string { return []string{root} }, func() []string { return []string{root} }, nil)
	w.scanDirs = testScanDirs
	t.Cleanup(w.close)
	return w
}

// isAside says the repository at dir was set aside.
func isAside(dir string) bool {
	_, aside := os.Lstat(filepath.Join(dir, ".git"+MadeSuffix))
	_, there := os.Lstat(filepath.Join(dir, ".git"))
	return aside == nil && there != nil
}

// A repository made in a directory that was there, eight levels deep,
// is seen: the first look read it (breadth first, however deep) and
// watches it. (It once read 6 levels, and watched no deeper.)
func TestGitWatchSeesWhatIsMadeInADeepDirectoryThatWasThere(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, filepath.FromSlash(deepDir))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	w := watchOf(t, root)
	w.check()
	makeGitDir(t, filepath.Join(deep, "sub"), armedConfig)
	w.check()
	if !isAside(filepath.Join(deep, "sub")) {
		t.Error("the repository made eight levels deep was not set aside")
	}
}

// pastTheFirstLook fills root with more directories than the first
// look reads (testScanDirs), all read before z: what lies in z is past
// the first look's bound, unseen and unwatched.
func pastTheFirstLook(t *testing.T, root string) {
	t.Helper()
	for i := range testScanDirs + 1 {
		if err := os.MkdirAll(filepath.Join(root, "fill", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "z"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A repository past the first look's bound, there before it, is found
// through the root's index, however deep: linked then, it is the user's
// (kept read-only as theirs); armed by a command and linked after, it
// is set aside, as is one linked from the index of a submodule the
// root's links to.
func TestGitWatchFollowsTheIndexPastTheFirstLooksBound(t *testing.T) {
	sandboxtest.NeedGit(t)
	for name, tc := range map[string]struct {
		before func(t *testing.T, root, home string)
		after  func(t *testing.T, root, home string)
		user   bool   // the repository is the user's after the first look
		aside  string // the one set aside after
	}{
		"linked before the first look": {
			before: func(t *testing.T, root, home string) { linkInIndex(t, home, root, "z/deep/sub") },
			user:   true,
		},
		"armed and linked after": {
			after: func(t *testing.T, root, home string) {
				appendFile(t, filepath.Join(root, "z/deep/sub/.git/config"), armedConfig)
				linkInIndex(t, home, root, "z/deep/sub")
			},
			aside: "z/deep/sub",
		},
		"linked from a submodule's index": {
			after: func(t *testing.T, root, home string) {
				sub := filepath.Join(root, "z/deep/sub")
				makeGitDir(t, filepath.Join(sub, "inner"), armedConfig)
				linkInIndex(t, home, sub, "inner")
				linkInIndex(t, home, root, "z/deep/sub")
			},
			aside: "z/deep/sub/inner",
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			git(t, home, root, "init", "-q")
			pastTheFirstLook(t, root)
			makeGitDir(t, filepath.Join(root, "z/deep/sub"), "")
			if tc.before != nil {
				tc.before(t, root, home)
			}
			w := watchOf(t, root)
			w.check()
			if w.read < testScanDirs {
				t.Fatalf("the first look read %d directories, want its bound", w.read)
			}
			user := slices.ContainsFunc(w.userGitDirs(), func(f foundGitDir) bool { return f.dir == filepath.Join(root, "z/deep/sub/.git") })
			if user != tc.user {
				t.Errorf("the repository past the bound is the user's: %v, want %v", user, tc.user)
			}
			if tc.after == nil {
				return
			}
			tc.after(t, root, home)
			w.check()
			if !isAside(filepath.Join(root, tc.aside)) {
				t.Errorf("%s was not set aside", tc.aside)
			}
		})
	}
}

// A command that floods the kernel's queue (more entries than it holds)
// while it makes a repository, links it and arms it, where the walk
// after the overflow does not reach, finds it set aside: the index
// leads to it.
func TestGitWatchFollowsTheIndexAfterTheKernelDroppedWhatWasMade(t *testing.T) {
	sandboxtest.NeedGit(t)
	root, home := t.TempDir(), t.TempDir()
	git(t, home, root, "init", "-q")
	pastTheFirstLook(t, root)
	w := watchOf(t, root)
	w.check()
	// More entries than the kernel queues (max_queued_events, 16,384 by
	// default), made as fast as a command can: links to one file.
	flood := filepath.Join(root, "fill", "0")
	if err := os.WriteFile(filepath.Join(flood, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 20000 {
		if err := os.Link(filepath.Join(flood, "f"), filepath.Join(flood, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	makeGitDir(t, filepath.Join(root, "z/a/b/sub"), armedConfig)
	linkInIndex(t, home, root, "z/a/b/sub")
	w.check()
	if w.read < testScanDirs {
		t.Errorf("the check after the overflow read %d directories: the kernel did not drop what was made", w.read)
	}
	if !isAside(filepath.Join(root, "z/a/b/sub")) {
		t.Error("the repository made while the kernel's queue overflowed was not set aside")
	}
}

// An index written again in place, its size and modification time put
// back, is read again: its change time moved. A command could otherwise
// link a repository the watch does not see made (past the first look's
// bound) behind an index the watch takes as read.
func TestGitWatchReadsAnIndexWrittenInPlaceAgain(t *testing.T) {
	sandboxtest.NeedGit(t)
	root, home := t.TempDir(), t.TempDir()
	git(t, home, root, "init", "-q")
	pastTheFirstLook(t, root)
	makeGitDir(t, filepath.Join(root, "z/dddd/sub"), "")
	linkInIndex(t, home, root, "z/aaaa/sub")
	index := filepath.Join(root, ".git", "index")
	// The same index, the link at a path as long, made elsewhere.
	other := filepath.Join(t.TempDir(), "index")
	cmd := exec.CommandContext(t.Context(), "git", "update-index", "--add", "--cacheinfo", "160000,"+gitlinkOID+",z/dddd/sub")
	cmd.Dir, cmd.Env = root, append(gitEnv(home), "GIT_INDEX_FILE="+other)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	w := watchOf(t, root)
	w.check()
	time.Sleep(2 * stampGrain)
	w.check() // read again, settled: trusted while its stamp holds
	before, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(root, "z/dddd/sub/.git/config"), armedConfig)
	data, err := os.ReadFile(other)
	if err != nil || int64(len(data)) != before.Size() {
		t.Fatalf("the other index: %d bytes, %v; want %d", len(data), err, before.Size())
	}
	f, err := os.OpenFile(index, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(index, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	w.check()
	if !isAside(filepath.Join(root, "z/dddd/sub")) {
		t.Error("the repository an index written in place links to was not set aside")
	}
}

// Past the directories it may watch (watchedPerScan walks' worth), the
// watch cannot tell of what is made in the others: each check then
// walks rather than reading nothing, and a repository made there and
// linked in the root's index is set aside through it.
func TestGitWatchWalksPastTheDirectoriesItMayWatch(t *testing.T) {
	sandboxtest.NeedGit(t)
	root, home := t.TempDir(), t.TempDir()
	git(t, home, root, "init", "-q")
	w := watchOf(t, root)
	w.check()
	for i := range watchedPerScan*testScanDirs + 1 {
		if err := os.MkdirAll(filepath.Join(root, "made", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.check()
	last := filepath.Join(root, "made", fmt.Sprint(watchedPerScan*testScanDirs), "sub")
	makeGitDir(t, last, armedConfig)
	linkInIndex(t, home, root, filepath.Join("made", fmt.Sprint(watchedPerScan*testScanDirs), "sub"))
	w.check()
	if w.read < testScanDirs {
		t.Errorf("a check past the directories watched read %d directories, want a walk", w.read)
	}
	if !isAside(last) {
		t.Error("the repository made in a directory not watched was not set aside")
	}
}
