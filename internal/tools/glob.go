package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// maxIgnoredWalk bounds how many ignored entries glob visits to count them.
	maxIgnoredWalk = 10000
	// maxGlobFiles bounds how many files glob lists: the most recently
	// modified ones, with a count of the rest. Gemini CLI lists every
	// match; a million paths would overflow the model's context.
	maxGlobFiles = 2000
)

type globTool struct{ ws *workspace.Workspace }

// glob is the glob tool over ws.
func glob(ws *workspace.Workspace) *Defined[globParams] {
	t := &globTool{ws: ws}
	return Define(Spec{
		Name: GlobName,
		Description: "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), " +
			"returning paths relative to the workspace root (absolute outside it), sorted by modification time (newest first). Ideal for quickly locating files based on their name or path structure, especially in large codebases. " +
			"Skips .git, node_modules and ignored files.",
		Annotations: Annotations{Kind: dialog.KindSearch, ReadOnly: true},
		Aliases:     []string{"GlobTool"},
	}, t.build)
}

// globParams are glob's parameters, as Gemini CLI 0.61 declares them.
// Older calls' path is normalized to dir_path; their ignore, which 0.61
// does not have, still works.
type globParams struct {
	Pattern             string   `json:"pattern" jsonschema:"The glob pattern to match against paths relative to the search directory (e.g., '**/*.py', 'docs/*.md'; \"*\" does not cross \"/\", \"**\" does)."`
	DirPath             *string  `json:"dir_path,omitempty" was:"path" jsonschema:"Optional: The path to the directory to search within: absolute, or relative to the workspace root. If omitted, searches the workspace root."`
	CaseSensitive       bool     `json:"case_sensitive,omitempty" jsonschema:"Optional: Whether the search should be case-sensitive. Defaults to false."`
	RespectGitIgnore    *bool    `json:"respect_git_ignore,omitempty" jsonschema:"Optional: Whether to respect .gitignore patterns when finding files. Defaults to true."`
	RespectGeminiIgnore *bool    `json:"respect_gemini_ignore,omitempty" jsonschema:"Optional: Whether to respect .geminiignore patterns when finding files. Defaults to true; false changes nothing: .geminiignore always holds (only the user's settings lift it)."`
	Ignore              []string `json:"ignore,omitempty" param:"undeclared"`
}

// build is the call p asks for.
func (t *globTool) build(p globParams) (Call, error) {
	pattern, ignore, caseSensitive := p.Pattern, p.Ignore, p.CaseSensitive
	if strings.TrimSpace(pattern) == "" {
		return nil, errors.New("The 'pattern' parameter must be non-empty.")
	}
	if err := validatePatterns("ignore", ignore); err != nil {
		return nil, err
	}
	// respect_gemini_ignore false lifts nothing: .geminiignore is the
	// user's, which only settings lift (gitIgnoreLifted).
	liftGit := !orTrue(p.RespectGitIgnore)
	dir, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	hasPath := p.DirPath != nil
	if hasPath {
		if dir, err = resolvePath(t.ws, "dir_path", *p.DirPath); err != nil {
			return nil, err
		}
	}
	// An absolute pattern inside the search directory is made relative to it.
	match := filepath.ToSlash(pattern)
	if abs, ok := absolutePattern(pattern, dir); ok {
		rel, err := filepath.Rel(dir, abs)
		if err != nil || climbsOut(rel) {
			return nil, fmt.Errorf("The pattern %q is absolute but not inside the search directory %s; give a pattern relative to it.", pattern, dir)
		}
		match = filepath.ToSlash(rel)
	}
	if !doublestar.ValidatePattern(match) {
		return nil, fmt.Errorf("params/pattern: invalid glob pattern %q", pattern)
	}
	return &globCall{ws: t.ws, pattern: pattern, match: match, dir: dir, hasPath: hasPath,
		ignore: ignore, caseSensitive: caseSensitive, liftGitIgnore: liftGit, ignoredBudget: maxIgnoredWalk, maxFiles: maxGlobFiles, timeout: searchTimeout}, nil
}

