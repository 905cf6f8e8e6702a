package conversation

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// userCommands are the user's commands as they are now: the custom
// commands of the user's and the first root's TOML files, then the
// enabled extensions' (renamed "<extension>.<name>" where a built-in or
// one of the others has their name), read from disk under the one trust
// decision (in a root the user does not trust, the user's alone, see
// commands.Load), and the running MCP servers' prompts. Its Errs are the
// command files skipped, each with its path.
func userCommands(ctx context.Context, built *setup.Built) commands.UserCommands {
	var custom []commands.Custom
	var errs []error
	if r := root(built); r != "" {
		trusted := built.Trust.Trusted(r)
		custom, errs = commands.Load(ctx, settings.UserDir(built.Getenv), r, trusted)
		var dirs []commands.ExtensionDir
		for _, e := range built.Extensions.Active() {
			dirs = append(dirs, commands.ExtensionDir{Name: e.Name, Dir: e.CommandsDir()})
		}
		// By name: a built-in's other name is the extension's to take, as
		// Gemini CLI renames only over names.
		isBuiltin := func(name string) bool { b, ok := builtin.Find(name); return ok && b.Name == name }
		ext, extErrs := commands.LoadExtensions(ctx, dirs, custom, isBuiltin, trusted)
		custom, errs = append(custom, ext...), append(errs, extErrs...)
	}
	return commands.ReadUserCommands(ctx, custom, errs, built.Tools)
}

// commandShell runs a custom command's !{…} commands in the first root,
// each once sess's approval door allows it as it would a
// run_shell_command call of it (asking through the front end where it
// must: port); none runs while that tool is not enabled.
func commandShell(built *setup.Built, sess *agent.Session, port dialog.Port) commands.Shell {
	_, enabled := built.Tools.Registry.Get(tools.ShellName)
	allow := func(ctx context.Context, command string) (bool, error) { return sess.AllowShell(ctx, command, port) }
	return commands.ToolShell{Enabled: enabled, Allow: allow, Dir: root(built), Door: built.Door, Redaction: built.Redaction, Shell: built.Shell}
}

// root is the workspace root commands run in: the first.
func root(built *setup.Built) string {
	if roots := built.Workspace().Roots(); len(roots) > 0 {
		return roots[0]
	}
	return ""
}
