package setup

import (
	"context"

	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/settings"
)

// CustomCommands reads the user's custom commands and the first root's,
// as they are on disk now, under the one trust decision: in a root the
// user does not trust there are none (see commands.Load). errs are the
// files skipped, each with its path.
func (b *Built) CustomCommands(ctx context.Context) (cmds []commands.Custom, errs []error) {
	roots := b.opts.Workspace.Roots()
	if len(roots) == 0 {
		return nil, nil
	}
	return commands.Load(ctx, settings.UserDir(b.Getenv), roots[0], b.Trust.Trusted(roots[0]))
}