type globCall struct {
	ws            *workspace.Workspace
	pattern       string // as given, for messages
	match         string // relative to dir, slash-separated
	dir           string
	hasPath       bool
	ignore        []string
	caseSensitive bool
	liftGitIgnore bool // find what .gitignore ignores too (never .geminiignore)
	ignoredBudget int  // ignored entries visited at most, to count them
	maxFiles      int  // listed at most, the newest
	timeout       time.Duration
}

func (c *globCall) Title() string {
	title := "FindFiles " + c.pattern
	if c.hasPath {
		title += " in " + c.ws.Display(c.dir)
	}
	return title
}

func (c *globCall) Confirmation() *Confirmation { return nil }

func (c *globCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	problem, err := c.dirProblem()
	if err != nil {
		return Result{}, err
	}
	if problem != "" {
		return failure(problem), nil
	}
	w := &globWalk{
		c:             c,
		m:             newGlobMatcher(c.match, c.caseSensitive),
		found:         newestFiles{limit: c.maxFiles},
		ignoredBudget: c.ignoredBudget,
	}
	omitted, timedOut, err := w.run(ctx)
	if err != nil {
		return Result{}, err
	}
	note, displayNote := globNotes(omitted, timedOut, c.timeout)
	return c.report(w, note, displayNote), nil
}

// dirProblem is what the model is told when the directory to search is
// not one, or "".
func (c *globCall) dirProblem() (string, error) {
	isDir, err := c.ws.Stat(c.dir)
	if errors.Is(err, workspace.ErrNotExist) {
		return "Path does not exist: " + c.dir, nil
	}
	if err != nil {
		return "", fmt.Errorf("checking %s: %w", c.dir, err)
	}
	if !isDir {
		return "Path is not a directory: " + c.dir, nil
	}
	return gitDirRefused(c.ws, c.dir), nil
}

// globMatcher matches a glob's pattern against slash-separated paths.
type globMatcher struct {
	pattern       string // lower-cased unless caseSensitive
	caseSensitive bool
	// "**/P" with no "/" in P matches a path whose last name P matches:
	// a walk matches every file, and the name alone is quicker.
	name     string
	nameOnly bool
	// "**/*.go" and the like: the name's ending is all there is to match.
	suffix     string
	suffixOnly bool
}

func newGlobMatcher(pattern string, caseSensitive bool) globMatcher {
	if !caseSensitive {
		pattern = strings.ToLower(pattern)
	}
	m := globMatcher{pattern: pattern, caseSensitive: caseSensitive}
	m.name, m.nameOnly = strings.CutPrefix(pattern, "**/")
	m.nameOnly = m.nameOnly && !strings.Contains(m.name, "/")
	m.suffix, m.suffixOnly = strings.CutPrefix(m.name, "*")
	m.suffixOnly = m.suffixOnly && m.nameOnly && !strings.ContainsAny(m.suffix, "*?[]{}\\")
	return m
}

func (m globMatcher) matches(rel string) bool {
	p := m.pattern
	if m.nameOnly {
		rel, p = path.Base(rel), m.name
	}
	if !m.caseSensitive {
		rel = strings.ToLower(rel)
	}
	if m.suffixOnly {
		return strings.HasSuffix(rel, m.suffix)
	}
	return doublestar.MatchUnvalidated(p, rel)
}

// globWalk is one walk of a glob: what it finds, and counts.
type globWalk struct {
	c *globCall
	m globMatcher
	// mu guards what the walk finds, as it calls from every core.
	mu         sync.Mutex
	found      newestFiles
	gitIgnored int
	// Ignored directories are walked too, to count the matches they hide
	// as Gemini CLI reports them. Big ignored trees (build output,
	// virtualenvs) are only counted up to a budget; the count is then a
	// lower bound, and says so (ignoredCut).
	ignoredBudget int
	ignoredCut    bool
}

