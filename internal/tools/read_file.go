package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// defaultReadLimit is how many lines read_file returns without a limit.
	defaultReadLimit = 2000
	// maxReadSize is the largest file read_file hands to the model.
	maxReadSize = workspace.MaxFileSize
)

// readFileParams are read_file's parameters, as Gemini CLI 0.61 declares
// them. Older calls' path, offset (0-based) and limit are normalized to
// them (fromOlder).
type readFileParams struct {
	FilePath  string `json:"file_path" was:"path" jsonschema:"The path to the file to read: absolute, or relative to the workspace root."`
	StartLine *int   `json:"start_line,omitempty" jsonschema:"Optional: The 1-based line number to start reading from."`
	EndLine   *int   `json:"end_line,omitempty" jsonschema:"Optional: The 1-based line number to end reading at (inclusive)."`
}

// readFile is read_file over ws, with the context files around what it
// reads from memory.
func readFile(ws *workspace.Workspace, memory ContextDiscoverer) *Defined[readFileParams] {
	return Define(Spec{
		Name: ReadFileName,
		Description: "Reads and returns the content of a specified file in the workspace, as open in the editor (unsaved changes included). " +
			"If the file is large, the content will be truncated (at most 2000 lines at a time); the response says so and which lines it shows: " +
			"use the 'start_line' and 'end_line' parameters to read more of it. " +
			"Handles text, images (PNG, JPG, GIF, WEBP, SVG, BMP), audio files (MP3, WAV, AIFF, AAC, OGG, FLAC), and PDF files. For text files, it can read specific line ranges.",
		Annotations: Annotations{Kind: dialog.KindRead, ReadOnly: true},
		Aliases:     []string{"ReadFileTool"},
	}, func(p readFileParams) (Call, error) {
		offset, limit := 0, defaultReadLimit
		if p.StartLine != nil {
			if *p.StartLine < 1 {
				return nil, errors.New("params/start_line must be >= 1")
			}
			offset = *p.StartLine - 1
		}
		if p.EndLine != nil {
			if *p.EndLine < 1 {
				return nil, errors.New("params/end_line must be >= 1")
			}
			if *p.EndLine <= offset {
				return nil, errors.New("start_line cannot be greater than end_line")
			}
			limit = *p.EndLine - offset
		}
		abs, err := resolvePath(ws, "file_path", p.FilePath)
		if err != nil {
			return nil, err
		}
		given := p.FilePath
		if !filepath.IsAbs(given) {
			given = filepath.Join(ws.Roots()[0], given)
		}
		call := &readFileCall{ws: ws, memory: memory, path: abs, given: filepath.Clean(given), offset: offset, limit: limit, ranged: p.StartLine != nil || p.EndLine != nil}
		if p.StartLine != nil {
			call.startLine = *p.StartLine
		}
		return call, nil
	})
}

// fromOlder turns offset (the 0-based line to start at) and limit (how
// many lines) into the start_line and end_line that read the same lines
// (path is renamed to file_path by its was tag).
func (readFileParams) fromOlder(args map[string]any) (map[string]any, error) {
	offset, hasOffset := args["offset"]
	limit, hasLimit := args["limit"]
	if !hasOffset && !hasLimit {
		return args, nil
	}
	if args["start_line"] != nil || args["end_line"] != nil {
		return nil, errors.New("offset and limit are older names for start_line and end_line: give only start_line and end_line")
	}
	args = maps.Clone(args) // raw is the model's call, kept as made
	delete(args, "offset")
	delete(args, "limit")
	from := 0
	if offset != nil {
		n, ok := wholeNumber(offset)
		if !ok {
			return nil, errors.New("params/offset must be integer")
		}
		if n < 0 {
			return nil, errors.New("Offset must be a non-negative number")
		}
		from = n
		args["start_line"] = float64(n + 1)
	}
	if limit != nil {
		n, ok := wholeNumber(limit)
		if !ok {
			return nil, errors.New("params/limit must be integer")
		}
		if n <= 0 {
			return nil, errors.New("Limit must be a positive number")
		}
		args["end_line"] = float64(from + n)
	}
	return args, nil
}

type readFileCall struct {
	ws     *workspace.Workspace
	memory ContextDiscoverer
	// path is the file, its symlinks resolved; given is the path as the
	// model gave it, made absolute.
	path, given   string
	offset, limit int
	ranged        bool // offset or limit was given
	// startLine is start_line as given; 0 when it was not.
	startLine int
}

// Location is the file read, at start_line when the call gives one.
func (c *readFileCall) Location() (string, int) { return c.path, c.startLine }

func (c *readFileCall) Title() string {
	title := "ReadFile " + c.ws.Display(c.path)
	if c.ranged {
		title += fmt.Sprintf(" (lines %d-%d)", c.offset+1, c.offset+c.limit)
	}
	return title
}

func (c *readFileCall) Confirmation() *Confirmation { return nil }

func (c *readFileCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	res, err := c.read(ctx)
	if err == nil && res.Error == "" {
		res.Output += discoverContext(ctx, c.memory, info.SessionID, c.path)
	}
	return res, err
}

