package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// defaultGrepMatches is how many matching lines grep_search returns
	// when the call sets no total_max_matches: Gemini CLI 0.61's
	// DEFAULT_TOTAL_MAX_MATCHES. A larger default cost a turn that greps
	// a common word thousands of tokens in each of its later requests.
	defaultGrepMatches = 100
	// maxGrepMatches caps how many matching lines grep_search returns,
	// whatever total_max_matches asks.
	maxGrepMatches = 2000
	// maxGrepFileSize is the largest file grep_search searches; larger
	// ones (bundles, dumps, data) are skipped unread and counted.
	maxGrepFileSize = 8 << 20
	// searchTimeout bounds one search (grep_search, glob, the walks of
	// @paths): a walk sees every entry, however many,
	// until then. What was found by then is returned, with the cut said.
	searchTimeout = 30 * time.Second
)

type grepTool struct {
	ws *workspace.Workspace
	// door starts the search programs (ripgrep, git grep): one found in
	// the workspace is not used.
	door *spawn.Door
}

// grepSearch is grep_search over ws; settings may name it by its
// legacy name, search_file_content, too.
func grepSearch(ws *workspace.Workspace, door *spawn.Door) *Defined[grepParams] {
	t := &grepTool{ws: ws, door: door}
	return Define(Spec{
		Name: GrepSearchName,
		Description: "Searches for a regular expression pattern within the content of files in the workspace (as open in the editor), " +
			"returning matching lines with their file paths and line numbers. Skips binary and ignored files.",
		Annotations: Annotations{Kind: dialog.KindSearch, ReadOnly: true},
		Aliases:     []string{"GrepTool", "RipGrepTool", "search_file_content"},
	}, t.build)
}

// grepParams are grep_search's parameters, as Gemini CLI 0.61 declares
// them. Older calls' path and include are normalized to dir_path and
// include_pattern.
type grepParams struct {
	Pattern           string  `json:"pattern" jsonschema:"The regular expression (RE2 syntax) to search for within file contents (e.g., 'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*'). Case-insensitive unless case_sensitive is true."`
	DirPath           *string `json:"dir_path,omitempty" was:"path" jsonschema:"Optional: The directory (or file) to search within: absolute, or relative to the workspace root. If omitted, searches the workspace root."`
	IncludePattern    string  `json:"include_pattern,omitempty" was:"include" jsonschema:"Optional: A glob pattern to filter which files are searched, matched against the path relative to the search directory or the file name (e.g., '*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting ignore files)."`
	NamesOnly         bool    `json:"names_only,omitempty" jsonschema:"Optional: If true, only the file paths of the matches will be returned, without the line content or line numbers. This is useful for gathering a list of files."`
	CaseSensitive     bool    `json:"case_sensitive,omitempty" jsonschema:"If true, search is case-sensitive. Defaults to false (ignore case) if omitted."`
	FixedStrings      bool    `json:"fixed_strings,omitempty" jsonschema:"If true, treats the pattern as a literal string instead of a regular expression. Defaults to false if omitted."`
	MaxMatchesPerFile *int    `json:"max_matches_per_file,omitempty" jsonschema:"Optional: Maximum number of matches to return per file. Use this to prevent being overwhelmed by repetitive matches in large files."`
	TotalMaxMatches   *int    `json:"total_max_matches,omitempty" jsonschema:"Optional: Maximum number of total matches to return. Use this to limit the overall size of the response. Defaults to 100 if omitted."`
	ExcludePattern    string  `json:"exclude_pattern,omitempty" jsonschema:"Optional: A regular expression pattern to exclude from the search results. If a line matches both the pattern and the exclude_pattern, it will be omitted."`
	Context           *int    `json:"context,omitempty" jsonschema:"Show this many lines of context around each match (equivalent to grep -C). Defaults to 0 if omitted."`
	After             *int    `json:"after,omitempty" jsonschema:"Show this many lines after each match (equivalent to grep -A). Defaults to 0 if omitted."`
	Before            *int    `json:"before,omitempty" jsonschema:"Show this many lines before each match (equivalent to grep -B). Defaults to 0 if omitted."`
	NoIgnore          bool    `json:"no_ignore,omitempty" jsonschema:"If true, also searches the files .gitignore and .git/info/exclude ignore; those .geminiignore ignores stay unsearched (only the user's settings lift it), and .git and node_modules directories are still skipped. Defaults to false if omitted."`
}

