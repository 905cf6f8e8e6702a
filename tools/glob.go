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
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

// maxIgnoredWalk bounds how many ignored entries glob visits to count them.
const maxIgnoredWalk = 10000

type globTool struct{ ws *workspace.Workspace }

func (t *globTool) Name() string { return GlobName }

// globParams are glob's parameters.
type globParams struct {
	Pattern          string   `json:"pattern" desc:"The glob pattern, matched against paths relative to the search directory (\"*\" does not cross \"/\"; \"**\" does)."`
	Path             *string  `json:"path,omitempty" desc:"The directory to search: absolute, or relative to the workspace root. Defaults to the root."`
	Ignore           []string `json:"ignore,omitempty" desc:"Glob patterns of paths (relative to the search directory) to leave out."`
	CaseSensitive    bool     `json:"case_sensitive,omitempty" desc:"Whether matching is case-sensitive. Defaults to false."`
	RespectGitIgnore *bool    `json:"respect_git_ignore,omitempty" desc:"Whether to leave out files ignored by .gitignore and .geminiignore. Defaults to true."`
}

func (t *globTool) Declaration() *genai.FunctionDeclaration {
	return declare[globParams](GlobName, "Finds files whose path relative to the search directory matches a glob pattern (e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\"), "+
		"returning absolute paths, most recently modified first. Skips .git, node_modules and git-ignored files.")
}

func (t *globTool) Build(raw map[string]any) (Call, error) {
	var p globParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	pattern, ignore, caseSensitive := p.Pattern, p.Ignore, p.CaseSensitive
	if strings.TrimSpace(pattern) == "" {
		return nil, errors.New("The 'pattern' parameter must be non-empty.")
	}
	if err := validatePatterns("ignore", ignore); err != nil {
		return nil, err
	}
	respect := p.RespectGitIgnore == nil || *p.RespectGitIgnore
	dir, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	hasPath := p.Path != nil
	if hasPath {
		if dir, err = resolvePath(t.ws, "path", *p.Path); err != nil {
			return nil, err
		}
	}
	// An absolute pattern inside the search directory is made relative to it.
	match := filepath.ToSlash(pattern)
	if filepath.IsAbs(pattern) {
		rel, err := filepath.Rel(dir, pattern)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("The pattern %q is absolute but not inside the search directory %s; give a pattern relative to it.", pattern, dir)
		}
		match = filepath.ToSlash(rel)
	}
	if !doublestar.ValidatePattern(match) {
		return nil, fmt.Errorf("params/pattern: invalid glob pattern %q", pattern)
	}
	return &globCall{ws: t.ws, pattern: pattern, match: match, dir: dir, hasPath: hasPath,
		ignore: ignore, caseSensitive: caseSensitive, respectGitIgnore: respect, ignoredBudget: maxIgnoredWalk, timeout: searchTimeout}, nil
}

type globCall struct {
	ws               *workspace.Workspace
	pattern          string // as given, for messages
	match            string // relative to dir, slash-separated
	dir              string
	hasPath          bool
	ignore           []string
	caseSensitive    bool
	respectGitIgnore bool
	ignoredBudget    int // ignored entries visited at most, to count them
	timeout          time.Duration
}

func (c *globCall) Title() string {
	title := "FindFiles " + c.pattern
	if c.hasPath {
		title += " in " + displayPath(c.ws, c.dir)
	}
	return title
}

func (c *globCall) Kind() Kind { return KindSearch }

func (c *globCall) Confirmation() *Confirmation { return nil }

