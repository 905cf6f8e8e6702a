package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/gitignore/gitignoretest"
)

// gitCase is a tree of ignore files and paths, held to git's word on
// each path of it.
type gitCase struct {
	name string
	// files are the ignore files (.gitignore in any directory,
	// .git/info/exclude) by slash-separated path, and their content.
	files map[string]string
	// paths are made, empty: a trailing '/' makes a directory.
	paths []string
	fold  bool // core.ignorecase
}

// gitCases are issue 84's cases, where go-git's matcher and git
// differed, and more of git's rules.
var gitCases = []gitCase{
	// Issue 84.
	{name: "a negated class", files: map[string]string{".gitignore": "secret[!s].txt\n"},
		paths: []string{"secret1.txt", "secrets.txt", "secret.txt", "sub/secretx.txt"}},
	{name: "** not a whole component is *", files: map[string]string{".gitignore": "secrets/**.json\n/**.key\n"},
		paths: []string{"secrets/a.json", "secrets/x/b.json", "secrets.json", "x/secrets/a.json", "a.key", "d/b.key", ".key"}},
	{name: "a/** hides what is inside, not a file a", files: map[string]string{".gitignore": "a/**\nb/**\n"},
		paths: []string{"a", "b/", "b/c", "b/d/e", "x/b/c"}},
	{name: "classes and bytes that are not UTF-8", files: map[string]string{".gitignore": "[\xff]x\n[\xc3\xa9]y\n?z\n[!\xc3]w\n[a-\xff]v\n\xe9*.bin\n"},
		paths: []string{"\xffx", "\xc3y", "\xa9y", "éy", "\xffz", "éz", "ew", "\xc3w", "\xa9w", "qv", "\xfev", "\xe9a.bin", "é.bin"}},

	// ** as a whole component.
	{name: "leading **/", files: map[string]string{".gitignore": "**/foo\n**/bar/baz\n"},
		paths: []string{"foo", "a/foo", "a/b/foo/", "bar/baz", "x/bar/baz", "bar/x/baz"}},
	{name: "/**/ in the middle", files: map[string]string{".gitignore": "a/**/b\n/c/**/d/\n"},
		paths: []string{"a/b", "a/x/b", "a/x/y/b", "q/a/b", "ab", "c/d/", "c/x/d/", "c/y/d"}},
	{name: "trailing /** and **", files: map[string]string{".gitignore": "x/**\n**\n!keep/\n!keep/**\n"},
		paths: []string{"x/a", "keep/", "keep/a", "other"}},
	{name: "** after a literal is *", files: map[string]string{".gitignore": "foo**/bar\nq**\n"},
		paths: []string{"foobar", "foo/bar", "foox/bar", "foo/x/bar", "qq", "a/qx"}},
	{name: "**/ alone and */", files: map[string]string{".gitignore": "**/\n"},
		paths: []string{"d/", "d/e/", "d/f"}},
	{name: "* and ? stop at /", files: map[string]string{".gitignore": "a/*.c\nb/?\n*/m/*\n"},
		paths: []string{"a/x.c", "a/b/x.c", "b/c", "b/e/d", "q/m/z", "q/r/m/z"}},

	// What a line is.
	{name: "trailing spaces", files: map[string]string{".gitignore": "one  \ntwo\\ \nthree\\  \nfour \\\n\t tab\t\n"},
		paths: []string{"one", "one  ", "two", "two ", "three ", "three  ", "four \\", "four ", "\t tab\t", "\t tab"}},
	{name: "escaped # and !, comments", files: map[string]string{".gitignore": "#hash\n\\#hash\n\\!bang\n !space\n"},
		paths: []string{"#hash", "!bang", "bang", " !space"}},
	{name: "CRLF, a BOM, a NUL byte", files: map[string]string{".gitignore": "\ufeffbom.txt\r\ncr.txt\r\r\nnul.txt\x00more\nlast"},
		paths: []string{"bom.txt", "cr.txt", "cr.txt\r", "nul.txt", "nul.txtmore", "last"}},
	{name: "empty rules match nothing", files: map[string]string{".gitignore": "!\n/\n!/\n//\n \n"},
		paths: []string{"a", "b/"}},

	// Anchoring and directories.
	{name: "a leading or middle / anchors", files: map[string]string{".gitignore": "/top.txt\nsub/mid.txt\nany.txt\n"},
		paths: []string{"top.txt", "d/top.txt", "sub/mid.txt", "d/sub/mid.txt", "any.txt", "d/e/any.txt"}},
	{name: "a trailing / is a directory", files: map[string]string{".gitignore": "build/\n/out/\n"},
		paths: []string{"build/", "build/x", "d/build", "e/build/", "out", "f/out/"}},
	{name: "an escaped /", files: map[string]string{".gitignore": "a\\/b\n"},
		paths: []string{"a/b", "x/a/b"}},

	// Negation and precedence.
	{name: "a parent directory excluded cannot be re-included", files: map[string]string{".gitignore": "dir/\n!dir/keep.txt\nother/*\n!other/keep.txt\n"},
		paths: []string{"dir/keep.txt", "dir/x", "other/keep.txt", "other/x"}},
	{name: "later rules win", files: map[string]string{".gitignore": "*.txt\n!important.txt\nimportant.txt\n!*.md\n*.md\n"},
		paths: []string{"a.txt", "important.txt", "a.md"}},
	{name: "deeper .gitignore over higher, anchored to its own directory", files: map[string]string{
		".gitignore": "*.txt\n/sub/own\n", "sub/.gitignore": "!keep.txt\n/local.txt\ndeep/x\n", "sub/deep/.gitignore": "!*.log\n",
	}, paths: []string{"a.txt", "sub/keep.txt", "sub/a.txt", "sub/local.txt", "sub/deep/local.txt", "sub/deep/x", "sub/own", "x/keep.txt"}},
	{name: ".git/info/exclude below .gitignore", files: map[string]string{".git/info/exclude": "*.md\nx.log\n", ".gitignore": "!README.md\n"},
		paths: []string{"README.md", "a.md", "x.log"}},
	{name: "an ignored directory's .gitignore is not read", files: map[string]string{".gitignore": "d/\n", "d/.gitignore": "!*\n"},
		paths: []string{"d/a"}},

	// Classes.
	{name: "named classes", files: map[string]string{".gitignore": "[[:digit:]]*.log\n[[:space:]]s\n[[:upper:]]u\n[[:punct:]]p\n[[:xdigit:]]h\n[[:alpha:]-z]r\n[[:blank:]]b\n[[:graph:]]g\n[[:cntrl:]]c\n"},
		paths: []string{"1.log", "a.log", " s", "\vs", "\fs", "\rs", "Uu", "uu", "!p", "~p", "_p", "fh", "gh", "-r", "zr", "ar", " b", "\tb", "xg", " g", "\x01c", "\x7fc"}},
	{name: "malformed classes", files: map[string]string{".gitignore": "[[:bogus:]]x\n[[:]y\n[]]z\n[!]]w\n[\\]]v\n[a-]u\n[z-a]t\n[--0]s\nunclosed[\n"},
		paths: []string{"ax", ":x", "[y", ":y", "]z", "az", "]w", "aw", "]v", "-u", "au", "zt", "at", "-s", ".s", "unclosed[", "unclosed"}},

	// Case: core.ignorecase, as on Windows and macOS.
	{name: "case-sensitive", files: map[string]string{".gitignore": "Secret.txt\n*.LOG\n"},
		paths: []string{"secret.txt", "Secret.txt", "x.log", "x.LOG"}},
	{name: "folded", fold: true, files: map[string]string{".gitignore": "Secret.txt\n*.LOG\nDir/\n[A-C]x\n[a]y\n[A]z\n\\Aw\n[[:upper:]]u\n[[:lower:]]l\nsub/K*\n"},
		paths: []string{"secret.txt", "SECRET.TXT", "x.log", "dir/", "bx", "Bx", "Ay", "az", "Az", "Aw", "aw", "uu", "Ll", "SUB/k1"}},
}

