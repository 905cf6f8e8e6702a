package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// maxListedEntries is how many entries list_directory shows. A bigger
// directory is read whole and sorted, then cut, saying how many entries
// were left out: the same ones every time.
const maxListedEntries = 1000

// listDirectoryParams are list_directory's parameters, as Gemini CLI 0.61
// declares them. Older calls' path and respect_git_ignore are normalized
// to them (fromOlder).
type listDirectoryParams struct {
	DirPath       string         `json:"dir_path" was:"path" jsonschema:"The path to the directory to list: absolute, or relative to the workspace root (use \".\" for the root)."`
	Ignore        []string       `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore, matched against entry names, e.g. [\"*.log\"]."`
	FileFiltering map[string]any `json:"file_filtering_options,omitempty" jsonschema:"Optional: Whether to respect ignore patterns from .gitignore or .geminiignore: an object with the booleans respect_git_ignore and respect_gemini_ignore (both default to true). respect_git_ignore false lists what .gitignore ignores; .geminiignore always holds (only the user's settings lift it)."`
}

// listDirectory is list_directory over ws, with the context files around
// what it lists from memory.
func listDirectory(ws *workspace.Workspace, memory ContextDiscoverer) *Defined[listDirectoryParams] {
	return Define(Spec{
		Name: ListDirectoryName,
		Description: "Lists the names of files and subdirectories directly within a specified workspace directory, directories first, with file sizes. " +
			"Can optionally ignore entries matching provided glob patterns, and those .gitignore or .geminiignore ignore.",
		Annotations: Annotations{Kind: dialog.KindRead, ReadOnly: true},
		Aliases:     []string{"LSTool"},
	}, func(p listDirectoryParams) (Call, error) {
		if err := validatePatterns("ignore", p.Ignore); err != nil {
			return nil, err
		}
		liftGit, err := gitIgnoreLifted(p.FileFiltering)
		if err != nil {
			return nil, err
		}
		abs, err := resolvePath(ws, "dir_path", p.DirPath)
		if err != nil {
			return nil, err
		}
		return &listDirectoryCall{ws: ws, memory: memory, dir: abs, ignore: p.Ignore, liftGitIgnore: liftGit, maxShown: maxListedEntries}, nil
	})
}

// fromOlder turns respect_git_ignore, which said whether both .gitignore
// and .geminiignore were respected, into file_filtering_options saying
// so of each (path is renamed to dir_path by its was tag).
func (listDirectoryParams) fromOlder(args map[string]any) (map[string]any, error) {
	respect, ok := args["respect_git_ignore"]
	if !ok {
		return args, nil
	}
	if args["file_filtering_options"] != nil {
		return nil, errors.New("respect_git_ignore is an older name for file_filtering_options: give only file_filtering_options")
	}
	args = maps.Clone(args) // raw is the model's call, kept as made
	delete(args, "respect_git_ignore")
	if respect != nil {
		args["file_filtering_options"] = map[string]any{"respect_git_ignore": respect, "respect_gemini_ignore": respect}
	}
	return args, nil
}

type listDirectoryCall struct {
	ws            *workspace.Workspace
	memory        ContextDiscoverer
	dir           string
	ignore        []string
	liftGitIgnore bool // list .git and what .gitignore ignores too (never .geminiignore)
	maxShown      int  // entries shown at most
}

func (c *listDirectoryCall) Title() string {
	return "ReadFolder " + c.ws.Display(c.dir)
}

func (c *listDirectoryCall) Confirmation() *Confirmation { return nil }

