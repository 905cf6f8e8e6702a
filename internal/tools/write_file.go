package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// writeFileParams are write_file's parameters.
type writeFileParams struct {
	FilePath string `json:"file_path" jsonschema:"The file to write: absolute, or relative to the workspace root."`
	Content  string `json:"content" jsonschema:"The complete new content of the file."`
}

// writeFile is write_file over ws.
func writeFile(ws *workspace.Workspace) *Defined[writeFileParams] {
	return Define(Spec{
		Name: WriteFileName,
		Description: "Writes content to a file in the workspace, replacing the whole file or creating it (and missing parent directories). " +
			"The user reviews the change in the editor and may accept, modify or decline it.",
		Annotations: Annotations{Kind: dialog.KindEdit, EditsFiles: true},
		Aliases:     []string{"WriteFileTool"},
	}, func(p writeFileParams) (Call, error) {
		abs, err := resolvePath(ws, "file_path", p.FilePath)
		if err != nil {
			return nil, err
		}
		return &writeFileCall{ws: ws, path: abs, content: p.Content}, nil
	})
}

type writeFileCall struct {
	ws      *workspace.Workspace
	path    string
	content string
	// prepared is the change as Prepare made it, which Execute proposes;
	// nil when it was not prepared (Execute makes it then).
	prepared *preparedWrite
	// line is the first line the write changes, as Prepare found it: 1
	// for a new file, 0 for no change or not prepared.
	line int
}

// preparedWrite is a write's change, made from the file as read once.
type preparedWrite struct {
	change workspace.FileChange
	err    error
}

func (c *writeFileCall) Title() string { return "WriteFile " + c.ws.Display(c.path) }

func (c *writeFileCall) Confirmation() *Confirmation { return EditConfirmation(c.path) }

// Location is the file written and, once prepared, the first line the
// write changes. Gemini CLI 0.61's write_file gives its file alone
// (toolLocations: {path}); the line is gemini-ls's, so an editor opens
// the file where it changes.
func (c *writeFileCall) Location() (string, int) { return c.path, c.line }

// Prepare makes the change from the file as it is now (the editor's
// buffer where it is open), the one read of it, and finds the first line
// it changes.
func (c *writeFileCall) Prepare(ctx context.Context) {
	change, err := c.ws.PrepareChange(ctx, c.path, c.content)
	c.prepared = &preparedWrite{change: change, err: err}
	if err == nil {
		c.line = firstChangedLine(change)
	}
}

// firstChangedLine is the 1-based line of change.Before where change.After
// first differs from it: 1 for a new file, 0 when nothing changes.
func firstChangedLine(change workspace.FileChange) int {
	if !change.Exists {
		return 1
	}
	before, after := change.Before, change.After
	n := min(len(before), len(after))
	i := 0
	for i < n && before[i] == after[i] {
		i++
	}
	if i == n && len(before) == len(after) {
		return 0
	}
	// The line holding the first differing byte: a line both share up
	// to a point differs on that line.
	return strings.Count(before[:i], "\n") + 1
}

// takeChange is the change as Prepare made it, else as made now. A file
// changed since (by a BeforeTool hook) is caught where the change lands:
// it then does not land, and the model is told so.
func (c *writeFileCall) takeChange(ctx context.Context) (workspace.FileChange, error) {
	if p := c.prepared; p != nil {
		c.prepared = nil
		return p.change, p.err
	}
	return c.ws.PrepareChange(ctx, c.path, c.content)
}

func (c *writeFileCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	isDir, err := c.ws.Stat(c.path)
	if err != nil && !errors.Is(err, workspace.ErrNotExist) {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if err == nil && isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	change, err := c.takeChange(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
	}
	// Gemini CLI 0.61 writes an ignored file as any other; what the
	// model is told of it afterwards never shows what read_file refuses.
	hid := hidden(ctx, c.ws, c.path, false)
	if change.Exists && change.Before == change.After {
		return Result{Output: fmt.Sprintf("The file %s already has exactly this content; nothing was changed.", c.path)}, nil
	}
	applied := "Successfully created and wrote to new file: " + c.path
	if change.Exists {
		applied = "Successfully overwrote file: " + c.path
	}
	return propose(c.ws, change, applied, hid)
}
