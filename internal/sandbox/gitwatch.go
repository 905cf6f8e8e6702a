package sandbox

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/gitconfig"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// gitWatch looks for git directories that commands made in the writable
// paths and that make git run a program: a repository made in a
// subdirectory (git init sub; git -C sub config core.fsmonitor …), or a
// submodule's under .git/modules, or a linked worktree's under
// .git/worktrees. git run outside later enters them (git status in the
// root enters every submodule the index records, and a command can add
// one: git add sub), so what their configuration names would run
// outside the sandbox. The sandbox cannot keep them read-only, since
// they do not exist when it is set up, nor forbid making them, which
// ordinary work (git submodule update, git worktree add) does.
//
// What exists when a writable path is first seen is the user's
// (known), and so is a root's own git directory whenever it is found
// (the user's git init outside, after the sandbox started): the sandbox
// keeps their configuration and hooks read-only (gitProtector's root and
// userRepo), so what they name is not a command's. Before each command,
// when a command ends (TakeBack) and when the sandbox closes, every
// other git directory found is read, and one whose configuration or
// hooks run a program (runsProgram) is renamed NAME+MadeSuffix, with the
// .git file that leads to it: git no longer enters it, nothing is lost,
// and the user and the model are told. One that runs nothing is read
// again at every check (judge).
//
// The first look at a writable path (before the first command) reads
// it breadth first, however deep, gitScanDirs directories in all (the
// user's tree, which may be large). The directories it read are watched
// (dirWatch, Linux's inotify): a later look reads only the directories
// made since, whole, however deep (what a command made, mkdir -p of a
// hundred levels at once among it), and the .git directories entries
// were made in, a few microseconds when nothing was, where a walk of
// 10,000 directories takes tens of milliseconds at every command. Where
// the kernel cannot tell (another system, an overflow, too few watches)
// it walks again, as the first look did.
//
// And at every look the indexes of the roots' repositories, the user's
// and those judged harmless are read again when they changed (gitlinks):
// each gitlink, a submodule git status enters, leads to the git
// directory at its path, however deep, wherever the watch could not see
// it made (past the first look's bound, after an overflow), and that
// one's index to more. At the first look those they lead to are the
// user's, as those the walk found.
type gitWatch struct {
	writable func() []string
	roots    func() []string
	warn     func(string)

	mu    sync.Mutex
	seen  map[string]bool // writable paths whose git directories are known
	known map[string]bool // git directories there when first seen, the user's
	// user are the git directories there when first seen, with what
	// leads to each: the sandbox keeps the user's repositories in
	// subdirectories read-only, as a root's (governing).
	user  []foundGitDir
	moved []string // what TakeBack has not said yet
	// harmless are the git directories commands made that ran nothing
	// at the last check, read again at each (judge); walkNext, that
	// there were more than maxHarmless, so the next check walks.
	harmless []foundGitDir
	walkNext bool
	// notify tells of the entries made in the directories walked since,
	// so that a check reads only those (nil where the kernel cannot: each
	// check walks everything).
	notify *dirWatch
	// followed: a check runs each time the kernel tells of something
	// (follow), not only around commands; following is closed when
	// that goroutine ended.
	followed  bool
	following chan struct{}
	// read is how many directories the last check read.
	read int
	// indexes are the gitlinks of each index read, by its path, with its
	// stamp when read: read again when it changed.
	indexes map[string]readIndex
	// rootRepos are the roots' repositories, as the last check found.
	rootRepos []repoAt
	// configs are the roots' project configuration that commands may
	// not make (projectconfig.go).
	configs *projectConfigs
	// scanDirs bounds a walk (gitScanDirs; less in tests).
	scanDirs int
}

// madeEntry is an entry made or moved into a watched directory.
type madeEntry struct {
	path string
	dir  bool
}

// gitScanDirs bounds a walk of a writable path: the first look, and a
// look where the kernel cannot tell what was made. A directory made is
// read whole.
const gitScanDirs = 10000

