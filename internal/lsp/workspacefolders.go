package lsp

import (
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// didChangeWorkspaceFoldersParams is the notification's params.
type didChangeWorkspaceFoldersParams struct {
	Event struct {
		Added   []workspaceFolder `json:"added"`
		Removed []workspaceFolder `json:"removed"`
	} `json:"event"`
}

// didChangeWorkspaceFolders makes the editor's folders the workspace's
// roots, in the workspace, which owns them: a folder removed is out of
// the agent's reach at once, even mid-turn (an edit into it is refused
// as it lands); one added is reachable at once. The next prompt builds
// the agent anew for them (setup.Built.RootsChanged): their trust is
// asked, their settings, GEMINI.md files and ignore rules read. A folder
// that cannot be added or removed is told of and skipped; the others
// still count.
func (s *Server) didChangeWorkspaceFolders(p didChangeWorkspaceFoldersParams) error {
	ws := s.agentState.workspace()
	if ws == nil {
		return nil
	}
	var problems []error
	for _, f := range p.Event.Removed {
		if err := changeRoot(f, ws.RemoveRoot); err != nil {
			problems = append(problems, err)
		}
	}
	for _, f := range p.Event.Added {
		if err := changeRoot(f, ws.AddRoot); err != nil {
			problems = append(problems, err)
		}
	}
	s.log.Info("workspace folders changed", zap.Strings("roots", ws.Roots()))
	if len(problems) > 0 {
		s.warnUser("didChangeWorkspaceFolders", fmt.Errorf("the workspace folders changed, but not all: %w", errors.Join(problems...)))
	}
	return nil
}

// changeRoot adds or removes (change) the root of folder f.
func changeRoot(f workspaceFolder, change func(string) (string, bool, error)) error {
	path, err := uriToPath(f.URI)
	if err != nil {
		return fmt.Errorf("workspace folder %q: %w", f.URI, err)
	}
	_, _, err = change(path)
	if errors.Is(err, workspace.ErrFirstRoot) {
		return fmt.Errorf("%s stays in gemini-ls's workspace until it restarts: %w", path, err)
	}
	return err
}
