package geminils_test

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// The README is true on the day it is read: what these tests hold it to.
// Its install routes to a registry say "not yet published" until a
// release has reached that registry, its routes from a clone name make
// targets and files that exist, it says what `make test` installs and
// creates before the command, and the time it gives `make test` covers
// the last CI run's.

// publishedList is the committed list of the registries a release has
// reached, which turns their "not yet published" marks off.
const publishedList = "packaging/published-registries"

// unpublishedMark is what a README sentence naming a registry says while
// no release has reached it.
const unpublishedMark = "not yet published"

// registry is a place gemini-ls is installed from once a release reaches
// it, and how the README names a route to it.
type registry struct {
	name    string // as packaging/published-registries lists it
	mention string // a regexp of the README's words for a route to it
}

// registries are every registry the release workflow publishes to
// (docs/releasing.md), GitHub's release files first.
func registries() []registry {
	return []registry{
		{"github-release", `(?i)releases/|release's|latest release|from a release`},
		{"vscode-marketplace", `Marketplace|gemini-ls\.gemini-ls`},
		{"open-vsx", `Open VSX`},
		{"mason", `(?i)\bmason`},
		{"melpa", `MELPA|package-install RET gemini-ls`},
		{"acp-registry", `ACP registry`},
	}
}

// readmeProse is README.md without its fenced blocks and HTML comments,
// cut into sentences (a list item ends one too); blocks are its fenced
// shell blocks with their docs-test marks.
func readmeProse(t *testing.T) (sentences []string, blocks []readmeBlock) {
	t.Helper()
	readme := readFile(t, "README.md")
	blocks, err := shellBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	return sentencesOf(proseOf(readme)), blocks
}

// proseOf is markdown with its fenced blocks and HTML comments blanked.
func proseOf(markdown string) string {
	var prose []string
	inFence := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			prose = append(prose, "")
			continue
		}
		if inFence || strings.HasPrefix(strings.TrimSpace(line), "<!--") {
			line = ""
		}
		prose = append(prose, line)
	}
	return strings.Join(prose, "\n")
}

// sentencesOf cuts prose into sentences: at a full stop, question or
// exclamation mark followed by a space, outside a code span; at a blank
// line, a heading and the start of a list item.
func sentencesOf(prose string) []string {
	var sentences []string
	var cur strings.Builder
	flush := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			sentences = append(sentences, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(prose, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") {
			flush()
		}
		inCode := false
		for i, r := range trimmed {
			cur.WriteRune(r)
			if r == '`' {
				inCode = !inCode
			}
			if !inCode && strings.ContainsRune(".?!", r) && (i+1 == len(trimmed) || trimmed[i+1] == ' ') {
				flush()
			}
		}
		cur.WriteByte(' ')
	}
	flush()
	return sentences
}

// releaseTags are the repository's release tags, vX.Y.Z.
func releaseTags(t *testing.T) []string {
	t.Helper()
	platformtest.Tool(t, "git")
	out, err := exec.Command("git", "tag", "--list", "v[0-9]*.[0-9]*.[0-9]*").Output()
	if err != nil {
		t.Fatalf("git tag: %v", err)
	}
	return strings.Fields(string(out))
}

// publishedRegistries reads packaging/published-registries: a registry's
// name a line, # comments. It fails t on a name no registry has.
func publishedRegistries(t *testing.T) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	for _, r := range registries() {
		known[r.name] = true
	}
	published := map[string]bool{}
	for _, line := range strings.Split(readFile(t, publishedList), "\n") {
		name := strings.TrimSpace(line)
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if !known[name] {
			t.Fatalf("%s names %q, not a registry (%v)", publishedList, name, slices.Sorted(maps.Keys(known)))
		}
		published[name] = true
	}
	return published
}

