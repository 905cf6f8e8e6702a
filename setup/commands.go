package setup

import (
	"context"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// UserCommands are the user's commands as they are now: the custom
// commands of the user's and the first root's TOML files, read from disk
// under the one trust decision (in a root the user does not trust there
// are none, see commands.Load), and the running MCP servers' prompts.
// Its Errs are the command files skipped, each with its path.
func (b *Built) UserCommands(ctx context.Context) commands.UserCommands {
	var custom []commands.Custom
	var errs []error
	if roots := b.opts.Workspace.Roots(); len(roots) > 0 {
		custom, errs = commands.Load(ctx, settings.UserDir(b.Getenv), roots[0], b.Trust.Trusted(roots[0]))
	}
	return commands.ReadUserCommands(ctx, custom, errs, b.Tools)
}

// CommandShell runs a custom command's !{…} commands in dir, each once
// sess's approval door allows it as it would a run_shell_command call of
// it (asking through the front end where it must); none runs while that
// tool is not enabled.
func (b *Built) CommandShell(sess *agent.Session, dir string) commands.Shell {
	_, enabled := b.Tools.Registry.Get(tools.ShellName)
	return commands.ToolShell{Enabled: enabled, Allow: sess.AllowShell, Dir: dir}
}

// Workspace is the workspace the agent works in.
func (b *Built) Workspace() *workspace.Workspace { return b.opts.Workspace }

// Version is gemini-ls's version, as the front end gave it.
func (b *Built) Version() string { return b.opts.Version }