// watchedPerScan bounds the directories watched, watchedPerScan times
// a walk's bound: a share of the user's limit that editors' file
// watchers use too. Past it the watch is short, and each check walks.
const watchedPerScan = 4

// watchGitDirs is the sandbox's watch, which reads nothing until its
// first check, before the first command: what is there then is the
// user's.
func (s *Sandbox) watchGitDirs() *gitWatch {
	w := newGitWatch(s.writable, s.roots, s.cfg.Warn)
	w.followed = true
	w.configs.open = s.cfg.OpenInEditor
	return w
}

// newGitWatch is a watch of the git directories under writable, roots
// being the workspace roots, telling warn (when set) of each set aside.
func newGitWatch(writable, roots func() []string, warn func(string)) *gitWatch {
	return &gitWatch{writable: writable, roots: roots, warn: warn, seen: map[string]bool{}, known: map[string]bool{},
		indexes: map[string]readIndex{}, configs: newProjectConfigs(), scanDirs: gitScanDirs}
}

// foundGitDir is a git directory found, and what to rename to set it
// aside: the .git file or directory that leads git to it, and the git
// directory itself when it lies elsewhere (.git/modules/sub).
type foundGitDir struct {
	dir   string
	aside []string
}

// check sets aside each git directory not known that runs a program,
// and each project configuration made in a root (projectConfigs). The
// first check of a writable path walks it (bounded), watching the
// directories it reads; a later one reads only what the kernel says was
// made in them since, or walks again when it cannot say; every one
// follows the indexes' gitlinks.
func (w *gitWatch) check() {
	if w == nil {
		return
	}
	w.mu.Lock()
	roots := w.knowRoots()
	writable := realPaths(w.writable())
	w.startWatching()
	made, lost := w.notify.made()
	lost = lost || w.walkNext
	w.walkNext = false
	walk := &gitWalk{left: w.scanDirs, onDir: w.watch}
	found := slices.Clone(w.harmless)
	for _, real := range writable {
		switch {
		case !w.seen[real]:
			w.seen[real] = true
			w.adopt(real, walk.findAt(real, real), writable)
		case lost:
			found = append(found, walk.findAt(real, real)...)
		}
	}
	whole := &gitWalk{left: math.MaxInt, onDir: w.watch}
	if !lost {
		found = append(found, w.madeGitDirs(made, writable, whole)...)
	}
	w.read = walk.read + whole.read
	said := w.judgeAll(found, writable)
	said = append(said, w.configs.check(roots, made, lost)...)
	w.moved = append(w.moved, said...)
	w.mu.Unlock()
	warnEach(w.warn, said)
}

// knowRoots marks the roots' git directories known (the user's, kept
// read-only), notes their repositories (rootRepos) and returns the
// roots, resolved.
func (w *gitWatch) knowRoots() []string {
	roots := realPaths(w.roots())
	w.rootRepos = w.rootRepos[:0]
	for _, root := range roots {
		dir := rootGitDir(root)
		w.known[dir] = true
		w.rootRepos = append(w.rootRepos, repoAt{dir, root})
	}
	return roots
}

// realPaths are paths resolved, those that cannot be left out.
func realPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// startWatching makes the kernel's watch at the first check, and starts
// following it when asked to.
func (w *gitWatch) startWatching() {
	if w.notify != nil || len(w.seen) > 0 {
		return
	}
	w.notify = newDirWatch()
	if w.notify != nil && w.following == nil && w.followed {
		w.following = make(chan struct{})
		go w.follow(w.notify, w.following)
	}
}