// build is the call p asks for.
func (t *grepTool) build(p grepParams) (Call, error) {
	if p.Pattern == "" {
		return nil, errors.New("The 'pattern' parameter must be non-empty.")
	}
	expr := p.Pattern
	if p.FixedStrings {
		expr = regexp.QuoteMeta(expr)
	}
	if p.CaseSensitive {
		expr = "(?-i)" + expr // after newGrepMatcher's (?i)
	}
	m, err := newGrepMatcher(expr)
	if err != nil {
		return nil, fmt.Errorf("Invalid regular expression pattern provided: %s. Error: %v", p.Pattern, err)
	}
	var exclude *regexp.Regexp
	if p.ExcludePattern != "" {
		flags := "(?i)"
		if p.CaseSensitive {
			flags = ""
		}
		if exclude, err = regexp.Compile(flags + p.ExcludePattern); err != nil {
			_, err = regexp.Compile(p.ExcludePattern) // the message without our flags
			return nil, fmt.Errorf("Invalid exclude regular expression pattern provided: %s. Error: %v", p.ExcludePattern, err)
		}
		m.exclude = exclude
	}
	before, after, err := contextLines(p.Context, p.Before, p.After)
	if err != nil {
		return nil, err
	}
	if p.IncludePattern != "" && !doublestar.ValidatePattern(p.IncludePattern) {
		return nil, fmt.Errorf("params/include_pattern: invalid glob pattern %q", p.IncludePattern)
	}
	total, perFile := defaultGrepMatches, maxGrepMatches
	if p.TotalMaxMatches != nil {
		if total = *p.TotalMaxMatches; total < 1 {
			return nil, errors.New("params/total_max_matches must be >= 1")
		}
		total = min(total, maxGrepMatches)
	}
	if p.MaxMatchesPerFile != nil {
		if perFile = *p.MaxMatchesPerFile; perFile < 1 {
			return nil, errors.New("params/max_matches_per_file must be >= 1")
		}
	}
	hasPath := p.DirPath != nil
	dir, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	if hasPath {
		if dir, err = resolvePath(t.ws, "dir_path", *p.DirPath); err != nil {
			return nil, err
		}
	}
	autoContext := p.Context == nil && p.Before == nil && p.After == nil
	return &grepCall{ws: t.ws, door: t.door, pattern: p.Pattern, matcher: m, dir: dir, hasPath: hasPath, include: p.IncludePattern, namesOnly: p.NamesOnly,
		before: before, after: after, autoContext: autoContext, noIgnore: p.NoIgnore, maxFileSize: maxGrepFileSize, maxMatches: total, perFile: min(perFile, total), timeout: searchTimeout}, nil
}

// contextLines is how many lines to show before and after each match:
// before and after where given (and not 0), else context, as rg takes
// Gemini CLI 0.61's --context followed by --after-context and
// --before-context.
func contextLines(context, before, after *int) (b, a int, err error) {
	for i, n := range []*int{context, before, after} {
		if n != nil && *n < 0 {
			return 0, 0, fmt.Errorf("params/%s must be >= 0", []string{"context", "before", "after"}[i])
		}
	}
	value := func(n *int) int {
		if n == nil {
			return 0
		}
		return min(*n, maxGrepContextLines) // no more can be shown
	}
	b, a = value(before), value(after)
	if b == 0 {
		b = value(context)
	}
	if a == 0 {
		a = value(context)
	}
	return b, a, nil
}

type grepCall struct {
	ws        *workspace.Workspace
	door      *spawn.Door
	pattern   string
	matcher   *grepMatcher
	dir       string
	hasPath   bool
	include   string
	namesOnly bool // the files with matches, not the lines
	// before and after are the lines of context shown around each match.
	before, after int
	// autoContext: none of context, before and after was given, so a
	// search with few matches shows the lines around them (autoContext).
	autoContext bool
	noIgnore    bool // search what .gitignore ignores too (never .geminiignore)
	maxFileSize int64
	maxMatches  int // in all
	perFile     int // in one file
	timeout     time.Duration
	// engine, when set, is used whatever is installed (tests compare them).
	engine grepEngine
}

func (c *grepCall) Title() string {
	title := fmt.Sprintf("SearchText \"%s\"", c.pattern)
	if c.hasPath {
		title += " in " + c.ws.Display(c.dir)
	}
	if c.include != "" {
		title += " (filter: " + c.include + ")"
	}
	return title
}

