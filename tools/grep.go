package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

const (
	// maxGrepMatches caps how many matching lines grep_search returns.
	maxGrepMatches = 2000
	// maxGrepFileSize is the largest file grep_search searches; larger
	// ones (bundles, dumps, data) are skipped unread and counted.
	maxGrepFileSize = 8 << 20
)

type grepTool struct{ ws *workspace.Workspace }

func (t *grepTool) Name() string { return GrepSearchName }

func (t *grepTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name: GrepSearchName,
		Description: "Searches the content of files in the workspace (as open in the editor) for a regular expression (RE2 syntax, case-insensitive; " +
			"start with (?-i) for case-sensitive), returning matching lines with their file paths and line numbers. Skips binary and git-ignored files.",
		ParametersJsonSchema: object([]string{"pattern"}, map[string]any{
			"pattern": prop("string", "The regular expression to search for, e.g. \"func\\s+main\"."),
			"path":    prop("string", "The directory (or file) to search: absolute, or relative to the workspace root. Defaults to the root."),
			"include": prop("string", "A glob limiting which files are searched, matched against the path relative to the search directory or the file name, e.g. \"*.go\" or \"src/**/*.{ts,tsx}\"."),
		}),
	}
}

func (t *grepTool) Build(raw map[string]any) (Call, error) {
	a := args(raw)
	pattern, _, err := a.str("pattern", true)
	if err != nil {
		return nil, err
	}
	if pattern == "" {
		return nil, errors.New("The 'pattern' parameter must be non-empty.")
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		// Compile the pattern alone so the message does not show our prefix.
		_, err = regexp.Compile(pattern)
		return nil, fmt.Errorf("Invalid regular expression pattern provided: %s. Error: %v", pattern, err)
	}
	p, hasPath, err := a.str("path", false)
	if err != nil {
		return nil, err
	}
	include, _, err := a.str("include", false)
	if err != nil {
		return nil, err
	}
	if include != "" && !doublestar.ValidatePattern(include) {
		return nil, fmt.Errorf("params/include: invalid glob pattern %q", include)
	}
	dir, err := defaultDir(t.ws)
	if err != nil {
		return nil, err
	}
	if hasPath {
		if dir, err = resolvePath(t.ws, "path", p); err != nil {
			return nil, err
		}
	}
	return &grepCall{ws: t.ws, pattern: pattern, re: re, dir: dir, hasPath: hasPath, include: include, maxFileSize: maxGrepFileSize}, nil
}

type grepCall struct {
	ws          *workspace.Workspace
	pattern     string
	re          *regexp.Regexp
	dir         string
	hasPath     bool
	include     string
	maxFileSize int64
	limits      workspace.WalkOptions
}

func (c *grepCall) Title() string {
	title := fmt.Sprintf("SearchText \"%s\"", c.pattern)
	if c.hasPath {
		title += " in " + displayPath(c.ws, c.dir)
	}
	if c.include != "" {
		title += " (filter: " + c.include + ")"
	}
	return title
}

func (c *grepCall) Kind() Kind { return KindSearch }

func (c *grepCall) Confirmation() *Confirmation { return nil }

type grepMatch struct {
	line int
	text string
}

// errEnough stops a walk once the match cap is reached.
var errEnough = errors.New("enough matches")

func (c *grepCall) Execute(ctx context.Context) (Result, error) {
	isDir, err := c.ws.Stat(c.dir)
	if errors.Is(err, workspace.ErrNotExist) {
		return failure("Path does not exist: " + c.dir), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.dir, err)
	}

	byFile := map[string][]grepMatch{}
	count := 0
	search := func(rel string, content []byte) error {
		if isBinary(content) {
			return nil
		}
		for i, line := range strings.Split(string(content), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if !c.re.MatchString(line) {
				continue
			}
			text, _ := cutLine(strings.TrimSpace(line))
			byFile[rel] = append(byFile[rel], grepMatch{line: i + 1, text: text})
			if count++; count == maxGrepMatches {
				return errEnough
			}
		}
		return nil
	}
	included := func(rel string) bool {
		return c.include == "" || doublestar.MatchUnvalidated(c.include, rel) || doublestar.MatchUnvalidated(c.include, path.Base(rel))
	}
	var omitted workspace.Omitted
	tooLarge, unreadable := 0, 0
	if isDir {
		omitted, err = c.ws.Walk(ctx, c.dir, c.limits, func(e workspace.DirEntry) error {
			if e.Ignored && e.IsDir {
				return fs.SkipDir
			}
			rel := relSlash(c.dir, e.Path)
			if e.Ignored || e.IsDir || !included(rel) {
				return nil
			}
			f, err := c.ws.ReadFile(ctx, e.Path, c.maxFileSize)
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.Is(err, workspace.ErrNotExist):
				return nil // gone since it was listed
			case errors.Is(err, workspace.ErrTooLarge):
				tooLarge++
				return nil
			case err != nil:
				// One file that cannot be read (permissions, replaced by
				// a special file since the listing) does not end the search.
				unreadable++
				return nil
			}
			return search(rel, f.Content)
		})
	} else if rel := filepath.Base(c.dir); included(rel) {
		f, rerr := c.ws.ReadFile(ctx, c.dir, c.maxFileSize)
		switch {
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(rerr, workspace.ErrNotExist):
			return failure("Path does not exist: " + c.dir), nil
		case rerr != nil:
			return failure(fmt.Sprintf("Cannot search %s: %v", quoteName(c.dir), rerr)), nil
		}
		err = search(rel, f.Content)
	}
	limited := errors.Is(err, errEnough)
	if err != nil && !limited {
		return Result{}, fmt.Errorf("searching %s: %w", c.dir, err)
	}
	var extra []string // what the search itself skipped
	if tooLarge > 0 {
		extra = append(extra, fmt.Sprintf("%d %s over %s", tooLarge, plural(tooLarge, "file", "files"), workspace.FormatSize(c.maxFileSize)))
	}
	if unreadable > 0 {
		extra = append(extra, fmt.Sprintf("%d unreadable %s", unreadable, plural(unreadable, "file", "files")))
	}
	note, displayNote := "", ""
	if n := omittedNote(omitted, extra...); n != "" {
		note, displayNote = "\n\n"+n, " "+n
	}

	where := "in the workspace directory"
	if c.hasPath {
		where = fmt.Sprintf("in path \"%s\"", displayPath(c.ws, c.dir))
	}
	filter := ""
	if c.include != "" {
		filter = fmt.Sprintf(" (filter: \"%s\")", c.include)
	}
	if count == 0 {
		return Result{
			Output:  fmt.Sprintf("No matches found for pattern \"%s\" %s%s.", c.pattern, where, filter) + note,
			Display: "No matches found." + displayNote,
		}, nil
	}
	term := "matches"
	if count == 1 {
		term = "match"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d %s for pattern \"%s\" %s%s", count, term, c.pattern, where, filter)
	if limited {
		fmt.Fprintf(&b, " (results limited to %d matches for performance)", maxGrepMatches)
	}
	b.WriteString(":\n---")
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		b.WriteString("\nFile: " + quoteName(f))
		for _, m := range byFile[f] {
			fmt.Fprintf(&b, "\nL%d: %s", m.line, m.text)
		}
		b.WriteString("\n---")
	}
	b.WriteString(note)
	return Result{Output: b.String(), Display: fmt.Sprintf("Found %d %s.", count, term) + displayNote}, nil
}