// adopt makes the git directories found at the first look at the
// writable path real the user's, and those the indexes of the roots
// there and of theirs link to, however deep: known, kept read-only.
func (w *gitWatch) adopt(real string, found []foundGitDir, writable []string) {
	var sources []repoAt
	for _, r := range w.rootRepos {
		if workspace.Within(real, r.worktree) {
			sources = append(sources, r)
		}
	}
	for _, f := range mergeFound(found) {
		w.known[f.dir] = true
		w.user = append(w.user, f)
		sources = append(sources, repoOf(f))
	}
	visited := map[string]bool{}
	for len(sources) > 0 {
		var next []repoAt
		for _, f := range mergeFound(w.linked(sources, writable, visited)) {
			if !w.known[f.dir] {
				w.known[f.dir] = true
				w.user = append(w.user, f)
				next = append(next, repoOf(f))
			}
		}
		sources = next
	}
}

// judgeAll judges what was found, then what the indexes of the roots'
// repositories, the user's and those judged harmless link to, and so
// on until nothing new: git status enters each gitlink, however deep,
// and the gitlinks of the submodules it enters.
func (w *gitWatch) judgeAll(found []foundGitDir, writable []string) []string {
	w.harmless = nil
	judged, visited := map[string]bool{}, map[string]bool{}
	said := w.judge(found, judged)
	sources := slices.Clone(w.rootRepos)
	for _, f := range w.user {
		sources = append(sources, repoOf(f))
	}
	for n := 0; ; {
		for _, f := range w.harmless[n:] {
			sources = append(sources, repoOf(f))
		}
		n = len(w.harmless)
		next := w.linked(sources, writable, visited)
		if len(next) == 0 {
			break
		}
		said = append(said, w.judge(next, judged)...)
		sources = nil
	}
	w.forgetIndexes(visited)
	return said
}

// maxHarmless bounds the git directories commands made that ran nothing
// which a check reads again; past it, the next check walks.
const maxHarmless = 1024

// judge sets aside each git directory found, not known nor judged
// already, that runs a program, and keeps the others (harmless) to read
// again at the next check: a command may then write a program into one
// with no entry made (appending to its config), which the kernel does
// not tell. What it set aside, it says.
func (w *gitWatch) judge(found []foundGitDir, judged map[string]bool) (said []string) {
	for _, f := range mergeFound(found) {
		if w.known[f.dir] || judged[f.dir] {
			continue
		}
		judged[f.dir] = true
		if _, err := os.Lstat(f.dir); err != nil {
			continue // gone
		}
		switch why := w.runsProgram(f.dir); {
		case why != "":
			said = append(said, setAsideGitDir(f, why, w.known))
		case len(w.harmless) < maxHarmless:
			w.harmless = append(w.harmless, f)
			// A program written into it wakes follow too.
			w.notify.addWrites(f.dir)
			w.notify.addWrites(filepath.Join(f.dir, "hooks"))
		default:
			w.walkNext = true
		}
	}
	return said
}

// approve makes the project configuration holding paths, written by the
// agent's edit tools with the user's approval, the user's.
func (w *gitWatch) approve(paths []string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.configs.approve(paths)
}

// userGitDirs are the git directories that were in the writable paths
// when the watch first looked at each.
func (w *gitWatch) userGitDirs() []foundGitDir {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.user)
}

// close checks a last time and stops watching: a check after it walks
// everything.
func (w *gitWatch) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	d, following := w.notify, w.following
	w.following = nil
	w.mu.Unlock()
	d.stop()
	if following != nil {
		<-following
	}
	w.check()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notify.close()
	w.notify = nil
}

// followDelay is how long follow waits after the kernel's word before it
// checks, so that a burst of entries is read in one check: a command
// making 3,100 directories in 3.5 s cost gemini-ls 48 ms of CPU, against
// 20 ms with no check while it ran and 110–130 ms at 20 ms.
const followDelay = 100 * time.Millisecond