func (c *grepCall) Confirmation() *Confirmation { return nil }

type grepMatch struct {
	line int
	text string
}

// grepFile is one file the search selected: a regular file (or a symlink
// to one) inside the roots, not ignored, within the size cap, or an open
// document.
type grepFile struct {
	entry workspace.DirEntry
	rel   string // slash-separated, relative to the search directory
	open  bool   // an open document: its buffer is searched, not the disk
}

// grepOutcome is what an engine found in one file.
type grepOutcome struct {
	file       grepFile
	matches    []grepMatch // in line order, at most the call's maxMatches
	context    []grepMatch // the lines around matches shown, in line order (addContext)
	unreadable bool
	tooLarge   bool // over the call's maxFileSize: not searched
}

// grepEngine searches the files it receives until files is closed, and
// reports every file it searched through found (from any goroutine). It
// returns only once every file it took from files is reported, so a caller
// that stops sending knows all it sent was searched.
type grepEngine interface {
	search(ctx context.Context, q *grepQuery, files <-chan grepFile, found func(grepOutcome)) error
	// asksInfo: the engine asks every file's Info (its size, against the
	// cap) before searching it, so the walk stats them as it lists.
	asksInfo() bool
}

// grepQuery is what every engine needs to search.
type grepQuery struct {
	ws          *workspace.Workspace
	matcher     *grepMatcher
	maxFileSize int64
	maxMatches  int  // per file
	noIgnore    bool // .gitignore lifted (no_ignore)
}

