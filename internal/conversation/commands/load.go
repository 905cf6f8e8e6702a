package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/tomldepth"
)

// Bounds on what a commands directory may make gemini-ls read: a
// workspace's .gemini/commands is anyone's to fill.
const (
	maxFileSize = 256 << 10 // bytes of one TOML file
	maxFiles    = 1000      // TOML files of one directory tree
	maxDepth    = 8         // directories below the commands directory
)

// Source says where a command was declared.
type Source int

const (
	BuiltIn   Source = iota // gemini-ls itself
	User                    // ~/.gemini/commands
	Project                 // <root>/.gemini/commands
	MCP                     // an MCP server's prompt
	Extension               // an extension's commands directory
)

func (s Source) String() string {
	switch s {
	case BuiltIn:
		return "built-in"
	case User:
		return "user"
	case Project:
		return "project"
	case MCP:
		return "mcp"
	case Extension:
		return "extension"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Custom is a command of a TOML file.
type Custom struct {
	Name        string // "git:commit" for git/commit.toml
	Description string // the file's, else "Custom command from <file>"
	Source      Source // User, Project or Extension
	File        string // the TOML file
	// Extension is the name of the extension whose command it is; "" for
	// the user's and the project's.
	Extension string
	Prompt    string // the template: {{args}}, !{…}, @{…}
}

// FileError is a command file that was skipped, and why.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("custom command %s skipped: %v", e.Path, e.Err)
}
func (e *FileError) Unwrap() error { return e.Err }

// Dir is the directory commands of userDir (settings.UserDir) are in.
func Dir(userDir string) string {
	if userDir == "" {
		return ""
	}
	return filepath.Join(userDir, "commands")
}

// ProjectDir is the directory root's commands are in.
func ProjectDir(root string) string { return configfiles.In(root, "commands") }

// Load reads the custom commands of the user's directory (userDir as
// settings.UserDir gives it) and, when root is trusted, of root's
// .gemini/commands, by name, sorted; a project command replaces a user
// command of its name. As in Gemini CLI 0.61 (FileCommandLoader's
// getCommandDirectories), the user's are read whatever the folder: only
// the project's wait for trust. errs are the files skipped, each a
// *FileError, and directories that could not be read.
func Load(ctx context.Context, userDir, root string, trusted bool) (cmds []Custom, errs []error) {
	byName := map[string]Custom{}
	dirs := []struct {
		path   string
		source Source
	}{{Dir(userDir), User}}
	// A root that is the home directory has the user's commands as its
	// own: loaded once, as the user's.
	if p := ProjectDir(root); trusted && root != "" && !sameDir(p, Dir(userDir)) {
		dirs = append(dirs, struct {
			path   string
			source Source
		}{p, Project})
	}
	for _, d := range dirs {
		if d.path == "" {
			continue
		}
		found, dirErrs := loadDir(ctx, d.path, d.source)
		errs = append(errs, dirErrs...)
		for _, c := range found {
			byName[c.Name] = c // the last of a name wins
		}
	}
	for _, c := range byName {
		cmds = append(cmds, c)
	}
	slices.SortFunc(cmds, func(a, b Custom) int { return strings.Compare(a.Name, b.Name) })
	return cmds, errs
}

// sameDir reports whether a and b are one directory.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ai, errA := os.Stat(a)
	bi, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ai, bi)
}

// loader walks one commands directory.
type loader struct {
	ctx    context.Context
	base   string // the directory as named, for command names
	real   string // the directory with its symlinks resolved
	source Source
	files  int
	cmds   []Custom
	errs   []error
}

// loadDir reads every *.toml below dir. A missing directory has no
// commands and is no error.
func loadDir(ctx context.Context, dir string, source Source) ([]Custom, []error) {
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("reading custom commands from %s: %w", dir, err)}
	}
	l := &loader{ctx: ctx, base: dir, real: real, source: source}
	l.walk(dir, real, 0)
	return l.cmds, l.errs
}