// follow checks each time the kernel tells of an entry made, or of a
// file written in a git directory a command made, while commands run:
// git run outside meanwhile (the editor's git status, every few seconds
// while files change) would otherwise enter a repository a running
// command made, before the check at its end. It ends when close stops
// the watch.
func (w *gitWatch) follow(d *dirWatch, done chan struct{}) {
	defer close(done)
	for d.wait() {
		time.Sleep(followDelay)
		w.check()
	}
}

// watch has the kernel tell of what is made in dir. Past watchedPerScan
// walks' worth of directories it cannot: the watch is short, and each
// check walks.
func (w *gitWatch) watch(dir string) {
	switch {
	case w.notify == nil:
	case w.notify.watched() < watchedPerScan*w.scanDirs:
		w.notify.add(dir)
	default:
		w.notify.shortOf(dir)
	}
}

// madeGitDirs are the git directories the entries made lead to: a .git
// made, the submodules' and worktrees' of a .git directory an entry was
// made in, and those of a directory made (walked whole, as it is new,
// however deep).
func (w *gitWatch) madeGitDirs(made []madeEntry, writable []string, walk *gitWalk) []foundGitDir {
	var out []foundGitDir
	rescanned := map[string]bool{}
	for _, e := range made {
		root := ""
		for _, p := range writable {
			if workspace.Within(p, e.path) {
				root = p
			}
		}
		dotgit, inside := enclosingDotGit(e.path)
		if inside && !workspace.Within(root, dotgit) {
			// The writable path is a git directory itself, a linked
			// worktree's own (linkedWorktreeGitDir): what is made there
			// leads to its submodules', never to the other worktrees'
			// under the main .git above, which are not the session's.
			dotgit = root
		}
		switch {
		case root == "":
		case inside:
			if e.dir && !rescanned[dotgit] {
				rescanned[dotgit] = true
				out = append(out, walk.innerGitDirs(dotgit)...)
			}
		case filepath.Base(e.path) == ".git" || e.dir:
			out = append(out, walk.findAt(root, e.path)...)
		}
	}
	return out
}

// enclosingDotGit is the .git directory path lies in, below it, if any.
func enclosingDotGit(path string) (string, bool) {
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == ".git" {
			return dir, true
		}
	}
	return "", false
}

// rootGitDir is the git directory of the root: its .git, or the one its
// .git file names.
func rootGitDir(root string) string {
	dotgit := filepath.Join(root, ".git")
	// Looked at first: a directory is not opened, at every check.
	if info, err := os.Lstat(dotgit); err != nil || info.IsDir() {
		return dotgit
	}
	if dir, ok := readGitFile(dotgit); ok {
		return filepath.Clean(dir)
	}
	return dotgit
}

// take says, once, what was set aside since it last said.
func (w *gitWatch) take() []string {
	if w == nil {
		return nil
	}
	w.check()
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.moved
	w.moved = nil
	return out
}

// gitWalk reads directories for the git directories there, while it
// may.
type gitWalk struct {
	left  int          // directories it may still read
	read  int          // directories it read
	onDir func(string) // told of each directory before it is read
}

// next says the walk may read one more directory, and counts it.
func (k *gitWalk) next() bool {
	if k.left <= 0 {
		return false
	}
	k.left--
	k.read++
	return true
}

// findAt are the git directories at start, under the writable path
// root: start's own, a .git entry, or those in the directory start,
// read breadth first, however deep: each .git directory, the directory
// a .git file names (set aside with it when it lies under root), and
// the submodules' and linked worktrees' under a .git directory.
func (k *gitWalk) findAt(root, start string) []foundGitDir {
	if filepath.Base(start) == ".git" {
		info, err := os.Lstat(start)
		if err != nil {
			return nil
		}
		return k.dotGit(root, start, info.IsDir(), info.Mode().IsRegular())
	}
	var out []foundGitDir
	for queue := []string{start}; len(queue) > 0 && k.next(); queue = queue[1:] {
		k.onDir(queue[0])
		entries, err := os.ReadDir(queue[0])
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(queue[0], e.Name())
			switch {
			case e.Name() == ".git":
				out = append(out, k.dotGit(root, p, e.IsDir(), e.Type().IsRegular())...)
			case e.IsDir():
				queue = append(queue, p)
			}
		}
	}
	return out
}

