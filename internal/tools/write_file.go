package tools

import (
	"context"
	"errors"
	"fmt"

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
}

func (c *writeFileCall) Title() string { return "WriteFile " + c.ws.Display(c.path) }

func (c *writeFileCall) Confirmation() *Confirmation { return EditConfirmation(c.path) }

// Location is the file written.
func (c *writeFileCall) Location() (string, int) { return c.path, 0 }

func (c *writeFileCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	isDir, err := c.ws.Stat(c.path)
	if err != nil && !errors.Is(err, workspace.ErrNotExist) {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if err == nil && isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	change, err := c.ws.PrepareChange(ctx, c.path, c.content)
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