// TestIgnoreMatchesGit: for every path of every case's tree, Ignored and
// a walk say what git check-ignore says: whether the path is ignored by
// .gitignore files and .git/info/exclude; the same rules in .geminiignore
// files say the same.
func TestIgnoreMatchesGit(t *testing.T) {
	git := gitignoretest.Git(t)
	version := gitignoretest.Version(t, git)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			ours, theirs, err := gitTrees(t, version, c.files, c.paths)
			if err != nil {
				t.Fatal(err)
			}
			paths := treePaths(t, theirs)
			verdicts := gitignoretest.CheckIgnore(t, git, theirs, c.fold, paths)
			checkIgnoredAsGit(t, ours, c.fold, IgnoreFiles{SkipGemini: true}, verdicts)
			if _, ok := c.files[".git/info/exclude"]; !ok {
				asGemini(t, ours)
				checkIgnoredAsGit(t, ours, c.fold, IgnoreFiles{SkipGit: true}, verdicts)
			}
		})
	}
}

// gitTrees makes two trees of files and paths: ours, read by the
// workspace, and git's, where each ignore file holds what the git
// installed must read to mean what ours means (gitignoretest.ForGit);
// one tree where git reads the files as they are.
// A path that cannot be made (one a file where another path needs a
// directory, a name the file system refuses) is an error.
func gitTrees(t testing.TB, version [2]int, files map[string]string, paths []string) (ours, theirs string, err error) {
	t.Helper()
	base := t.TempDir()
	ours = filepath.Join(base, "ours")
	if err := makeTree(t, ours, files, paths); err != nil {
		return "", "", err
	}
	forGit := map[string]string{}
	for name, content := range files {
		if again := gitignoretest.ForGit(version, content); again != content {
			forGit[name] = again
		}
	}
	if len(forGit) == 0 {
		return ours, ours, nil
	}
	theirs = filepath.Join(base, "git")
	for name, content := range files {
		if _, ok := forGit[name]; !ok {
			forGit[name] = content
		}
	}
	return ours, theirs, makeTree(t, theirs, forGit, paths)
}