func (c *globCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	isDir, err := c.ws.Stat(c.dir)
	if errors.Is(err, workspace.ErrNotExist) {
		return failure("Path does not exist: " + c.dir), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.dir, err)
	}
	if !isDir {
		return failure("Path is not a directory: " + c.dir), nil
	}

	pattern := c.match
	if !c.caseSensitive {
		pattern = strings.ToLower(pattern)
	}
	// mu guards what the walk finds, as it calls from every core.
	var mu sync.Mutex
	var found []workspace.DirEntry
	gitIgnored := 0
	// Ignored directories are walked too, to count the matches they hide
	// as Gemini CLI reports them. Big ignored trees (build output,
	// virtualenvs) are only counted up to a budget; the count is then a
	// lower bound, and says so.
	ignoredBudget, ignoredCut := c.ignoredBudget, false
	// spendIgnored reports whether an ignored entry is still within the
	// budget; past it the entry is neither entered nor counted.
	spendIgnored := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if ignoredBudget--; ignoredBudget < 0 {
			ignoredCut = true
			return false
		}
		return true
	}
	// "**/P" with no "/" in P matches a path whose last name P matches:
	// a walk matches every file, and the name alone is quicker.
	name, nameOnly := strings.CutPrefix(pattern, "**/")
	nameOnly = nameOnly && !strings.Contains(name, "/")
	matches := func(rel string) bool {
		p := pattern
		if nameOnly {
			rel, p = path.Base(rel), name
		}
		if !c.caseSensitive {
			rel = strings.ToLower(rel)
		}
		return doublestar.MatchUnvalidated(p, rel)
	}
	// The files that match are stat-ed as they are listed, for sorting.
	opts := workspace.WalkOptions{Stat: func(path string) bool { return matches(relSlash(c.dir, path)) }}
	walkCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	omitted, err := c.ws.WalkParallel(walkCtx, c.dir, opts, func(e workspace.DirEntry) error {
		rel := relSlash(c.dir, e.Path)
		if matchesAny(c.ignore, rel, c.caseSensitive) {
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		ignored := c.respectGitIgnore && e.Ignored
		if ignored && !spendIgnored() {
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir || !matches(rel) {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if ignored {
			gitIgnored++
		} else {
			found = append(found, e)
		}
		return nil
	})
	timedOut := err != nil && ctx.Err() == nil && walkCtx.Err() != nil
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil && !timedOut:
		return Result{}, fmt.Errorf("searching %s: %w", c.dir, err)
	}
	var notes []string
	if timedOut {
		notes = append(notes, fmt.Sprintf("(the search stopped after %s; these are the files found by then: search a narrower path or pattern to see the rest)", c.timeout))
	}
	if n := omittedNote(omitted); n != "" {
		notes = append(notes, n)
	}
	note, displayNote := "", ""
	if len(notes) > 0 {
		note, displayNote = "\n\n"+strings.Join(notes, "\n"), " "+strings.Join(notes, " ")
	}
	files := newestFirst(c.ws, found)
	if len(files) == 0 {
		msg := fmt.Sprintf("No files found matching pattern \"%s\" within %s", c.pattern, quoteName(c.dir))
		return Result{Output: msg + note, Display: "No files found." + displayNote}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d file(s) matching \"%s\" within %s", len(files), c.pattern, quoteName(c.dir))
	switch {
	case ignoredCut:
		fmt.Fprintf(&b, " (at least %d additional files were ignored)", gitIgnored)
	case gitIgnored > 0:
		fmt.Fprintf(&b, " (%d additional files were ignored)", gitIgnored)
	}
	b.WriteString(", sorted by modification time (newest first):")
	for _, e := range files {
		b.WriteString("\n" + quoteName(e.Path))
	}
	b.WriteString(note)
	return Result{Output: b.String(), Display: fmt.Sprintf("Found %d matching file(s).", len(files)) + displayNote}, nil
}

// newestFirst is the files found sorted by modification time, newest
// first, then by path, without those removed since the walk.
func newestFirst(ws *workspace.Workspace, found []workspace.DirEntry) []workspace.DirEntry {
	type dated struct {
		entry workspace.DirEntry
		mod   int64
	}
	files := make([]dated, 0, len(found))
	for _, e := range found {
		info, err := ws.Info(e)
		if errors.Is(err, workspace.ErrNotExist) {
			continue
		}
		files = append(files, dated{e, info.ModTime}) // unknown (err): oldest
	}
	slices.SortFunc(files, func(x, y dated) int {
		return cmp.Or(cmp.Compare(y.mod, x.mod), strings.Compare(x.entry.Path, y.entry.Path))
	})
	sorted := make([]workspace.DirEntry, len(files))
	for i, f := range files {
		sorted[i] = f.entry
	}
	return sorted
}