// dotGit are the git directories a .git entry at p leads to.
func (k *gitWalk) dotGit(root, p string, isDir, isFile bool) []foundGitDir {
	switch {
	case isDir:
		return append([]foundGitDir{{p, []string{p}}}, k.innerGitDirs(p)...)
	case isFile:
		target, ok := readGitFile(p)
		if !ok {
			return nil
		}
		target = filepath.Clean(target)
		aside := []string{p}
		if workspace.Within(root, target) {
			aside = append(aside, target)
		}
		return []foundGitDir{{target, aside}}
	}
	return nil
}

// mergeFound is found with one entry per git directory, what leads to it
// gathered: a submodule's is found both under .git/modules and through
// its work tree's .git file, and both go aside together.
func mergeFound(found []foundGitDir) []foundGitDir {
	var out []foundGitDir
	at := map[string]int{}
	for _, f := range found {
		i, ok := at[f.dir]
		if !ok {
			at[f.dir] = len(out)
			out = append(out, foundGitDir{dir: f.dir})
			i = len(out) - 1
		}
		for _, p := range f.aside {
			if !slices.Contains(out[i].aside, p) {
				out[i].aside = append(out[i].aside, p)
			}
		}
	}
	// The .git files first, the git directories they name after.
	for i := range out {
		slices.SortStableFunc(out[i].aside, func(a, b string) int {
			return boolInt(filepath.Base(b) == ".git") - boolInt(filepath.Base(a) == ".git")
		})
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// innerGitDirs are the git directories under a .git directory: its
// linked worktrees' and its submodules' (modules/…, a directory with a
// HEAD, maxModuleDepth deep).
func (k *gitWalk) innerGitDirs(dotgit string) []foundGitDir {
	var out []foundGitDir
	k.onDir(dotgit) // a modules or worktrees directory made in it
	k.onDir(filepath.Join(dotgit, "worktrees"))
	worktrees, _ := os.ReadDir(filepath.Join(dotgit, "worktrees"))
	for _, e := range worktrees {
		if e.IsDir() {
			p := filepath.Join(dotgit, "worktrees", e.Name())
			out = append(out, foundGitDir{p, []string{p}})
		}
	}
	var modules func(dir string, depth int)
	modules = func(dir string, depth int) {
		if depth > maxModuleDepth || !k.next() {
			return
		}
		k.onDir(dir)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
				out = append(out, foundGitDir{p, []string{p}})
				out = append(out, k.innerGitDirs(p)...)
			} else {
				modules(p, depth+1)
			}
		}
	}
	modules(filepath.Join(dotgit, "modules"), 0)
	return out
}

// runsProgram says what in the git directory dir makes git run a
// program ("" when nothing does): a hook, or a configuration entry
// (gitRunsProgram) in its config, its config.worktree, or the config of
// the common directory its commondir names, unless that one is known
// (the user's, and kept read-only).
func (w *gitWatch) runsProgram(dir string) string {
	if hooks, err := os.ReadDir(filepath.Join(dir, "hooks")); err == nil {
		for _, h := range hooks {
			if !strings.HasSuffix(h.Name(), ".sample") {
				return "its hook " + filepath.Join(dir, "hooks", h.Name())
			}
		}
	}
	configs := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree")}
	if common, ok := readCommonDir(dir); ok && !w.known[common] {
		configs = append(configs, filepath.Join(common, "config"))
	}
	for _, c := range configs {
		data, err := readBounded(c, maxGitConfig)
		if err != nil {
			continue
		}
		for _, e := range gitconfig.Parse(data) {
			if gitRunsProgram(e) {
				return fmt.Sprintf("%s in %s", e.Key(), c)
			}
		}
	}
	return ""
}

