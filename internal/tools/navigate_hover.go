package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A hover is asked of a file the model may read, but its text shows the
// declaration of the symbol there, wherever that is: a constant's value,
// a signature, its documentation, from a file outside the workspace or
// one the ignore rules keep from the model. So navigate_code asks first
// where the symbol is declared (a definition request at the same place)
// and shows the hover only when every declaration lies where read_file
// would read; else it says the text was withheld, and why.

// hoverWithheld is what the model is told instead of the hover text of
// the symbol req points at when a declaration of it lies where the model
// may not read; "" when the hover may be shown (a symbol declared in
// readable files, or one declared nowhere: a keyword, a literal). Its
// error is the server's failure to say where, which fails the call as
// the hover's own would.
func (c *navigateCodeCall) hoverWithheld(ctx context.Context, req codeintel.Request) (string, error) {
	def := req
	def.Op = codeintel.Definition
	a, err := askServer(ctx, c.p, def)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w (asked where %s is declared, as a hover is shown only when you may read its declaration)", err, c.symbol)
	}
	locs, err := codeintel.Locations(a.Result)
	if err != nil {
		return fmt.Sprintf("The hover text of %s is withheld: where %s is declared could not be read from the language server's answer (%v), so whether you may see its declaration cannot be told.", c.symbol, c.symbol, err), nil
	}
	var why []string
	for _, loc := range locs {
		if w := keptPlace(ctx, c.ws, loc.Path); w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	if len(why) == 0 {
		return "", nil
	}
	return fmt.Sprintf("The hover text of %s (from %s) is withheld: %s is declared %s, and its hover shows that declaration (its value, signature or documentation), which you may not read.",
		c.symbol, a.Source, c.symbol, strings.Join(why, " and ")), nil
}

// keptPlace says where path, a file a language server named, lies when
// the model may not read it, as read_file decides: "outside the
// workspace", "in .git", "in a file ignored by .gitignore or
// .geminiignore"; "" when it may read it.
func keptPlace(ctx context.Context, ws *workspace.Workspace, path string) string {
	if path == "" {
		return "outside the workspace" // a URI naming no file: a jar: entry, an untitled buffer
	}
	resolved, err := ws.Resolve(path)
	switch {
	case errors.Is(err, workspace.ErrOutsideRoots):
		return "outside the workspace"
	case err != nil:
		return "in a file that cannot be checked"
	case inGitDir(ws, resolved):
		return "in .git"
	case inWorktrees(ws, resolved):
		return "in an agent's worktree (.gemini/worktrees)"
	}
	switch ignored, err := ws.Ignored(ctx, resolved); {
	case err != nil:
		return "in a file that cannot be checked"
	case ignored:
		return "in a file ignored by .gitignore or .geminiignore"
	}
	return ""
}
