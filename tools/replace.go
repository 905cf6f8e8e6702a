package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/workspace"
)

type replaceTool struct {
	ws       *workspace.Workspace
	proposer ChangeProposer
}

func (t *replaceTool) Name() string { return ReplaceName }

func (t *replaceTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name: ReplaceName,
		Description: "Replaces exact text in a file in the workspace (as open in the editor). old_string must match the file literally, " +
			"whitespace and indentation included, with enough surrounding context (about 3 lines before and after) to be unique; " +
			"it must occur exactly expected_replacements times. An empty old_string creates a new file holding new_string. " +
			"The user reviews the change in the editor and may accept, modify or decline it.",
		ParametersJsonSchema: object([]string{"file_path", "old_string", "new_string"}, map[string]any{
			"file_path":             prop("string", "The file to edit: absolute, or relative to the workspace root."),
			"old_string":            prop("string", "The exact literal text to replace; empty to create a new file."),
			"new_string":            prop("string", "The exact literal text to put in its place."),
			"expected_replacements": map[string]any{"type": "integer", "minimum": 1, "description": "How many occurrences of old_string to replace. Defaults to 1."},
		}),
	}
}

func (t *replaceTool) Build(raw map[string]any) (Call, error) {
	a := args(raw)
	path, _, err := a.str("file_path", true)
	if err != nil {
		return nil, err
	}
	oldString, _, err := a.str("old_string", true)
	if err != nil {
		return nil, err
	}
	newString, _, err := a.str("new_string", true)
	if err != nil {
		return nil, err
	}
	expected, ok, err := a.integer("expected_replacements")
	if err != nil {
		return nil, err
	}
	if !ok {
		expected = 1
	}
	if expected < 1 {
		return nil, errors.New("params/expected_replacements must be >= 1")
	}
	// The model writes LF; files may not. Match and replace in LF and let
	// PrepareChange restore the file's line endings.
	oldString, newString = toLF(oldString), toLF(newString)
	if oldString == newString {
		return nil, errors.New("No changes to apply. The old_string and new_string are identical.")
	}
	abs, err := resolvePath(t.ws, "file_path", path)
	if err != nil {
		return nil, err
	}
	return &replaceCall{ws: t.ws, proposer: t.proposer, path: abs, oldString: oldString, newString: newString, expected: expected}, nil
}

type replaceCall struct {
	ws                   *workspace.Workspace
	proposer             ChangeProposer
	path                 string
	oldString, newString string
	expected             int
}

func (c *replaceCall) Title() string { return "Edit " + displayPath(c.ws, c.path) }

func (c *replaceCall) Kind() Kind { return KindEdit }

func (c *replaceCall) Confirmation() *Confirmation { return nil }

func (c *replaceCall) Execute(ctx context.Context) (Result, error) {
	isDir, err := c.ws.Stat(c.path)
	if errors.Is(err, workspace.ErrNotExist) {
		if c.oldString != "" {
			return failure("File not found. Cannot apply edit. Use an empty old_string to create a new file."), nil
		}
		change, err := c.ws.PrepareChange(c.path, c.newString)
		if err != nil {
			return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
		}
		return propose(ctx, c.ws, c.proposer, change, fmt.Sprintf("Created new file: %s with provided content.", c.path))
	}
	if err != nil {
		return Result{}, fmt.Errorf("checking %s: %w", c.path, err)
	}
	if isDir {
		return failure("Path is a directory, not a file: " + c.path), nil
	}
	if c.oldString == "" {
		return failure("Failed to edit. Attempted to create a file that already exists."), nil
	}
	f, err := c.ws.ReadFile(ctx, c.path, workspace.MaxFileSize)
	if err != nil {
		return Result{}, fmt.Errorf("reading %s: %w", c.path, err)
	}
	text := toLF(string(f.Content))
	found := strings.Count(text, c.oldString)
	switch {
	case found == 0:
		return failure(fmt.Sprintf("Failed to edit, 0 occurrences found for old_string in %s. No edits made. "+
			"The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. "+
			"Use read_file tool to verify.", c.path)), nil
	case found != c.expected:
		return failure(fmt.Sprintf("Failed to edit, expected %d occurrence(s) but found %d for old_string in file: %s", c.expected, found, c.path)), nil
	}
	change, err := c.ws.PrepareChange(c.path, strings.ReplaceAll(text, c.oldString, c.newString))
	if err != nil {
		return Result{}, fmt.Errorf("preparing change to %s: %w", c.path, err)
	}
	return propose(ctx, c.ws, c.proposer, change, fmt.Sprintf("Successfully modified file: %s (%d replacements).", c.path, found))
}