// setAsideGitDir renames what leads git to f, each to the first free
// NAME+MadeSuffix[-N], and says so; the git directory renamed is known
// from then on (under its new name it is nothing git enters).
func setAsideGitDir(f foundGitDir, why string, known map[string]bool) string {
	var done, failed []string
	for _, p := range f.aside {
		to, err := renameAside(p)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		known[to] = true
		done = append(done, p+" to "+to)
	}
	msg := fmt.Sprintf("the git directory %s, which appeared while commands ran in the sandbox, makes git run a program (%s), which your git, run outside the sandbox (git status in the workspace enters submodules), would run", f.dir, why)
	if len(done) > 0 {
		msg += "; it was set aside, renamed " + strings.Join(done, ", ") + ": rename it back only if you made it"
	}
	if len(failed) > 0 {
		msg += "; setting aside failed for " + strings.Join(failed, ", ") + ": delete it unless you made it, and do not run git in the workspace until then"
	}
	return msg
}

// renameAside renames p to the first free p+MadeSuffix[-N]; the error
// is the rename's, or errNoFreeAside.
func renameAside(p string) (string, error) {
	for n := 1; n < 100; n++ {
		to := p + MadeSuffix
		if n > 1 {
			to += "-" + strconv.Itoa(n)
		}
		if _, err := os.Lstat(to); !os.IsNotExist(err) {
			continue
		}
		if err := os.Rename(p, to); err != nil {
			return "", fmt.Errorf("renaming %s aside: %w", p, err)
		}
		return to, nil
	}
	return "", fmt.Errorf("renaming %s aside: %w", p, errNoFreeAside)
}

// errNoFreeAside: every NAME+MadeSuffix[-N] a rename aside may take is
// taken.
var errNoFreeAside = errors.New("too many " + MadeSuffix + " files")

// programNames are the variable names that name a program git runs, in
// whatever section: core.sshCommand, core.pager, core.editor,
// diff.<driver>.command and textconv, filter.<driver>.clean, smudge and
// process, merge.<driver>.driver, credential.helper, gpg.program,
// hook.<name>.command, difftool.<tool>.cmd, uploadpack.packObjectsHook,
// remote.<name>.uploadpack and receivepack…
var programNames = []string{
	"sshcommand", "pager", "editor", "askpass", "gitproxy", "alternaterefscommand",
	"command", "cmd", "textconv", "clean", "smudge", "process", "driver", "helper",
	"program", "defaultkeycommand", "external", "packobjectshook", "uploadpack",
	"receivepack", "difffilter", "browser", "hookspath",
}

// gitRunsProgram says e makes git run a program, or read a file that
// may (an include): a list, after git's documentation, that errs on the
// side of saying so.
func gitRunsProgram(e gitconfig.Entry) bool {
	switch {
	case e.IsInclude():
		return true
	case e.Section == "core" && e.Name == "fsmonitor":
		// true and false are git's own daemon, or none.
		_, err := strconv.ParseBool(e.Value)
		return err != nil && !slices.Contains([]string{"yes", "no", "on", "off", ""}, strings.ToLower(e.Value))
	case e.Section == "pager", e.Section == "sequence" && e.Name == "editor":
		return true
	case e.Name == "path" && slices.Contains([]string{"browser", "man", "difftool", "mergetool"}, e.Section):
		return true // the tool's program
	case e.Section == "sendemail" && e.Name == "smtpserver":
		return filepath.IsAbs(e.Value) // a sendmail-like program
	case e.Section == "protocol" && e.Name == "allow":
		return strings.EqualFold(e.Value, "always") // ext:: runs a command
	case e.Section == "alias", e.Section == "submodule" && e.Name == "update":
		return strings.HasPrefix(strings.TrimSpace(e.Value), "!")
	}
	return slices.Contains(programNames, e.Name)
}