func (c *grepCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	isDir, err := c.ws.Stat(c.dir)
	if errors.Is(err, workspace.ErrNotExist) {
		return failure("Path does not exist: " + c.dir), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.dir, err)
	}
	if isDir {
		if refused := gitDirRefused(c.ws, c.dir); refused != "" {
			return failure(refused), nil
		}
	} else {
		if rel := filepath.Base(c.dir); c.included(rel) {
			if hidden(ctx, c.ws, c.dir, c.noIgnore) {
				return failure(ignoredMessage(c.dir)), nil
			}
			if _, err := c.ws.ReadFile(ctx, c.dir, c.maxFileSize); err != nil {
				if ctx.Err() != nil {
					return Result{}, ctx.Err()
				}
				if errors.Is(err, workspace.ErrNotExist) {
					return failure("Path does not exist: " + c.dir), nil
				}
				return failure(fmt.Sprintf("Cannot search %s: %v", quoteName(c.dir), err)), nil
			}
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	walkCtx, stopWalk := context.WithCancel(runCtx)
	defer stopWalk()

	first := newFirstMatches(c.maxMatches)
	files := make(chan grepFile, 256)
	var (
		omitted workspace.Omitted
		walkErr error
		walked  = make(chan struct{})
	)
	engine := c.engine
	if engine == nil {
		engine = pickGrepEngine(c.door, c.programDir(isDir), c.matcher)
	}
	go func() {
		defer close(walked)
		defer close(files)
		omitted, walkErr = c.selectFiles(walkCtx, isDir, engine.asksInfo(), first, files)
	}()
	q := &grepQuery{ws: c.ws, matcher: c.matcher, maxFileSize: c.maxFileSize, maxMatches: c.perFile, noIgnore: c.noIgnore}
	engineErr := engine.search(runCtx, q, files, first.add)
	stopWalk()
	for range files { // an engine that failed left some unread
	}
	<-walked

	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	timedOut := runCtx.Err() != nil
	if engineErr != nil && !timedOut {
		return Result{}, fmt.Errorf("searching %s: %w", c.dir, engineErr)
	}
	if walkErr != nil && walkCtx.Err() == nil {
		return Result{}, fmt.Errorf("searching %s: %w", c.dir, walkErr)
	}
	kept := first.first()
	contextCut := false
	if before, after := c.contextAround(kept); (before > 0 || after > 0) && !c.namesOnly {
		if contextCut, err = c.addContext(ctx, kept, before, after); err != nil {
			return Result{}, err
		}
	}
	return c.format(kept, first, omitted, timedOut, contextCut), nil
}

// contextAround is how many lines to show before and after each match of
// kept: those asked for, or, when none was asked for and there are at
// most 3 matches, as Gemini CLI 0.61 adds on its own
// (enrichWithRipgrepAutoContext), 50 around a single match and 15 around
// each of 2 or 3.
func (c *grepCall) contextAround(kept []grepOutcome) (before, after int) {
	if !c.autoContext {
		return c.before, c.after
	}
	count := 0
	for _, o := range kept {
		count += len(o.matches)
	}
	switch {
	case count == 1:
		return 50, 50
	case count == 2 || count == 3:
		return 15, 15
	}
	return 0, 0
}

// maxGrepContextLines caps the context lines one result shows in all, so
// that context around the most matches stays within a few times their
// size; past it, matches are shown without context, and the result says so.
const maxGrepContextLines = 5000

// addContext reads each file with matches again (one at a time, its open
// document or the disk) and gives its matches the lines around them:
// before and after lines of each, but the matches themselves and the
// lines exclude_pattern takes out. It reports whether the cap on context
// lines cut some. A file that cannot be read again shows its matches
// without context.
func (c *grepCall) addContext(ctx context.Context, kept []grepOutcome, before, after int) (cut bool, err error) {
	budget := maxGrepContextLines
	for i := range kept {
		if budget == 0 {
			return true, nil
		}
		content, err := c.ws.ReadEntry(ctx, kept[i].file.entry, c.maxFileSize)
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil || readHidden(ctx, c.ws, kept[i].file.entry.Path, content, c.noIgnore) {
			continue
		}
		var used int
		kept[i].context, used, cut = c.contextOf(content.Content, kept[i].matches, before, after, budget)
		budget -= used
		if cut {
			return true, nil
		}
	}
	return false, nil
}

// contextOf is the context lines of matches (in line order) in content,
// at most budget of them, with how many they are and whether the budget
// cut them. Lines are numbered and cleaned as the matcher does.
func (c *grepCall) contextOf(content []byte, matches []grepMatch, before, after, budget int) (lines []grepMatch, used int, cut bool) {
	next := 0 // the first match whose window may hold the line
	line := 1
	for pos := 0; pos < len(content) && next < len(matches); line++ {
		end := bytes.IndexByte(content[pos:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += pos
		}
		text := bytes.TrimSuffix(content[pos:end], []byte("\r"))
		pos = end + 1
		for next < len(matches) && matches[next].line+after < line {
			next++
		}
		if next == len(matches) || line < matches[next].line-before {
			continue
		}
		if _, isMatch := slices.BinarySearchFunc(matches[next:], line, func(m grepMatch, l int) int { return m.line - l }); isMatch || c.matcher.excluded(text) {
			continue
		}
		if len(lines) == budget {
			return lines, len(lines), true
		}
		lines = append(lines, grepMatch{line: line, text: shownLine(text)})
	}
	return lines, len(lines), false
}

// programDir is where an external engine runs: the search directory, or
// the directory of the file searched.
func (c *grepCall) programDir(isDir bool) string {
	if isDir {
		return c.dir
	}
	return filepath.Dir(c.dir)
}

func (c *grepCall) included(rel string) bool {
	return c.include == "" || doublestar.MatchUnvalidated(c.include, rel) || doublestar.MatchUnvalidated(c.include, path.Base(rel))
}

// selectFiles sends the files to search as a walk on every core finds
// them: the same for every engine, so every engine keeps the workspace's
// guarantees (roots, regular files only, ignore rules, open documents).
// Files after the bound of first, in path order, are not sent. The size
// cap is the engines' to check: the in-process engine's from the stat of
// the file it opens, so the walk stats no file; an engine that asksInfo
// has the walk stat the files it sends as it lists them.
func (c *grepCall) selectFiles(ctx context.Context, isDir, stat bool, first *firstMatches, files chan<- grepFile) (workspace.Omitted, error) {
	send := func(e workspace.DirEntry, rel string) error {
		_, open := c.ws.Documents().Get(e.Path)
		select {
		case files <- grepFile{entry: e, rel: rel, open: open}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if !isDir {
		rel := filepath.Base(c.dir)
		if !c.included(rel) {
			return workspace.Omitted{}, nil
		}
		// Execute has checked that it can be read.
		// A path given is resolved again when read, as a symlink is.
		return workspace.Omitted{}, send(workspace.DirEntry{Path: c.dir, Symlink: true}, rel)
	}
	opts := workspace.WalkOptions{LiftGitIgnore: c.noIgnore}
	if stat {
		opts.Stat = func(path string) bool { return c.included(relSlash(c.dir, path)) }
	}
	return c.ws.Walk(ctx, c.dir, opts, func(e workspace.DirEntry) error {
		if e.Ignored {
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		rel := relSlash(c.dir, e.Path)
		if first.after(rel) {
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir || !c.included(rel) {
			return nil
		}
		return send(e, rel)
	})
}

// firstMatches collects what the engines found. The result is the first
// maxMatches matches in path order (workspace.ComparePaths), whatever
// order a parallel walk and the engines found them in: once the files
// with matches hold maxMatches of them, the last of those files in path
// order is the bound, and no file after it can be among the first, so
// the walk sends none (it still sends every file before the bound) and
// what was found past it is let go. It holds the files that may be among
// the first, never every file searched.
type firstMatches struct {
	maxMatches int
	bound      atomic.Pointer[string]

	mu                   sync.Mutex    // guards what follows
	kept                 []grepOutcome // a heap, the last in path order on top (laterPath)
	total                int           // matches in kept
	unreadable, tooLarge int           // files
}

func newFirstMatches(maxMatches int) *firstMatches {
	return &firstMatches{maxMatches: maxMatches}
}

// add takes what an engine found in one file; engines call it from any
// goroutine.
func (f *firstMatches) add(o grepOutcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o.unreadable {
		f.unreadable++
	}
	if o.tooLarge {
		f.tooLarge++
	}
	if len(o.matches) == 0 {
		return
	}
	heapPush(&f.kept, o, laterPath)
	f.total += len(o.matches)
	for f.total-len(f.kept[0].matches) >= f.maxMatches {
		f.total -= len(heapPop(&f.kept, laterPath).matches)
	}
	if f.total >= f.maxMatches {
		bound := f.kept[0].file.rel
		f.bound.Store(&bound)
	}
}

// after reports whether rel comes after the bound: nothing in it, or
// below it, can be among the first matches.
func (f *firstMatches) after(rel string) bool {
	bound := f.bound.Load()
	return bound != nil && workspace.ComparePaths(rel, *bound) > 0
}

// first is the files with the first maxMatches matches, in path order,
// the last one's matches cut at the cap. It ends the collection: the
// files kept are sorted in place, no longer a heap to add to.
func (f *firstMatches) first() []grepOutcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	files := f.kept
	f.kept = nil
	slices.SortFunc(files, func(a, b grepOutcome) int { return workspace.ComparePaths(a.file.rel, b.file.rel) })
	count := 0
	for i, o := range files {
		files[i].matches = o.matches[:min(len(o.matches), f.maxMatches-count)]
		count += len(files[i].matches)
	}
	return files
}

// laterPath reports whether a's file comes after b's in path order.
func laterPath(a, b grepOutcome) bool { return workspace.ComparePaths(a.file.rel, b.file.rel) > 0 }

// format writes the result: the first maxMatches matches in path order
// (workspace.ComparePaths), grouped by file in path order.
func (c *grepCall) format(kept []grepOutcome, found *firstMatches, omitted workspace.Omitted, timedOut, contextCut bool) Result {
	count := 0
	for _, o := range kept {
		count += len(o.matches)
	}
	limited := count >= c.maxMatches
	unreadable, tooLarge := found.unreadable, found.tooLarge

	var extra []string // what the search itself skipped
	if tooLarge > 0 {
		extra = append(extra, fmt.Sprintf("%d %s over %s", tooLarge, plural(tooLarge, "file", "files"), workspace.FormatSize(c.maxFileSize)))
	}
	if unreadable > 0 {
		extra = append(extra, fmt.Sprintf("%d unreadable %s", unreadable, plural(unreadable, "file", "files")))
	}
	var notes []string
	if timedOut && !limited {
		notes = append(notes, fmt.Sprintf("(the search stopped after %s; these are the matches in the files searched by then: search a narrower path or include filter to see the rest)", c.timeout))
	}
	if contextCut {
		notes = append(notes, fmt.Sprintf("(context is shown up to %d lines in all: the matches after that are shown without it; ask for fewer matches or less context to see it)", maxGrepContextLines))
	}
	if n := omittedNote(omitted, extra...); n != "" {
		notes = append(notes, n)
	}
	note, displayNote := "", ""
	if len(notes) > 0 {
		note, displayNote = "\n\n"+strings.Join(notes, "\n"), " "+strings.Join(notes, " ")
	}

	where := "in the workspace directory"
	if c.hasPath {
		where = fmt.Sprintf("in path \"%s\"", c.ws.Display(c.dir))
	}
	filter := ""
	if c.include != "" {
		filter = fmt.Sprintf(" (filter: \"%s\")", c.include)
	}
	if count == 0 {
		return Result{
			Output:  fmt.Sprintf("No matches found for pattern \"%s\" %s%s.", c.pattern, where, filter) + note,
			Display: "No matches found." + displayNote,
		}
	}
	term := "matches"
	if count == 1 {
		term = "match"
	}
	if c.namesOnly {
		return c.formatNames(kept, where, filter, limited, note, displayNote)
	}
	var b strings.Builder
	b.Grow(grepOutputSize(kept) + len(note) + 256)
	fmt.Fprintf(&b, "Found %d %s for pattern \"%s\" %s%s", count, term, c.pattern, where, filter)
	if limited {
		fmt.Fprintf(&b, " (results limited to %d matches for performance)", c.maxMatches)
	}
	b.WriteString(":\n---")
	slices.SortFunc(kept, func(a, b grepOutcome) int { return strings.Compare(a.file.rel, b.file.rel) })
	writeGrepFiles(&b, kept)
	b.WriteString(note)
	return Result{Output: b.String(), Display: fmt.Sprintf("Found %d %s.", count, term) + displayNote, Found: grepFound(kept, true)}
}

// grepFound is what kept lists, for the user to open: each match's line
// (lines), else each file.
func grepFound(kept []grepOutcome, lines bool) []dialog.Location {
	var found []dialog.Location
	for _, o := range kept {
		if !lines {
			found = append(found, dialog.Location{Path: o.file.entry.Path})
			continue
		}
		for _, m := range o.matches {
			found = append(found, dialog.Location{Path: o.file.entry.Path, Line: m.line})
		}
	}
	return found
}

// writeGrepFiles writes kept's files, each its matches and the context
// lines around them in line order: context lines L<n>- , matches L<n>: ,
// as in Gemini CLI.
func writeGrepFiles(b *strings.Builder, kept []grepOutcome) {
	var num [20]byte
	line := func(l grepMatch, mark string) {
		b.WriteString("\nL")
		b.Write(strconv.AppendInt(num[:0], int64(l.line), 10))
		b.WriteString(mark)
		b.WriteString(l.text)
	}
	for _, o := range kept {
		b.WriteString("\nFile: ")
		b.WriteString(quoteName(o.file.rel))
		ctx := o.context
		for _, m := range o.matches {
			for ; len(ctx) > 0 && ctx[0].line < m.line; ctx = ctx[1:] {
				line(ctx[0], "- ")
			}
			line(m, ": ")
		}
		for _, l := range ctx {
			line(l, "- ")
		}
		b.WriteString("\n---")
	}
}

// grepOutputSize is about the length of kept's lines as format writes
// them: a result of hundreds of matches is written once, not copied at
// each doubling of its buffer.
func grepOutputSize(kept []grepOutcome) int {
	n := 0
	for _, o := range kept {
		n += len(o.file.rel) + len("\nFile: \n---") + 2
		for _, m := range o.matches {
			n += len(m.text) + len("\nL: ") + 6
		}
		for _, m := range o.context {
			n += len(m.text) + len("\nL- ") + 6
		}
	}
	return n
}

// formatNames writes a names_only result, in Gemini CLI's words: the
// files with matches, one a line.
func (c *grepCall) formatNames(kept []grepOutcome, where, filter string, limited bool, note, displayNote string) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d files with matches for pattern \"%s\" %s%s", len(kept), c.pattern, where, filter)
	if limited {
		fmt.Fprintf(&b, " (results limited to %d matches for performance)", c.maxMatches)
	}
	b.WriteString(":")
	slices.SortFunc(kept, func(a, b grepOutcome) int { return strings.Compare(a.file.rel, b.file.rel) })
	for _, o := range kept {
		b.WriteString("\n" + o.file.rel)
	}
	b.WriteString(note)
	return Result{Output: b.String(), Display: fmt.Sprintf("Found %d files.", len(kept)) + displayNote, Found: grepFound(kept, false)}
}