// routeMarkErrors holds each sentence and shell block naming a registry
// to the mark: with it while the registry is not published, without it
// once every registry the sentence names is.
func routeMarkErrors(sentences []string, blocks []readmeBlock, published map[string]bool) []string {
	var errs []string
	check := func(where, text string, marked bool) {
		text = strings.Join(strings.Fields(text), " ") // a name may break across lines
		var unpublished, named []string
		for _, r := range registries() {
			if regexp.MustCompile(r.mention).MatchString(text) {
				named = append(named, r.name)
				if !published[r.name] {
					unpublished = append(unpublished, r.name)
				}
			}
		}
		switch {
		case len(unpublished) > 0 && !marked:
			errs = append(errs, fmt.Sprintf("%s names a route to %v without saying %q: %s", where, unpublished, unpublishedMark, text))
		case len(named) > 0 && len(unpublished) == 0 && marked:
			errs = append(errs, fmt.Sprintf("%s says %q of %v, published (%s): %s", where, unpublishedMark, named, publishedList, text))
		}
	}
	for _, s := range sentences {
		check("a sentence", s, strings.Contains(s, unpublishedMark))
	}
	for _, b := range blocks {
		check(fmt.Sprintf("the block at line %d", b.line), b.text, strings.Contains(b.mark, unpublishedMark))
	}
	return errs
}

// TestReadmeMarksUnpublishedRoutes holds README.md's routes to registries
// to what exists: a route to a registry says "not yet published" until a
// release tag exists and packaging/published-registries names the
// registry, and says it no longer after.
func TestReadmeMarksUnpublishedRoutes(t *testing.T) {
	published := publishedRegistries(t)
	tags := releaseTags(t)
	if len(tags) == 0 && len(published) > 0 {
		t.Errorf("%s names %v, but the repository has no release tag", publishedList, slices.Sorted(maps.Keys(published)))
		published = nil
	}
	sentences, blocks := readmeProse(t)
	for _, err := range routeMarkErrors(sentences, blocks, published) {
		t.Error(err)
	}
	for _, s := range sentences {
		if len(tags) > 0 && regexp.MustCompile(`(?i)\bno release\b`).MatchString(s) {
			t.Errorf("the repository has release tags %v, but README.md says: %s", tags, s)
		}
	}
}

// TestReadmeRouteMarksMutations feeds routeMarkErrors sentences with and
// without the mark, before and after a release.
func TestReadmeRouteMarksMutations(t *testing.T) {
	none, all := map[string]bool{}, map[string]bool{}
	for _, r := range registries() {
		all[r.name] = true
	}
	cases := []struct {
		text      string
		published map[string]bool
		bad       bool
	}{
		{"From the VS Code Marketplace: search gemini-ls.", none, true},
		{"From the VS Code Marketplace (not yet published): search gemini-ls.", none, false},
		{"Or mason's `:MasonInstall gemini-ls`.", none, true},
		{"Emacs, with MELPA in `package-archives`.", none, true},
		{"Zed lists the ACP registry in its agent panel.", none, true},
		{"The server from the latest release, unpacked onto `PATH`.", none, true},
		{"From a\n release, the server itself.", none, true},
		{"`code --install-extension gemini-ls.gemini-ls` installs it.", none, true},
		{"From Open VSX (not yet published).", all, true},
		{"From Open VSX.", all, false},
		{"`make install` puts the server on `PATH`.", none, false},
	}
	for _, c := range cases {
		errs := routeMarkErrors([]string{c.text}, nil, c.published)
		if bad := len(errs) > 0; bad != c.bad {
			t.Errorf("%q (%d published): errors %q, want an error: %v", c.text, len(c.published), errs, c.bad)
		}
	}
	block := readmeBlock{text: "curl -fLO https://github.com/gemini-ls/gemini-ls/releases/latest/download/SHA256SUMS\n", mark: "skip: downloads a release", line: 1}
	if errs := routeMarkErrors(nil, []readmeBlock{block}, none); len(errs) == 0 {
		t.Error("a shell block downloading a release, unmarked, drew no error")
	}
	block.mark = "skip: not yet published: downloads a release"
	if errs := routeMarkErrors(nil, []readmeBlock{block}, none); len(errs) > 0 {
		t.Errorf("a marked shell block drew %q", errs)
	}
	if got := sentencesOf("One `a. b` two. Three\n- four\n\nfive"); !slices.Equal(got, []string{"One `a. b` two.", "Three", "- four", "five"}) {
		t.Errorf("sentencesOf cut %q", got)
	}
}

// makeTarget is a target of the Makefile: its prerequisites and its
// recipe's lines.
type makeTarget struct {
	deps   []string
	recipe []string
}