// run walks the directory, until the glob's timeout at most (timedOut).
func (w *globWalk) run(ctx context.Context) (omitted workspace.Omitted, timedOut bool, err error) {
	c := w.c
	// The files that match are stat-ed as they are listed, for sorting.
	opts := workspace.WalkOptions{Stat: func(path string) bool { return w.m.matches(relSlash(c.dir, path)) }, LiftGitIgnore: c.liftGitIgnore}
	prefix := newPatternDirs(w.m.pattern)
	walkCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	omitted, err = c.ws.Walk(walkCtx, c.dir, opts, func(e workspace.DirEntry) error {
		rel := relSlash(c.dir, e.Path)
		if e.IsDir && prefix.holdsNoMatch(rel, c.caseSensitive) {
			return fs.SkipDir
		}
		return w.visit(walkCtx, e, rel)
	})
	timedOut = err != nil && ctx.Err() == nil && walkCtx.Err() != nil
	switch {
	case ctx.Err() != nil:
		return omitted, false, ctx.Err()
	case err != nil && !timedOut:
		return omitted, false, fmt.Errorf("searching %s: %w", c.dir, err)
	}
	return omitted, timedOut, nil
}

// visit takes the entry e (at rel) of the walk: a file that matches is
// found, or counted if ignored (a link leading to an ignored file too).
func (w *globWalk) visit(ctx context.Context, e workspace.DirEntry, rel string) error {
	if matchesAny(w.c.ignore, rel, w.c.caseSensitive) || (e.Ignored && !w.spendIgnored()) {
		if e.IsDir {
			return fs.SkipDir
		}
		return nil
	}
	if e.IsDir || !w.m.matches(rel) {
		return nil
	}
	if e.Ignored || linkHidden(ctx, w.c.ws, e, w.c.liftGitIgnore) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.gitIgnored++
		return nil
	}
	// Taken outside the lock: a symlink's is a stat of its target.
	info, err := w.c.ws.Info(e)
	if errors.Is(err, workspace.ErrNotExist) {
		return nil // removed since the walk listed it
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.found.add(dated{entry: e, mod: info.ModTime}) // unknown (err): oldest
	return nil
}

// spendIgnored reports whether an ignored entry is still within the
// budget; past it the entry is neither entered nor counted.
func (w *globWalk) spendIgnored() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ignoredBudget--; w.ignoredBudget < 0 {
		w.ignoredCut = true
		return false
	}
	return true
}

// globNotes are what the result adds about a search cut short: for the
// model, and for the user (display).
func globNotes(omitted workspace.Omitted, timedOut bool, timeout time.Duration) (note, display string) {
	var notes []string
	if timedOut {
		notes = append(notes, fmt.Sprintf("(the search stopped after %s; these are the files found by then: search a narrower path or pattern to see the rest)", timeout))
	}
	if n := omittedNote(omitted); n != "" {
		notes = append(notes, n)
	}
	if len(notes) == 0 {
		return "", ""
	}
	return "\n\n" + strings.Join(notes, "\n"), " " + strings.Join(notes, " ")
}

