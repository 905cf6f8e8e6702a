package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// rename_symbol is gemini-ls's own tool: a language server's rename of
// a symbol (textDocument/rename) made one change across files, proposed
// as every edit is (FilesProposal: the editor previews it, the approval
// mode decides headless), and the model told the files and edits that
// changed, or the server's refusal in its words. Files the model may
// not read are never changed: a rename reaching one is refused whole.

type renameSymbolParams struct {
	FilePath   string `json:"file_path" jsonschema:"The file holding the symbol: absolute, or relative to the workspace root."`
	Line       int    `json:"line" jsonschema:"The 1-based line the symbol is on, as read_file numbers lines."`
	Symbol     string `json:"symbol" jsonschema:"The symbol's current name exactly as it appears on that line."`
	NewName    string `json:"new_name" jsonschema:"The new name."`
	Occurrence int    `json:"occurrence,omitempty" jsonschema:"Optional: which appearance of the symbol on the line, 1-based from the left, when it appears more than once."`
}

func renameSymbol(ws *workspace.Workspace, p codeintel.Provider) *Defined[renameSymbolParams] {
	return Define(Spec{
		Name: RenameSymbolName,
		Description: "Renames a symbol (a variable, function, type, method, field…) everywhere it is used, through the language server, as an IDE's rename does: " +
			"only the symbol's own references change, never comments, strings or other symbols of the same name. " +
			"Prefer it to replace for renames across files. Name the symbol by its line and its text on that line. " +
			"The change across every file is proposed to the user at once; the result lists the files and edits that changed.",
		Annotations: Annotations{Kind: dialog.KindEdit, EditsFiles: true},
	}, func(params renameSymbolParams) (Call, error) {
		switch {
		case params.Line < 1:
			return nil, errors.New("'line' must be the 1-based line the symbol is on.")
		case strings.TrimSpace(params.NewName) == "":
			return nil, errors.New("The 'new_name' parameter must be non-empty.")
		case params.NewName == params.Symbol:
			return nil, errors.New("'new_name' is the symbol's name already.")
		}
		abs, err := resolvePath(ws, "file_path", params.FilePath)
		if err != nil {
			return nil, err
		}
		return &renameSymbolCall{ws: ws, p: p, path: abs, line: params.Line, symbol: params.Symbol, newName: params.NewName, occurrence: params.Occurrence}, nil
	})
}

type renameSymbolCall struct {
	ws               *workspace.Workspace
	p                codeintel.Provider
	path             string
	line, occurrence int
	symbol, newName  string
}

func (c *renameSymbolCall) Title() string {
	return fmt.Sprintf("Rename %s to %s (%s:%d)", c.symbol, c.newName, c.ws.Display(c.path), c.line)
}

func (c *renameSymbolCall) Location() (string, int) { return c.path, c.line }

func (c *renameSymbolCall) Confirmation() *Confirmation { return EditConfirmation(c.path) }

func (c *renameSymbolCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	text, err := readSymbolFile(ctx, c.ws, c.path)
	if err != nil {
		return failureOf(ctx, err)
	}
	pos, err := findSymbol(text, c.line, c.symbol, c.occurrence)
	if err != nil {
		return failure(err.Error()), nil
	}
	a, err := askServer(ctx, c.p, codeintel.Request{Op: codeintel.Rename, Path: c.path, Text: text, Position: pos, NewName: c.newName, Ask: serverAsk(info)})
	if err != nil {
		return failureOf(ctx, err)
	}
	edits, err := codeintel.Edits(a.Result)
	if err != nil {
		return failure(fmt.Sprintf("The language server's rename could not be used: %v", err)), nil
	}
	if len(edits) == 0 {
		return failure(fmt.Sprintf("The language server (%s) proposed no change for renaming %s.", a.Source, c.symbol)), nil
	}
	// In path order, as navigate_code lists files, whatever order the
	// server gave.
	slices.SortStableFunc(edits, func(a, b codeintel.Edit) int { return workspace.ComparePaths(a.Path, b.Path) })
	changes, counts, err := c.prepare(ctx, edits, a.Encoding)
	if err != nil {
		return failureOf(ctx, err)
	}
	return Result{Files: &FilesProposal{
		Title:   fmt.Sprintf("Rename %s to %s", c.symbol, c.newName),
		Changes: changes,
		counts:  counts,
		names:   displayNames(c.ws, changes),
		source:  a.Source,
		caveat:  a.Caveat,
	}}, nil
}

// prepare turns the server's edits into whole-file changes, each made
// from the text the workspace holds (the editor's buffer when open).
// A file outside the roots or ignored refuses the whole rename: the
// model may not change what it may not read, and half a rename breaks
// the code.
func (c *renameSymbolCall) prepare(ctx context.Context, edits []codeintel.Edit, enc workspace.Encoding) ([]workspace.FileChange, []int, error) {
	changes := make([]workspace.FileChange, 0, len(edits))
	counts := make([]int, 0, len(edits))
	for _, e := range edits {
		if e.Path == "" {
			return nil, nil, fmt.Errorf("The rename would change %s, which is not a file; nothing was changed.", e.URI)
		}
		path, err := c.ws.Resolve(e.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("The rename would change %s, outside the workspace; nothing was changed.", e.Path)
		}
		text, err := readSymbolFile(ctx, c.ws, path)
		if err != nil {
			return nil, nil, fmt.Errorf("The rename would change %s, which cannot be changed (%v); nothing was changed.", c.ws.Display(path), err)
		}
		after, err := workspace.ApplyEdits(text, e.Edits, enc)
		if err != nil {
			return nil, nil, fmt.Errorf("applying the rename's edits to %s: %w", c.ws.Display(path), err)
		}
		change, err := c.ws.PrepareChange(ctx, path, after)
		if err != nil {
			return nil, nil, fmt.Errorf("preparing the change of %s: %w", c.ws.Display(path), err)
		}
		if change.Before != text {
			return nil, nil, fmt.Errorf("%s changed while the rename was prepared; nothing was changed. Try again.", c.ws.Display(path))
		}
		changes = append(changes, change)
		counts = append(counts, len(e.Edits))
	}
	return changes, counts, nil
}

func displayNames(ws *workspace.Workspace, changes []workspace.FileChange) []string {
	names := make([]string, len(changes))
	for i, ch := range changes {
		names[i] = ws.Display(ch.Path)
	}
	return names
}
