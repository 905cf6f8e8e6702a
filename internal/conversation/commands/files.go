package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// WorkspaceFiles reads @{path} injections from a workspace, with the
// rules of a prompt's @path: inside the roots only, ignore files obeyed,
// files read as @paths read them (text, or images and PDFs as
// data). A relative path is looked for in each root in turn, as Gemini
// CLI's readPathFromWorkspace does; a directory brings every file below
// it, laid out as Gemini CLI lays it out.
type WorkspaceFiles struct{ WS *workspace.Workspace }

func (f WorkspaceFiles) Read(ctx context.Context, path string) ([]*genai.Part, error) {
	abs, isDir, err := f.find(path)
	if err != nil {
		return nil, err
	}
	ref, ok, err := tools.ResolveReference(ctx, f.WS, abs)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("path not found in workspace: %s", path)
	case ref.Ignored && !isDir:
		return nil, nil
	}
	got, err := tools.ReadReferences(ctx, f.WS, []string{ref.Spec})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !isDir {
		if len(got.Files) == 0 {
			if len(got.Skipped) > 0 {
				return nil, fmt.Errorf("%s was not read: %s", path, got.Skipped[0].Reason)
			}
			return nil, nil
		}
		return []*genai.Part{fileContent(got.Files[0])}, nil
	}
	parts := []*genai.Part{genai.NewPartFromText("--- Start of content for directory: " + path + " ---\n")}
	for _, file := range got.Files {
		rel, err := filepath.Rel(abs, file.Path)
		if err != nil {
			rel = file.Rel
		}
		parts = append(parts, genai.NewPartFromText("--- "+rel+" ---\n"), fileContent(file), genai.NewPartFromText("\n"))
	}
	return append(parts, genai.NewPartFromText("--- End of content for directory: "+path+" ---")), nil
}

// find is the file or directory path names in the workspace.
func (f WorkspaceFiles) find(path string) (abs string, isDir bool, err error) {
	if f.WS == nil {
		return "", false, errors.New("there is no workspace to read it from")
	}
	if filepath.IsAbs(path) {
		abs, err := f.WS.Resolve(path)
		if err != nil {
			return "", false, fmt.Errorf("absolute path is outside of the allowed workspace: %s", path)
		}
		isDir, err := f.WS.Stat(abs)
		if err != nil {
			return "", false, fmt.Errorf("path not found in workspace: %s", path)
		}
		return abs, isDir, nil
	}
	for _, root := range f.WS.Roots() {
		abs, err := f.WS.Resolve(filepath.Join(root, path))
		if err != nil {
			continue // leads out of the roots
		}
		if isDir, err := f.WS.Stat(abs); err == nil {
			return abs, isDir, nil
		}
	}
	return "", false, fmt.Errorf("path not found in workspace: %s", path)
}

// fileContent is the part one read file gives the model.
func fileContent(file tools.ManyFile) *genai.Part {
	if file.Part != nil {
		return file.Part
	}
	text := file.Text
	if file.Truncated {
		text = "[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\n" + text
	}
	return genai.NewPartFromText(text)
}