// makeTargets are the Makefile's targets by name.
func makeTargets(t *testing.T) map[string]*makeTarget {
	t.Helper()
	targets := map[string]*makeTarget{}
	var cur *makeTarget
	rule := regexp.MustCompile(`^([A-Za-z0-9_-]+):(?:\s+(.*))?$`)
	sc := bufio.NewScanner(strings.NewReader(readFile(t, "Makefile")))
	for sc.Scan() {
		line := sc.Text()
		if m := rule.FindStringSubmatch(line); m != nil {
			cur = &makeTarget{deps: strings.Fields(m[2])}
			targets[m[1]] = cur
			continue
		}
		if cur != nil && strings.HasPrefix(line, "\t") {
			cur.recipe = append(cur.recipe, line)
		} else if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" && !strings.HasSuffix(line, "\\") {
			cur = nil
		}
	}
	return targets
}

// TestReadmeCloneRoutesExist holds README.md's routes from a clone to
// what the clone has: every `make TARGET` it gives (in code and in its
// shell blocks) is a target of the Makefile, and every file or folder of
// the repository it names in code or links to is there. Build outputs
// (under a dist/ or build/ folder) and paths with a pattern (*) or a
// placeholder in capitals are not files to look for.
func TestReadmeCloneRoutesExist(t *testing.T) {
	readme := readFile(t, "README.md")
	targets := makeTargets(t)
	var code []string
	prose := strings.Join(strings.Fields(proseOf(readme)), " ") // a code span may break across lines
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose, -1) {
		code = append(code, m[1])
	}
	blocks, err := shellBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		code = append(code, strings.Split(b.text, "\n")...)
	}
	makes := regexp.MustCompile(`(?:^|[;&|(]\s*)make((?:\s+[A-Za-z0-9_=.-]+)*)`)
	targetName := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	checked := 0
	for _, c := range code {
		for _, m := range makes.FindAllStringSubmatch(c, -1) {
			for _, word := range strings.Fields(m[1]) {
				if !targetName.MatchString(word) {
					continue // a flag, VAR=value, or a redirection's 2
				}
				checked++
				if targets[word] == nil {
					t.Errorf("README.md runs `make %s`: the Makefile has no target %s", strings.TrimSpace(m[1]), word)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("README.md gives no make target: the check found nothing to check")
	}
	for _, p := range repositoryPaths(readme, code) {
		if _, err := os.Stat(filepath.FromSlash(p)); err != nil {
			t.Errorf("README.md names %s, which the clone does not have", p)
		}
	}
}

// repositoryPaths are the paths of this repository that readme links to
// or that its code spans and shell lines name, relative to its root.
func repositoryPaths(readme string, code []string) []string {
	var paths []string
	top := regexp.MustCompile(`(?:^|[\s(="'])(?:\./)?((?:editors|scripts|cmd|internal|docs|packaging|bench|\.ci)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*-])`)
	for _, c := range code {
		for _, m := range top.FindAllStringSubmatch(c, -1) {
			paths = append(paths, m[1])
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)`).FindAllStringSubmatch(readme, -1) {
		if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
			paths = append(paths, strings.TrimPrefix(m[1], "./"))
		}
	}
	placeholder := regexp.MustCompile(`\b[A-Z]{2,}(?:-[A-Z]+)*\b`)
	var files []string
	for _, p := range paths {
		segs := strings.Split(p, "/")
		if strings.Contains(p, "*") || slices.Contains(segs, "dist") || slices.Contains(segs, "build") ||
			(placeholder.MatchString(p) && !strings.HasSuffix(p, ".md")) {
			continue
		}
		files = append(files, p)
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// lastCITestSeconds reads .ci/last-run.txt's "ci: make test took N s".
func lastCITestSeconds(t *testing.T) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^ci: make test took (\d+) s$`).FindStringSubmatch(readFile(t, ".ci/last-run.txt"))
	if m == nil {
		t.Fatal(`.ci/last-run.txt has no "ci: make test took N s" line, as .ci/run prints it`)
	}
	secs, err := strconv.Atoi(m[1])
	if err != nil || secs <= 0 {
		t.Fatalf(".ci/last-run.txt: make test took %q s", m[1])
	}
	return secs
}

// makeTestTimeErrors holds what sentences say of `make test`'s time to
// the last CI run's, secs: a time in minutes covers it, by less than five
// minutes more (the README rounds up, not far); a time in seconds is the
// CI run's, as .ci/last-run.txt has it. There must be at least one of
// each.
func makeTestTimeErrors(sentences []string, secs int) []string {
	var errs []string
	minutes := regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(minutes|min|hours?)\b`)
	seconds := regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})*|\d+)\s*s\b`)
	var stated, quoted int
	for _, s := range sentences {
		if !strings.Contains(s, "`make test`") {
			continue
		}
		for _, m := range minutes.FindAllStringSubmatch(s, -1) {
			stated++
			n, _ := strconv.ParseFloat(m[1], 64)
			if strings.HasPrefix(m[2], "hour") {
				n *= 60
			}
			if got := int(n * 60); got < secs || got-secs >= 300 {
				errs = append(errs, fmt.Sprintf("%q says %s %s, the last CI run's make test took %d s (%.1f minutes): say about %d minutes", s, m[1], m[2], secs, float64(secs)/60, (secs+299)/300*5))
			}
		}
		for _, m := range seconds.FindAllStringSubmatch(s, -1) {
			quoted++
			if n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); n != secs {
				errs = append(errs, fmt.Sprintf("%q quotes %s s, the last CI run's make test took %d s (.ci/last-run.txt)", s, m[1], secs))
			}
		}
	}
	if stated == 0 || quoted == 0 {
		errs = append(errs, fmt.Sprintf("no sentence naming `make test` says how long it takes, in minutes and in the last CI run's seconds (%d s)", secs))
	}
	return errs
}

