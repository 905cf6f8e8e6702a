package manage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// exitError is Gemini CLI's exit status for a command that failed.
const exitError = 1

// Commands are the management commands, in the order help lists them;
// version is gemini-ls's, which mcp list tells the servers it connects to.
func Commands(version string) []cmdline.Command {
	e := mgmtEnv{getenv: os.Getenv, version: version}
	return []cmdline.Command{
		{Name: "mcp", Summary: "Manage MCP servers.", Run: e.unlessLocked("MCP", e.mcpCommand), Subcommands: e.mcpCommands()},
		{Name: "extensions", Args: "<command>", Summary: "Manage Gemini CLI extensions.", Run: e.unlessLocked("Extensions", extensionsCommand), Subcommands: extensionsCommands()},
		{Name: "skills", Args: "<command>", Summary: "Manage agent skills.", Run: e.unlessLocked("Agent skills", e.skillsCommand), Subcommands: e.skillsCommands()},
	}
}

// exitConfig is 0.61's exit status for a configuration that forbids
// what was asked (FATAL_CONFIG_ERROR).
const exitConfig = 52

// unlessLocked is run, unless the system settings' admin keys turn off
// feature (0.61's name of what the command group manages): then, as
// 0.61's runDeferredCommand, it says so and exits 52. Help is still
// shown.
func (e mgmtEnv) unlessLocked(feature string, run func(context.Context, []string, io.Reader, io.Writer, io.Writer) int) func(context.Context, []string, io.Reader, io.Writer, io.Writer) int {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		// `extensions --debug list` is `extensions list --debug`, as in
		// 0.61: the subcommand's name comes first.
		args = cmdline.CommandFirst(args)
		if !cmdline.AsksHelp(args) && adminLocks(settings.LoadAdmin(e.getenv), feature) {
			fmt.Fprintln(stderr, settings.AdminDisabledMessage(feature))
			return exitConfig
		}
		return run(ctx, args, stdin, stdout, stderr)
	}
}

// adminLocks reports whether admin turns feature off.
func adminLocks(admin settings.Admin, feature string) bool {
	switch feature {
	case "MCP":
		return !admin.MCP.On()
	case "Extensions":
		return !admin.Extensions.On()
	case "Agent skills":
		return !admin.Skills.On()
	}
	return false
}

// mgmtEnv is what a management command reads of its process: the
// environment (HOME) and the working directory, as 0.61 reads them.
type mgmtEnv struct {
	getenv settings.Getenv
	// version is gemini-ls's, which mcp list tells the servers.
	version string
}

// dirs are the working directory and the user's Gemini directory.
func (e mgmtEnv) dirs() (cwd, userDir string, err error) {
	cwd, err = os.Getwd()
	if err != nil {
		return "", "", fmt.Errorf("finding the working directory: %w", err)
	}
	userDir = settings.UserDir(e.getenv)
	if userDir == "" {
		return "", "", errors.New("neither " + settings.HomeVariable + " nor GEMINI_CLI_HOME is set: there is no user settings file")
	}
	return cwd, userDir, nil
}

// workingDir is what a listing command reads of the working directory.
type workingDir struct {
	cwd, userDir string
	trust        settings.Trust
	settings     settings.Settings
	// extensions are those the settings allow, enabled or not.
	extensions extensions.Loaded
}

// read reads the working directory's trust, its settings and the
// extensions they allow, saying on stderr what could not be read, as
// 0.61 warns and goes on; asIfTrusted reads an untrusted folder's
// settings too. Not ok (said as an Error) without a working or user
// directory.
func (e mgmtEnv) read(stderr io.Writer, asIfTrusted bool) (w workingDir, ok bool) {
	cwd, userDir, err := e.dirs()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return w, false
	}
	roots := []string{cwd}
	trust, err := settings.DecideTrust(e.getenv, roots)
	if err != nil {
		fmt.Fprintf(stderr, "Warning: %v\n", err)
	}
	readTrust := trust
	if asIfTrusted {
		trusting := func(k string) string {
			if k == "GEMINI_CLI_TRUST_WORKSPACE" {
				return "true"
			}
			return e.getenv(k)
		}
		readTrust, _ = settings.DecideTrust(trusting, roots)
	}
	set, err := settings.Load(e.getenv, roots, readTrust)
	if err != nil {
		fmt.Fprintf(stderr, "Warning: %v\n", err)
	}
	loaded := extensions.Load(extensions.Config{UserDir: userDir, Workspace: cwd, Getenv: e.getenv,
		Allowed: set.Security.AllowedExtensions, BlockGit: set.Security.BlockGitExtensions})
	// What a sandboxed command changed while it was read is not obeyed
	// (mcp list connects to a trusted folder's servers).
	if changed := trust.Recheck(""); changed != nil {
		trust = trust.Distrusting(changed)
		if !asIfTrusted {
			set, _ = settings.Load(e.getenv, roots, trust)
		}
	}
	return workingDir{cwd: cwd, userDir: userDir, trust: trust, settings: set, extensions: loaded}, true
}

// usageError reports a parse error (or prints the usage for -h): done is
// true when the command should stop, with code.
func (e mgmtEnv) usageError(a mgmtArgs, err error, command string, stderr io.Writer) (code int, done bool) {
	if a.help {
		group, name, _ := strings.Cut(command, " ")
		g, _ := cmdline.Find(Commands(e.version), group)
		c, _ := cmdline.Find(g.Subcommands, name)
		cmdline.WriteUsage(stderr, "gemini-ls "+group, c, mgmtOptions(a.specs))
		return 0, true
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\nrun 'gemini-ls %s --help' for its options\n", err, command)
		return 1, true
	}
	return 0, false
}

// sameSettingsFile reports whether a and b are one file (or would be).
func sameSettingsFile(a, b string) bool {
	if ra, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
		a = filepath.Join(ra, filepath.Base(a))
	}
	if rb, err := filepath.EvalSymlinks(filepath.Dir(b)); err == nil {
		b = filepath.Join(rb, filepath.Base(b))
	}
	return a == b
}

// groupHelp answers a command group (mcp, skills) given no subcommand,
// with yargs' words (missing) and the group's help, status 1, or asked
// for help, with its help, status 0; done is false otherwise.
func groupHelp(args []string, stderr io.Writer, group string, subs []cmdline.Command, missing string) (code int, done bool) {
	switch {
	case len(args) == 0:
		fmt.Fprintln(stderr, missing)
		writeGroupHelp(stderr, group, subs)
		return 1, true
	case cmdline.AsksHelp(args[:1]):
		writeGroupHelp(stderr, group, subs)
		return 0, true
	}
	return 0, false
}

// writeGroupHelp writes the help of a command of commands (mcp, skills,
// extensions): what it is, and its commands.
func writeGroupHelp(w io.Writer, group string, subs []cmdline.Command) {
	c, _ := cmdline.Find(Commands(""), group)
	fmt.Fprintf(w, "Usage: gemini-ls %s <command>\n\n%s\n\n", group, c.Summary)
	cmdline.WriteCommands(w, "gemini-ls "+group, subs, "")
	fmt.Fprintln(w)
	cmdline.WriteOptions(w, []cmdline.Option{cmdline.HelpOption()})
}