// ignored reports whether the file is kept from being read, as Gemini
// CLI's read_file keeps it (its file discovery's shouldIgnoreFile), by
// its own path or where it leads: ignored by .gitignore or .geminiignore,
// as glob, grep_search and the listings leave it out, or inside .git,
// which Gemini CLI's ignore rules always hold.
func (c *readFileCall) ignored(ctx context.Context) bool {
	for _, p := range []string{c.path, c.given} {
		if inGitDir(c.ws, p) || isIgnored(ctx, c.ws, p) {
			return true
		}
	}
	return false
}

// inWorktrees reports whether abs lies in the .gemini/worktrees of its
// root, where agents' git worktrees are (internal/worktree): each
// agent's work is its own until the user lands it, so a session whose
// root holds them (the main one) neither reads, lists nor searches
// them, even by a path named outright. An agent's own session has its
// worktree as its root, where the path holds no .gemini/worktrees.
func inWorktrees(ws *workspace.Workspace, abs string) bool {
	root := ws.RootOf(abs)
	if root == "" {
		return false
	}
	const dir = configfiles.Gemini + "/" + configfiles.Worktrees
	rel := relSlash(root, abs)
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// worktreesMessage is the refusal of a path inWorktrees holds.
func worktreesMessage(path string) string {
	return fmt.Sprintf("Path '%s' is in %s/%s, where each agent has its git worktree: an agent's work is its own until the user reviews and lands it, so this session does not read or search it.", path, configfiles.Gemini, configfiles.Worktrees)
}

// inGitDir reports whether abs lies in a .git directory of its root.
func inGitDir(ws *workspace.Workspace, abs string) bool {
	root := ws.RootOf(abs)
	return root != "" && slices.Contains(strings.Split(relSlash(root, abs), "/"), ".git")
}

// ignoredMessage is read_file's refusal of a path the ignore rules (or
// .git) hide, which the searches and listings give for such a directory.
func ignoredMessage(path string) string {
	return fmt.Sprintf("File path '%s' is ignored by configured ignore patterns.", path)
}

// gitDirRefused is the refusal of a search or listing of dir when it
// lies in a .git directory, else "". The walks skip .git only on the way
// down, so one started inside it would show what read_file refuses
// (a remote URL's token in .git/config), whatever ignore rules a call
// lifts.
// An agents' worktree is refused so too (inWorktrees).
func gitDirRefused(ws *workspace.Workspace, dir string) string {
	switch {
	case inGitDir(ws, dir):
		return ignoredMessage(dir)
	case inWorktrees(ws, dir):
		return worktreesMessage(dir)
	}
	return ""
}

func (c *readFileCall) read(ctx context.Context) (Result, error) {
	if inWorktrees(c.ws, c.path) || inWorktrees(c.ws, c.given) {
		return failure(worktreesMessage(c.path)), nil
	}
	if c.ignored(ctx) {
		return failure(ignoredMessage(c.path)), nil
	}
	isDir, err := c.ws.Stat(c.path)
	if errors.Is(err, workspace.ErrNotExist) {
		return failure("File not found: " + c.path), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	f, err := c.ws.ReadFile(ctx, c.path, maxReadSize)
	var tooLarge *workspace.TooLargeError
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(err, workspace.ErrNotExist):
		return failure("File not found: " + c.path), nil
	case errors.As(err, &tooLarge):
		return failure(fmt.Sprintf("File size exceeds the 20MB limit: %s (%.2fMB)", c.path, float64(tooLarge.Size)/(1<<20))), nil
	case errors.Is(err, workspace.ErrNotRegular), errors.Is(err, workspace.ErrOutsideRoots):
		return failure(fmt.Sprintf("Cannot read %s: %v", c.path, err)), nil
	case err != nil:
		return Result{}, fmt.Errorf("reading %s: %w", c.path, err)
	case readHidden(ctx, c.ws, c.path, f, false):
		return failure(ignoredMessage(f.Real)), nil
	}
	shown := c.ws.Display(c.path)

	if mime, kind, ok := mediaType(c.path); ok {
		note := fmt.Sprintf("Read %s file: %s", kind, shown)
		return Result{
			Output:  note,
			Parts:   []*genai.Part{{InlineData: &genai.Blob{MIMEType: mime, Data: f.Content}}},
			Display: note,
		}, nil
	}
	if isBinary(f.Content) {
		return Result{Output: "Cannot display content of binary file: " + c.path, Display: "Skipped binary file: " + shown}, nil
	}

	text := toLF(string(f.Content))
	lines := strings.Split(text, "\n")
	endsWithNewline := strings.HasSuffix(text, "\n")
	if endsWithNewline {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if c.offset > 0 && c.offset >= total {
		return failure(fmt.Sprintf("start_line %d is beyond the end of the file: %s has %d %s.", c.offset+1, c.path, total, plural(total, "line", "lines"))), nil
	}
	end := min(c.offset+c.limit, total)
	selected := lines[c.offset:end]
	cut := false
	var b strings.Builder
	for i, line := range selected {
		line, lineCut := cutLine(line)
		cut = cut || lineCut
		b.WriteString(line)
		if i < len(selected)-1 || end < total || endsWithNewline {
			b.WriteByte('\n')
		}
	}
	content := b.String()
	if c.offset == 0 && end == total && !cut {
		return Result{Output: content}, nil
	}
	note := fmt.Sprintf("showing lines %d-%d of %d total lines", c.offset+1, end, total)
	return Result{
		Output:  fmt.Sprintf("[File content truncated: %s...]\n", note) + content,
		Display: fmt.Sprintf("Read %s (%s)", shown, note),
	}, nil
}