// makeTree makes a repository at root holding files and paths.
func makeTree(t testing.TB, root string, files map[string]string, paths []string) error {
	t.Helper()
	gitignoretest.Repo(t, root)
	for _, p := range paths {
		if err := makePath(root, p); err != nil {
			return err
		}
	}
	for name, content := range files {
		if err := writeFile(root, name, content); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

// makePath makes the directory p (ending in '/') or the empty file p
// below root, and the directories holding it.
func makePath(root, p string) error {
	full := filepath.Join(root, filepath.FromSlash(p))
	if strings.HasSuffix(p, "/") {
		return os.MkdirAll(full, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, nil, 0o644)
}

// writeFile writes content to the file name (slash-separated) below
// root, making the directories holding it.
func writeFile(root, name, content string) error {
	full := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(content), 0o644)
}

// treePaths are the paths of every file and directory below root, .git
// aside, slash-separated.
func treePaths(t testing.TB, root string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, path)
		paths = append(paths, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// asGemini renames every .gitignore below root .geminiignore.
func asGemini(t testing.TB, root string) {
	t.Helper()
	for _, p := range treePaths(t, root) {
		if filepath.Base(p) == ".gitignore" {
			full := filepath.Join(root, filepath.FromSlash(p))
			if err := os.Rename(full, filepath.Join(filepath.Dir(full), ".geminiignore")); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkIgnoredAsGit holds a workspace over root, counting files, to each
// of git's verdicts, through Ignored and through a walk's entries (a
// .gitignore's verdict stands for the .geminiignore it became).
func checkIgnoredAsGit(t testing.TB, root string, fold bool, files IgnoreFiles, verdicts []gitignoretest.Verdict) {
	t.Helper()
	home := t.TempDir()
	checkWorkspaceAsGit(t, gitWorkspace(t, root, fold, map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}), files, verdicts)
}

// gitWorkspace is a workspace over root folding case as fold says (as
// git does without core.ignorecase set), reading git's variables from
// env alone, as the test's git run does.
func gitWorkspace(t testing.TB, root string, fold bool, env map[string]string) *Workspace {
	t.Helper()
	w, err := New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.foldIgnoreCase = fold
	w.lookupEnv = func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
	return w
}

// checkWorkspaceAsGit holds w, counting files, to each of git's verdicts
// on paths relative to its root, through Ignored and a walk's entries.
func checkWorkspaceAsGit(t testing.TB, w *Workspace, files IgnoreFiles, verdicts []gitignoretest.Verdict) {
	t.Helper()
	w.SetIgnoreFiles(files)
	walked := walkIgnored(t, w)
	for _, v := range verdicts {
		p := v.Path
		if files.SkipGit && filepath.Base(p) == ".gitignore" {
			p = strings.TrimSuffix(p, ".gitignore") + ".geminiignore"
		}
		ignored, err := w.Ignored(context.Background(), filepath.Join(w.Roots()[0], filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("Ignored(%q): %v", p, err)
		}
		if ignored != v.Ignored() {
			t.Errorf("%+v: Ignored(%q) = %v, git says %s", files, p, ignored, v)
		}
		if underSkipped(p) {
			continue // the walk never shows it
		}
		if inWalk, ok := walked[p]; !ok || inWalk != v.Ignored() {
			t.Errorf("%+v: a walk has %q (seen %v) ignored %v, git says %s", files, p, ok, inWalk, v)
		}
	}
}

// underSkipped reports whether a walk never enters or shows the path
// (alwaysSkipped).
func underSkipped(path string) bool {
	parent := ""
	for part := range strings.SplitSeq(path, "/") {
		if alwaysSkipped(parent, part) {
			return true
		}
		parent = part
	}
	return false
}

// walkIgnored is whether a walk of w's root has each path ignored.
func walkIgnored(t testing.TB, w *Workspace) map[string]bool {
	t.Helper()
	root := w.Roots()[0]
	var mu sync.Mutex
	ignored := map[string]bool{}
	_, err := w.Walk(context.Background(), root, WalkOptions{}, func(e DirEntry) error {
		rel, err := filepath.Rel(root, e.Path)
		mu.Lock()
		defer mu.Unlock()
		ignored[filepath.ToSlash(rel)] = e.Ignored
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ignored
}

// FuzzIgnoreMatchesGit: whatever the rules of a root's .gitignore and of
// one in the directory below it, a path and each directory holding it
// are ignored (Ignored, a walk) exactly when git check-ignore says so,
// with core.ignorecase or without, and the same rules in .geminiignore
// files say the same. One git run an input.
//
//	go test -run '^$' -fuzz FuzzIgnoreMatchesGit ./internal/workspace/
func FuzzIgnoreMatchesGit(f *testing.F) {
	// Two seeds a case: each a git run, and TestIgnoreMatchesGit checks
	// every path of them.
	for _, c := range gitCases {
		for _, p := range []string{c.paths[0], c.paths[len(c.paths)-1]} {
			f.Add(c.files[".gitignore"], c.files["sub/.gitignore"], strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/"), c.fold)
		}
	}
	git := gitignoretest.Git(f)
	version := gitignoretest.Version(f, git)
	f.Fuzz(func(t *testing.T, rules, nested, path string, isDir, fold bool) {
		if len(rules) > 4096 || len(nested) > 4096 {
			return
		}
		parts := fuzzPath(path)
		if len(parts) == 0 {
			return
		}
		files := map[string]string{".gitignore": rules}
		if len(parts) > 1 {
			files[parts[0]+"/.gitignore"] = nested
		}
		var paths []string // the path and every directory holding it
		for i := range parts {
			paths = append(paths, strings.Join(parts[:i+1], "/"))
		}
		made := paths[len(paths)-1]
		if isDir {
			made += "/"
		}
		ours, theirs, err := gitTrees(t, version, files, []string{made})
		if err != nil {
			t.Skipf("the file system refuses %q: %v", made, err)
		}
		verdicts := gitignoretest.CheckIgnore(t, git, theirs, fold, paths)
		checkIgnoredAsGit(t, ours, fold, IgnoreFiles{SkipGemini: true}, verdicts)
		asGemini(t, ours)
		checkIgnoredAsGit(t, ours, fold, IgnoreFiles{SkipGit: true}, verdicts)
	})
}

// fuzzPath is path's components that a file system and git both take
// as a plain name: no NUL byte, not empty, ".", "..", .git or an ignore
// file's name (the test writes those), at most 4 of them, each at most 64
// bytes.
func fuzzPath(path string) []string {
	var parts []string
	for part := range strings.SplitSeq(strings.ReplaceAll(path, "\x00", ""), "/") {
		if len(part) > 64 {
			part = part[:64]
		}
		switch part {
		case "", ".", "..", ".git", ".gitignore", ".geminiignore":
			continue
		}
		if parts = append(parts, part); len(parts) == 4 {
			break
		}
	}
	return parts
}

// TestIgnoreMatchesGitOnRandomRules holds a few hundred rules made of
// glob pieces at random (one seed, the same every run) to git's word on
// paths made of names at random, with core.ignorecase and without: each
// rule is the .gitignore of a directory of its own, so that one git run
// answers for them all. Rules an older git reads otherwise
// (gitignoretest.ForGit; TestIgnoreMatchesGit and the fuzz target hold
// those) are drawn again, so that git reads the workspace's own tree.
func TestIgnoreMatchesGitOnRandomRules(t *testing.T) {
	git := gitignoretest.Git(t)
	version := gitignoretest.Version(t, git)
	rnd := rand.New(rand.NewPCG(84, 1))
	files := map[string]string{}
	var paths []string
	for i := range 300 {
		dir := fmt.Sprintf("r%03d", i)
		rules := randomRules(rnd)
		for gitignoretest.ForGit(version, rules) != rules {
			rules = randomRules(rnd)
		}
		files[dir+"/.gitignore"] = rules
		for range 12 {
			paths = append(paths, dir+"/"+randomPath(rnd))
		}
	}
	root := t.TempDir()
	gitignoretest.Repo(t, root)
	for _, p := range paths {
		_ = makePath(root, p) // one a file made its directory is left out
	}
	for name, content := range files {
		if err := writeFile(root, name, content); err != nil {
			t.Fatal(err)
		}
	}
	inTree := treePaths(t, root)
	for _, fold := range []bool{false, true} {
		verdicts := gitignoretest.CheckIgnore(t, git, root, fold, inTree)
		checkIgnoredAsGit(t, root, fold, IgnoreFiles{SkipGemini: true}, verdicts)
	}
}

// rulePieces are what randomRules builds a rule of.
var rulePieces = []string{
	"a", "b", "ab", ".", "-", "x", "A", "\xc3\xa9", "\xff", " ", "!", "#",
	"*", "*", "**", "***", "a**b", "?", "/", "/", "**/", "/**", "/**/",
	"[ab]", "[!a]", "[^b]", "[a-c]", "[A-Z]", "[z-a]", "[]a]", "[a-]", "[\\]]", "[\xc3-\xff]", "[/]", "[!/]",
	"[[:alpha:]]", "[[:upper:]]", "[[:space:]]", "[[:punct:]]", "[[:bogus:]]", "[[:", "[:alpha:]]",
	"\\*", "\\a", "\\ ", "\\/", "\\",
}

// randomRules is one to three rules, a few a negation, comment or
// directory rule.
func randomRules(rnd *rand.Rand) string {
	var b strings.Builder
	for range 1 + rnd.IntN(3) {
		switch rnd.IntN(8) {
		case 0:
			b.WriteString("!")
		case 1:
			b.WriteString("#")
		}
		for range 1 + rnd.IntN(4) {
			b.WriteString(rulePieces[rnd.IntN(len(rulePieces))])
		}
		if rnd.IntN(5) == 0 {
			b.WriteString("/")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// pathNames are what randomPath builds a path of.
var pathNames = []string{"a", "b", "ab", "ba", "aa", ".a", "a.b", "x", "-", "A", "B", "AB", "\xc3\xa9", "\xff", "*", "[", "]", "\\", " ", "a b", "b/"}

// randomPath is one to three names, a directory when it ends in '/'.
func randomPath(rnd *rand.Rand) string {
	var parts []string
	for range 1 + rnd.IntN(3) {
		parts = append(parts, strings.TrimSuffix(pathNames[rnd.IntN(len(pathNames))], "/"))
	}
	p := strings.Join(parts, "/")
	if rnd.IntN(3) == 0 {
		p += "/"
	}
	return p
}