// TestReadmeMakeTestTime holds what README.md says of `make test`'s time
// to .ci/last-run.txt, the last CI run's figures.
func TestReadmeMakeTestTime(t *testing.T) {
	sentences, _ := readmeProse(t)
	for _, err := range makeTestTimeErrors(sentences, lastCITestSeconds(t)) {
		t.Error(err)
	}
}

// TestReadmeMakeTestTimeMutations feeds makeTestTimeErrors what the
// README said before (about 12 minutes) and other wrong times.
func TestReadmeMakeTestTimeMutations(t *testing.T) {
	const secs = 1430
	good := "On a fresh machine `make test` takes about 25 minutes on two cores: 1,430 s in the last CI run."
	if errs := makeTestTimeErrors([]string{good}, secs); len(errs) > 0 {
		t.Errorf("%q drew %q", good, errs)
	}
	for _, bad := range []string{
		"On a fresh machine the first `make test` takes about 12 minutes on two cores: 1,430 s in the last CI run.",
		"`make test` takes about 45 minutes: 1,430 s in the last CI run.",
		"`make test` takes about 25 minutes: 715 s in the last CI run.",
		"`make test` takes about 25 minutes.",
	} {
		if errs := makeTestTimeErrors([]string{bad}, secs); len(errs) == 0 {
			t.Errorf("%q drew no error", bad)
		}
	}
}

// whatMakeTestChanges is what `make test` installs and creates on the
// machine, read from the Makefile and the scripts its targets run: the
// Debian packages, the chroots' suites and the user it makes.
func whatMakeTestChanges(t *testing.T) (debs, chroots []string, user string) {
	t.Helper()
	targets := makeTargets(t)
	script := regexp.MustCompile(`\bbash (\S+\.sh)\b(?:\s+(\w+))?`)
	for _, name := range reachableTargets(targets, "test") {
		for _, line := range targets[name].recipe {
			debs = append(debs, debsInstalled(line)...)
			for _, m := range script.FindAllStringSubmatch(line, -1) {
				if strings.HasSuffix(m[1], "newer-editors.sh") && m[2] != "" {
					chroots = append(chroots, m[2])
				}
				d, c := scriptChanges(t, m[1])
				debs, chroots = append(debs, d...), append(chroots, c...)
			}
		}
	}
	m := regexp.MustCompile(`(?m)^ROOTLESS_USER = (\S+)$`).FindStringSubmatch(readFile(t, "Makefile"))
	if m == nil || len(debs) == 0 || len(chroots) == 0 {
		t.Fatalf("the Makefile no longer reads as this test expects: user %q, debs %q, chroots %q", m, debs, chroots)
	}
	slices.Sort(debs)
	slices.Sort(chroots)
	return slices.Compact(debs), slices.Compact(chroots), m[1]
}

// reachableTargets are the targets make runs for target, itself included:
// its prerequisites, and the targets its recipe runs with $(MAKE) (as
// test-editors' lanes do), each followed in turn.
func reachableTargets(targets map[string]*makeTarget, target string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(name string) {
		if seen[name] || targets[name] == nil {
			return
		}
		seen[name] = true
		for _, d := range targets[name].deps {
			walk(d)
		}
		for _, line := range targets[name].recipe {
			for _, d := range recursiveMakeGoals(line) {
				walk(d)
			}
		}
	}
	walk(target)
	return slices.Sorted(maps.Keys(seen))
}

