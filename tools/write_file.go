package tools

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

type writeFileTool struct {
	ws       *workspace.Workspace
	proposer ChangeProposer
}

func (t *writeFileTool) Name() string { return WriteFileName }

func (t *writeFileTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name: WriteFileName,
		Description: "Writes content to a file in the workspace, replacing the whole file or creating it (and missing parent directories). " +
			"The user reviews the change in the editor and may accept, modify or decline it.",
		ParametersJsonSchema: object([]string{"file_path", "content"}, map[string]any{
			"file_path": prop("string", "The file to write: absolute, or relative to the workspace root."),
			"content":   prop("string", "The complete new content of the file."),
		}),
	}
}

func (t *writeFileTool) Build(raw map[string]any) (Call, error) {
	a := args(raw)
	path, _, err := a.str("file_path", true)
	if err != nil {
		return nil, err
	}
	content, _, err := a.str("content", true)
	if err != nil {
		return nil, err
	}
	abs, err := resolvePath(t.ws, "file_path", path)
	if err != nil {
		return nil, err
	}
	return &writeFileCall{ws: t.ws, proposer: t.proposer, path: abs, content: content}, nil
}

type writeFileCall struct {
	ws       *workspace.Workspace
	proposer ChangeProposer
	path     string
	content  string
}

func (c *writeFileCall) Title() string { return "WriteFile " + displayPath(c.ws, c.path) }

func (c *writeFileCall) Kind() Kind { return KindEdit }

func (c *writeFileCall) Confirmation() *Confirmation { return nil }

func (c *writeFileCall) Execute(ctx context.Context) (Result, error) {
	isDir, err := c.ws.Stat(c.path)
	if err != nil && !errors.Is(err, workspace.ErrNotExist) {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if err == nil && isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	change, err := c.ws.PrepareChange(c.path, c.content)
	if err != nil {
		return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
	}
	if change.Exists && change.Before == change.After {
		return Result{Output: fmt.Sprintf("The file %s already has exactly this content; nothing was changed.", c.path)}, nil
	}
	applied := "Successfully created and wrote to new file: " + c.path
	if change.Exists {
		applied = "Successfully overwrote file: " + c.path
	}
	return propose(ctx, c.ws, c.proposer, change, applied)
}
