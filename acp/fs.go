package acp

// SKELETON (helper "edits" replaces this file): reads through
// fs/read_text_file.

import "github.com/gemini-ls/gemini-ls/workspace"

// newWorkspace is the workspace of a session in cwd.
func (sess *session) newWorkspace(cwd string) (*workspace.Workspace, error) {
	return workspace.New([]string{cwd}, nil)
}