// recursiveMakeGoals are the targets a recipe line names to $(MAKE): the
// words after it up to a quote, a shell operator or the line's end, its
// flags and variable settings left out.
func recursiveMakeGoals(line string) []string {
	var goals []string
	for _, m := range regexp.MustCompile(`\$\(MAKE\)([^'"|;&]*)`).FindAllStringSubmatch(line, -1) {
		for _, w := range strings.Fields(m[1]) {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				goals = append(goals, w)
			}
		}
	}
	return goals
}

// debsInstalled are the Debian packages text names to scripts/debs.sh,
// in a Makefile's recipe or a script.
func debsInstalled(text string) []string {
	var debs []string
	for _, m := range regexp.MustCompile(`scripts/debs\.sh"?((?:[ \t]+[a-z0-9][a-z0-9.+-]*)+)`).FindAllStringSubmatch(text, -1) {
		debs = append(debs, strings.Fields(m[1])...)
	}
	return debs
}

// scriptChanges are the Debian packages a script installs on the host
// (its debs=(...) list, the names it gives scripts/debs.sh) and the chroot
// it makes under ~/.cache/gemini-ls by a fixed name.
func scriptChanges(t *testing.T, path string) (debs, chroots []string) {
	t.Helper()
	text := readFile(t, path)
	if m := regexp.MustCompile(`(?m)^debs=\(([^)]*)\)`).FindStringSubmatch(text); m != nil {
		debs = strings.Fields(m[1])
	}
	debs = append(debs, debsInstalled(text)...)
	for _, m := range regexp.MustCompile(`(?m)^cache=\$\{GEMINI_LS_CHROOTS:-\$HOME/\.cache/gemini-ls\}/([a-z0-9-]+)$`).FindAllStringSubmatch(text, -1) {
		chroots = append(chroots, m[1])
	}
	return debs, chroots
}

// beforeMakeTest is the text of README.md's section heading from its
// heading to the section's `make test` block, or "" when it has none.
func beforeMakeTest(readme, heading string) string {
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	before, _, ok := strings.Cut(section, "```sh\nmake test\n```")
	if !ok {
		return ""
	}
	return before
}

// TestReadmeSaysWhatMakeTestChanges holds README.md to saying, before
// each `make test` block, what the command does to the machine: the Test
// section names every Debian package its targets install, every chroot
// and the system user, and the Quick start the user, the chroots and the
// number of packages, pointing to the Test section.
func TestReadmeSaysWhatMakeTestChanges(t *testing.T) {
	readme := readFile(t, "README.md")
	debs, chroots, user := whatMakeTestChanges(t)
	test := beforeMakeTest(readme, "## Test")
	quick := beforeMakeTest(readme, "## Quick start")
	if test == "" || quick == "" {
		t.Fatal("README.md's Quick start and Test sections each have a `make test` block, after what it does to the machine")
	}
	word := func(text, w string) bool {
		return regexp.MustCompile(`(^|[^\w.-])` + regexp.QuoteMeta(w) + `($|[^\w-])`).MatchString(text)
	}
	for _, d := range debs {
		if !word(test, d) {
			t.Errorf("the Test section does not say, before `make test`, that it installs the Debian package %s", d)
		}
	}
	for _, c := range chroots {
		if !strings.Contains(test, "`"+c+"`") {
			t.Errorf("the Test section does not name, before `make test`, the chroot `%s` it makes", c)
		}
	}
	count := fmt.Sprintf("%d Debian packages", len(debs))
	for name, text := range map[string]string{"Test": test, "Quick start": quick} {
		for _, want := range []string{user, "system user", "~/.cache/gemini-ls", fmt.Sprintf("%s Debian chroots", spelled(len(chroots)))} {
			if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
				t.Errorf("the %s section does not say %q before `make test`", name, want)
			}
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(quick), " "), count) || !strings.Contains(quick, "(#test)") {
		t.Errorf("the Quick start does not say, before `make test`, %q and point to [Test](#test)", count)
	}
}

// spelled is n in words, as the README writes a small count.
func spelled(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

// readFile is the text of the repository's file at path, slash-separated,
// with LF line ends, as a Windows checkout may not have them.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}