// report is the result of the walk w, with its notes.
func (c *globCall) report(w *globWalk, note, displayNote string) Result {
	files := w.found.sorted()
	if len(files) == 0 {
		msg := fmt.Sprintf("No files found matching pattern \"%s\" within %s", c.pattern, quoteName(c.dir))
		return Result{Output: msg + note, Display: "No files found." + displayNote}
	}
	matched := w.found.matched
	var b strings.Builder
	// Written once, not copied at each doubling of its buffer.
	size := len(note) + 512
	for _, e := range files {
		size += len(e.Path) + 3 // its newline, and quotes should it need them
	}
	b.Grow(size)
	fmt.Fprintf(&b, "Found %d file(s) matching \"%s\" within %s", matched, c.pattern, quoteName(c.dir))
	switch {
	case w.ignoredCut:
		fmt.Fprintf(&b, " (at least %d additional files were ignored)", w.gitIgnored)
	case w.gitIgnored > 0:
		fmt.Fprintf(&b, " (%d additional files were ignored)", w.gitIgnored)
	}
	// Relative to the workspace root, where every tool resolves a
	// relative path: 0.61 lists absolute paths, and a hundred files
	// repeated the root's path a hundred times in every later request.
	b.WriteString(", sorted by modification time (newest first), paths relative to the workspace root")
	display := fmt.Sprintf("Found %d matching file(s).", matched)
	if unlisted := matched - len(files); unlisted > 0 {
		fmt.Fprintf(&b, "; the newest %d are listed, %d more are not: search a narrower path or pattern to see them", len(files), unlisted)
		display = fmt.Sprintf("Found %d matching file(s); the newest %d listed.", matched, len(files))
	}
	b.WriteString(":")
	found := make([]dialog.Location, 0, len(files))
	for _, e := range files {
		b.WriteString("\n")
		b.WriteString(quoteName(c.ws.Display(e.Path)))
		found = append(found, dialog.Location{Path: e.Path})
	}
	b.WriteString(note)
	return Result{Output: b.String(), Display: display + displayNote, Found: found}
}

// newestFiles keeps the limit most recently modified of the files added
// (ties broken by path) and counts them all, so that a glob matching a
// million files holds no more than it lists.
type newestFiles struct {
	limit int
	// kept is a heap whose top is the oldest file kept: the one a newer
	// file replaces.
	kept []dated
	// matched counts the files added.
	matched int
}

// add counts d and keeps it if it is among the newest.
func (n *newestFiles) add(d dated) {
	n.matched++
	switch {
	case len(n.kept) < n.limit:
		heapPush(&n.kept, d, older)
	case n.limit > 0 && newer(d, n.kept[0]):
		n.kept[0] = d
		heapDown(n.kept, 0, older)
	}
}

// sorted is the files kept, newest first, then by path.
func (n *newestFiles) sorted() []workspace.DirEntry {
	slices.SortFunc(n.kept, func(x, y dated) int {
		return cmp.Or(cmp.Compare(y.mod, x.mod), strings.Compare(x.entry.Path, y.entry.Path))
	})
	files := make([]workspace.DirEntry, len(n.kept))
	for i, d := range n.kept {
		files[i] = d.entry
	}
	return files
}

// dated is a file and its modification time.
type dated struct {
	entry workspace.DirEntry
	mod   int64
}

// newer reports whether x is listed before y: modified later, or at the
// same time with a lesser path.
func newer(x, y dated) bool {
	return x.mod > y.mod || x.mod == y.mod && x.entry.Path < y.entry.Path
}

// older reports whether x is listed after y: the oldest kept is the
// heap's top.
func older(x, y dated) bool { return newer(y, x) }

// patternDirs are the names of a glob pattern's directories, up to its
// first "**", for a walk to leave out the directories no match can be
// below (a pattern "src/app/**/*.ts" walks src/app alone).
type patternDirs struct {
	names []string // the pattern's names, the last the file's
	prune bool     // false: every directory may hold a match
}

func newPatternDirs(pattern string) patternDirs {
	// Braces may hold a "/", and an escape may too: such a pattern is
	// not split into names.
	if strings.ContainsAny(pattern, "{}\\") {
		return patternDirs{}
	}
	return patternDirs{names: strings.Split(pattern, "/"), prune: true}
}

// holdsNoMatch reports whether no path below the directory at rel (its
// names lower-cased when the match is not case-sensitive, as the pattern
// then is) can match the pattern.
func (p patternDirs) holdsNoMatch(rel string, caseSensitive bool) bool {
	if !p.prune {
		return false
	}
	if !caseSensitive {
		rel = strings.ToLower(rel)
	}
	for i := 0; rel != ""; i++ {
		var name string
		name, rel, _ = strings.Cut(rel, "/")
		switch {
		case i >= len(p.names)-1:
			return true // deeper than the pattern's files
		case p.names[i] == "**":
			return false
		case !doublestar.MatchUnvalidated(p.names[i], name):
			return true
		}
	}
	return false
}