func (c *listDirectoryCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	isDir, err := c.ws.Stat(c.dir)
	if errors.Is(err, workspace.ErrNotExist) {
		return failure(fmt.Sprintf("Directory not found or inaccessible: %s", c.dir)), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.dir, err)
	}
	if !isDir {
		return failure(fmt.Sprintf("Path is not a directory: %s", c.dir)), nil
	}
	if refused := gitDirRefused(c.ws, c.dir); refused != "" {
		return failure(refused), nil
	}
	entries, omitted, err := c.ws.ReadDir(ctx, c.dir)
	if err != nil {
		return Result{}, fmt.Errorf("listing %s: %w", c.dir, err)
	}

	shown, ignored := c.shownEntries(ctx, entries)
	notShown := max(0, len(shown)-c.maxShown)
	shown = shown[:len(shown)-notShown]

	var b strings.Builder
	if len(shown) == 0 {
		fmt.Fprintf(&b, "Directory %s is empty.", quoteName(c.dir))
	} else {
		fmt.Fprintf(&b, "Directory listing for %s:", quoteName(c.dir))
		for _, e := range shown {
			if e.IsDir {
				fmt.Fprintf(&b, "\n[DIR] %s", quoteName(e.Name))
			} else {
				size := "size unknown"
				if info, err := c.ws.Info(e); err == nil {
					size = fmt.Sprintf("%d bytes", info.Size)
				}
				fmt.Fprintf(&b, "\n%s (%s)", quoteName(e.Name), size)
			}
		}
	}
	display := fmt.Sprintf("Listed %d item(s).", len(shown))
	if notShown > 0 {
		fmt.Fprintf(&b, "\n\n(%d more entries not shown; list a subdirectory, or find files with glob)", notShown)
		display += fmt.Sprintf(" (%d more entries not shown)", notShown)
	}
	if ignored > 0 {
		fmt.Fprintf(&b, "\n\n(%d ignored)", ignored)
		display += fmt.Sprintf(" (%d ignored)", ignored)
	}
	if note := omittedNote(omitted); note != "" {
		b.WriteString("\n\n" + note)
		display += " " + note
	}
	b.WriteString(discoverContext(ctx, c.memory, info.SessionID, c.dir))
	found := make([]dialog.Location, 0, len(shown))
	for _, e := range shown {
		found = append(found, dialog.Location{Path: e.Path, Dir: e.IsDir})
	}
	return Result{Output: b.String(), Display: display, Found: found}, nil
}

// shownEntries are the entries the listing shows, directories first and
// then by name, and how many it leaves out as ignored.
func (c *listDirectoryCall) shownEntries(ctx context.Context, entries []workspace.DirEntry) (shown []workspace.DirEntry, ignored int) {
	for _, e := range entries {
		if matchesAny(c.ignore, e.Name, true) {
			continue
		}
		// What the listing says is ignored counts .gitignore too: where
		// the call lifted it, each such entry is asked again without it.
		// A link is judged by where it leads as well.
		if e.Name == ".git" && !c.liftGitIgnore || inWorktrees(c.ws, e.Path) || e.Ignored && (!c.liftGitIgnore || hidden(ctx, c.ws, e.Path, true)) ||
			linkHidden(ctx, c.ws, e, c.liftGitIgnore) {
			ignored++
			continue
		}
		shown = append(shown, e)
	}
	slices.SortFunc(shown, func(x, y workspace.DirEntry) int {
		if x.IsDir != y.IsDir {
			if x.IsDir {
				return -1
			}
			return 1
		}
		if c := strings.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name)); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return shown, ignored
}

// gitIgnoreLifted reads a call's file_filtering_options: whether it
// lifts .gitignore (respect_git_ignore false), as Gemini CLI 0.61 lets
// it. Its respect_gemini_ignore false lifts nothing, unlike 0.61's:
// .geminiignore is the user's word on what the agent may read, which a
// model's argument cannot overrule (workspace.IgnoreFiles; settings'
// context.fileFiltering can).
func gitIgnoreLifted(opts map[string]any) (bool, error) {
	respectGit, err := filteringOption(opts, "respect_git_ignore")
	if err != nil {
		return false, err
	}
	if _, err := filteringOption(opts, "respect_gemini_ignore"); err != nil {
		return false, err
	}
	return !respectGit, nil
}

// filteringOption is the boolean name of file_filtering_options, true when
// absent.
func filteringOption(opts map[string]any, name string) (bool, error) {
	v, ok := opts[name]
	if !ok || v == nil {
		return true, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, fmt.Errorf("params/file_filtering_options/%s must be boolean", name)
	}
	return b, nil
}