// walk reads the directory named path (whose symlinks resolve to real),
// depth below the commands directory, in name order.
func (l *loader) walk(path, real string, depth int) {
	entries, err := safefile.ReadDir(real, 0)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("reading custom commands from %s: %w", path, err))
		return
	}
	for _, e := range entries {
		if l.ctx.Err() != nil || l.files > maxFiles {
			return
		}
		name := filepath.Join(path, e.Name())
		target := filepath.Join(real, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			resolved, dir, err := l.followLink(target)
			if err != nil {
				if strings.HasSuffix(e.Name(), ".toml") || dir {
					l.errs = append(l.errs, &FileError{Path: name, Err: err})
				}
				continue
			}
			target, isDir = resolved, dir
		}
		switch {
		case isDir && depth+1 > maxDepth:
			l.errs = append(l.errs, &FileError{Path: name, Err: fmt.Errorf("more than %d directories deep", maxDepth)})
		case isDir:
			l.walk(name, target, depth+1)
		case strings.HasSuffix(e.Name(), ".toml"):
			l.files++
			if l.files > maxFiles {
				l.errs = append(l.errs, fmt.Errorf("reading custom commands from %s: more than %d files; the rest are skipped", l.base, maxFiles))
				return
			}
			l.load(name, target)
		}
	}
}

// followLink resolves a symlink in the commands directory, refusing one
// that leads out of it (and so a loop back into a parent).
func (l *loader) followLink(link string) (target string, isDir bool, err error) {
	target, err = filepath.EvalSymlinks(link)
	if err != nil {
		return "", false, fmt.Errorf("following the symlink: %w", err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return "", false, fmt.Errorf("following the symlink: %w", err)
	}
	rel, err := filepath.Rel(l.real, target)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", info.IsDir(), fmt.Errorf("the symlink leads out of %s, to %s: refused", l.base, target)
	}
	return target, info.IsDir(), nil
}

// load reads one TOML file (named name, at real) into a command.
func (l *loader) load(name, real string) {
	c, err := parseFile(real)
	if err != nil {
		l.errs = append(l.errs, &FileError{Path: name, Err: err})
		return
	}
	rel, _ := filepath.Rel(l.base, name)
	c.Name = commandName(rel)
	c.Source = l.source
	c.File = name
	if c.Description == "" {
		c.Description = "Custom command from " + filepath.Base(name)
	}
	c.Description = sanitizeForDisplay(c.Description, 100)
	l.cmds = append(l.cmds, c)
}

// parseFile reads and checks a command file: a string prompt (required)
// and a string description (optional); other keys are ignored, as Gemini
// CLI's schema ignores them.
func parseFile(path string) (Custom, error) {
	data, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return Custom{}, err
	}
	if !utf8.Valid(data) {
		return Custom{}, errors.New("not UTF-8 text")
	}
	if err := tomldepth.Check(string(data)); err != nil {
		return Custom{}, fmt.Errorf("not valid TOML: %w", err)
	}
	var def map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&def); err != nil {
		return Custom{}, fmt.Errorf("not valid TOML: %w", err)
	}
	var c Custom
	switch p := def["prompt"].(type) {
	case nil:
		return Custom{}, errors.New("the 'prompt' field is required")
	case string:
		c.Prompt = p
	default:
		return Custom{}, errors.New("the 'prompt' field must be a string")
	}
	switch d := def["description"].(type) {
	case nil:
	case string:
		c.Description = d
	default:
		return Custom{}, errors.New("the 'description' field must be a string")
	}
	return c, nil
}

var unsafeName = lazyregexp.New(`[^a-zA-Z0-9_\-.]`)

// commandName is the name of the command of the file at rel (relative to
// its commands directory): its directories and name without ".toml",
// joined by ":", each part with characters other than letters, digits,
// "_", "-" and "." made "_" (so a ":" cannot fake a namespace) and cut to
// 50 characters, as Gemini CLI names it.
func commandName(rel string) string {
	parts := strings.Split(strings.TrimSuffix(rel, ".toml"), string(filepath.Separator))
	for i, p := range parts {
		p = unsafeName.ReplaceAllString(p, "_")
		if len(p) > 50 {
			p = p[:47] + "..."
		}
		parts[i] = p
	}
	return strings.Join(parts, ":")
}

var ansiEscape = lazyregexp.New(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// sanitizeForDisplay makes a description one line for a list, as Gemini
// CLI's sanitizeForDisplay does: escape sequences and control and
// bidirectional characters removed, whitespace runs made one space, and
// more than max characters cut to max with "...".
func sanitizeForDisplay(s string, max int) string {
	s = ansiEscape.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20 || (r >= 0x7f && r <= 0x9f), r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200b, r == 0xfeff:
			return -1
		}
		return r
	}, s)
	s = collapseSpace(s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max-3]) + "..."
	}
	return s
}

// collapseSpace makes each run of white space one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if isSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
