package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

// maxGrepMatches caps how many matching lines grep_search returns.
const maxGrepMatches = 2000

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
	return &grepCall{ws: t.ws, pattern: pattern, re: re, dir: dir, hasPath: hasPath, include: include}, nil
}

type grepCall struct {
	ws      *workspace.Workspace
	pattern string
	re      *regexp.Regexp
	dir     string
	hasPath bool
	include string
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
	searchFile := func(abs, rel string) error {
		if c.include != "" && !doublestar.MatchUnvalidated(c.include, rel) && !doublestar.MatchUnvalidated(c.include, path.Base(rel)) {
			return nil
		}
		f, err := c.ws.ReadFile(abs)
		if errors.Is(err, workspace.ErrNotExist) {
			return nil // gone since it was listed
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", abs, err)
		}
		if isBinary(f.Content) {
			return nil
		}
		for i, line := range strings.Split(string(f.Content), "\n") {
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
	if isDir {
		err = c.ws.Walk(ctx, c.dir, workspace.WalkOptions{RespectGitIgnore: true}, func(e workspace.DirEntry) error {
			if e.IsDir {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			return searchFile(e.Path, relSlash(c.dir, e.Path))
		})
	} else {
		err = searchFile(c.dir, filepath.Base(c.dir))
	}
	limited := errors.Is(err, errEnough)
	if err != nil && !limited {
		return Result{}, fmt.Errorf("searching %s: %w", c.dir, err)
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
			Output:  fmt.Sprintf("No matches found for pattern \"%s\" %s%s.", c.pattern, where, filter),
			Display: "No matches found.",
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
		b.WriteString("\nFile: " + f)
		for _, m := range byFile[f] {
			fmt.Fprintf(&b, "\nL%d: %s", m.line, m.text)
		}
		b.WriteString("\n---")
	}
	return Result{Output: b.String(), Display: fmt.Sprintf("Found %d %s.", count, term)}, nil
}
