// Command gemini-ls is a Gemini coding agent behind the Language Server
// Protocol: editors start it as a language server (`gemini-ls` or
// `gemini-ls serve`), agent clients (Zed, JetBrains) start it as an Agent
// Client Protocol agent (`gemini-ls acp` or `gemini-ls --acp`), and
// `gemini-ls run -p PROMPT` runs the same agent headless.
//
// Headless is the third front end of conversation.Host (run.go): it
// encodes the prompt's Outcome as an exit status and its turn's view,
// unattended, shows the events and refuses what needs asking; its mode
// for the run goes through the host (Host.SetMode), as ACP's does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/manage"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spelling"
	"github.com/gemini-ls/gemini-ls/internal/startup"
)

// version and commit are stamped at build time (make dist):
// -ldflags "-X main.version=... -X main.commit=...". An unstamped build is
// named by what Go recorded of it (version.go); version's default is the
// next release's, as a development build.
var (
	version = nextVersion + devSuffix
	commit  = ""
)

// intro is the bare gemini-ls's usage line and what it is.
const intro = `Usage: gemini-ls [options] [command]

gemini-ls - a Gemini coding agent for every editor. Defaults to a language server on stdin/stdout; use -p/--prompt to run one prompt headless.

`

const auth = `Auth: GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT
and GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY), or the Google login (gemini-ls login,
or Gemini CLI's). GOOGLE_GEMINI_BASE_URL points the client at another endpoint;
GEMINI_MODEL picks the model; auto, routed per prompt, when nothing names one.
`

// defaultCommand is what gemini-ls runs given no command nor any flag
// but its own: what editors start.
const defaultCommand = "serve"

// commands lists every subcommand in the order help shows them: the
// management commands (mcp, extensions, skills) are package manage's.
func commands() []cmdline.Command {
	cmds := []cmdline.Command{
		{Name: "serve", Summary: "Speak LSP on stdin/stdout: what editors run.", Run: serve},
		{Name: "run", Args: "[query..]", Summary: "Run one prompt headless and print the answer; also gemini-ls -p PROMPT, gemini-ls PROMPT, or a prompt piped in.", Run: runHeadless},
		{Name: "action", Summary: "Do a GitHub Actions step's whole job: run the agent on the task the event gives (a workflow_dispatch prompt, a labelled or assigned issue, an @gemini-ls comment by someone with write access) on a branch gemini/<task>, push it and open a draft pull request.", Run: runAction},
		{Name: "delegate", Summary: "Start a task on GitHub Actions (the gemini-ls workflow /setup-github writes) with your GitHub token, follow its run, and fetch its pull request's branch into .gemini/worktrees/<task> for review.", Run: runDelegate},
		{Name: "acp", Summary: "Speak the Agent Client Protocol on stdin/stdout: what Zed, JetBrains and agent plugins run; also gemini-ls --acp.", Run: serveACP},
		{Name: "login", Summary: "Sign in with Google as Gemini CLI does; the login is cached in ~/.gemini for gemini-ls and Gemini CLI.", Run: signIn},
		{Name: "trust", Args: "[DIR]", Summary: "Trust a folder (default: this one) for good, in ~/.gemini/trustedFolders.json, as Gemini CLI's trust dialog does; for one run, --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true.", Run: trustFolder},
	}
	cmds = append(cmds, manage.Commands(version)...)
	return append(cmds,
		cmdline.Command{Name: "version", Summary: "Show version number.", Run: printVersion},
		cmdline.Command{Name: "help", Args: "[command]", Summary: "Show help, or a command's.", Run: help},
	)
}

func lookup(name string) (cmdline.Command, bool) {
	return cmdline.Find(commands(), name)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// releaseStartUp lets go of the code and read-only data only start-up
// touched (startup.ReleaseExecutablePages), beside the run, which does
// not wait for it. The long-running commands call it as they start; the
// LSP server once the editor has read its initialize result, since until
// then every page released and mapped back again is the editor's wait; a
// headless run again once it is built, before its turn.
func releaseStartUp() { go startup.ReleaseExecutablePages() }

// run dispatches the subcommand and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == sandbox.SupervisorArg {
		return superviseSandbox(ctx, args[1:], stdin, stdout, stderr)
	}
	args = globalsAfterCommand(args)
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		// No command: serve, unless asked for help, which then is about
		// every command rather than serve's flags alone, or for the
		// version, as Gemini CLI's -v and --version ask.
		if cmdline.AsksHelp(args) {
			writeHelp(stdout)
			return 0
		}
		if asksVersion(args) {
			return printVersion(ctx, nil, stdin, stdout, stderr)
		}
		if rest, ok := acpFlag(args); ok {
			return serveACP(ctx, rest, stdin, stdout, stderr)
		}
		serves, stdio := servesFlags(args)
		if !serves {
			// Gemini CLI's flags (-p, -m, -o…): a headless run.
			return runHeadless(ctx, args, stdin, stdout, stderr)
		}
		if len(args) == 0 && isTerminal(stdin) {
			// A person, not an editor: an LSP client never gives a
			// terminal. Say what this is rather than wait in silence.
			fmt.Fprint(stderr, terminalHint)
			return 0
		}
		// An editor, or a prompt piped in as to Gemini CLI: an LSP
		// client's first bytes are a header.
		in, isLSP := peekLSP(stdin)
		if isLSP || stdio {
			return serve(ctx, args, in, stdout, stderr)
		}
		return runHeadless(ctx, args, in, stdout, stderr)
	}
	c, ok := lookup(args[0])
	if !ok {
		if why, ok := notACommandHere(args[0]); ok {
			fmt.Fprintf(stderr, "gemini-ls: %s does not apply: %s\n", args[0], why)
			return exitError
		}
		if near := mistypedCommand(args); near != "" {
			fmt.Fprintf(stderr, "gemini-ls: unknown command %q (did you mean %q?); %s\n", args[0], near, cmdline.SeeHelp(""))
			return exitError
		}
		// Words, as Gemini CLI takes them: the prompt.
		return runHeadless(ctx, args, stdin, stdout, stderr)
	}
	return c.Run(ctx, args[1:], stdin, stdout, stderr)
}

// globalsAfterCommand is args with Gemini CLI's global flags (-d,
// --debug) that come before a command's name moved after it
// (cmdline.CommandFirst), as yargs takes them: `--debug extensions list`
// runs extensions list; args as they are when no command follows them.
func globalsAfterCommand(args []string) []string {
	moved := cmdline.CommandFirst(args)
	if len(moved) == 0 || len(args) == 0 || moved[0] == args[0] {
		return args
	}
	if _, ok := lookup(moved[0]); ok {
		return moved
	}
	if _, ok := notACommandHere(moved[0]); ok {
		return moved
	}
	return args
}

// terminalHint is what a bare gemini-ls says on a terminal: one line.
const terminalHint = "gemini-ls is a language server for editors (it speaks LSP on stdin); to run a prompt here: gemini-ls run -p \"...\" (gemini-ls --help for more)\n"

// asksVersion reports whether flag arguments hold -v or --version.
func asksVersion(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-v", "--v", "-version", "--version":
			return true
		}
	}
	return false
}

// help prints the bare gemini-ls's help, or one command's.
func help(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	if code, ok := parseOptions(fs, args, stderr); !ok {
		return code
	}
	switch fs.NArg() {
	case 0:
		writeHelp(stdout)
		return 0
	case 1:
		if _, ok := lookup(fs.Arg(0)); ok {
			commandHelp(ctx, stdout, fs.Arg(0))
			return 0
		}
		if near := spelling.Nearest(fs.Arg(0), commandNames(), 2); near != "" {
			fmt.Fprintf(stderr, "gemini-ls help: unknown command %q (did you mean %q?)\n", fs.Arg(0), near)
		} else {
			fmt.Fprintf(stderr, "gemini-ls help: unknown command %q; %s\n", fs.Arg(0), cmdline.SeeHelp(""))
		}
	default:
		fmt.Fprintf(stderr, "gemini-ls help: unexpected arguments %q\n", fs.Args()[1:])
	}
	return 2
}

// writeHelp writes the bare gemini-ls's help: its commands, and the
// flags it takes without one, a headless run's and serve's.
func writeHelp(w io.Writer) {
	fmt.Fprint(w, intro)
	cmdline.WriteCommands(w, "gemini-ls", commands(), defaultCommand)
	fmt.Fprintln(w)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	opts := options(fs, f.order)
	for _, o := range options(serveWithLogFlags(), nil) {
		if !slices.ContainsFunc(opts, func(r cmdline.Option) bool { return slices.Contains(r.Names, o.Names[0]) }) {
			opts = append(opts, o) // serve's own: those run has too are shown once
		}
	}
	cmdline.WriteOptions(w, append(opts, versionOption(), cmdline.HelpOption()))
	fmt.Fprintln(w)
	fmt.Fprint(w, auth)
}

// commandHelp writes a command's help by running it with -h: its flags
// come from its own flag set, so help cannot drift from what it accepts.
func commandHelp(ctx context.Context, w io.Writer, name string) {
	c, _ := lookup(name)
	c.Run(ctx, []string{"-h"}, nil, io.Discard, w)
}

func printVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseFlags(flag.NewFlagSet("version", flag.ContinueOnError), args, stderr); !ok {
		return code
	}
	fmt.Fprintln(stdout, versionLine(version, commit, readBuildInfo()))
	return 0
}

// parseFlags parses args into fs, printing problems to stderr: a bad flag
// in one line with where to look, -h the command's whole help. ok is
// false when the caller should exit with status code.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	if code, ok := parseOptions(fs, args, stderr); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gemini-ls %s: unexpected arguments %q; %s\n", fs.Name(), fs.Args(), cmdline.SeeHelp(fs.Name()))
		return 2, false
	}
	return 0, true
}

// parseOptions is parseFlags for a command that takes arguments too.
// Gemini CLI's global -d and --debug are taken, and mean nothing here,
// where the command has none of its own.
func parseOptions(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	if fs.Lookup("debug") == nil {
		args = cmdline.WithoutGlobalFlags(args)
	}
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the flag package calls it on every error too
	if line := unknownArguments(fs, args); line != "" {
		fmt.Fprintf(stderr, "%s\ngemini-ls %s: %s\n", line, fs.Name(), cmdline.SeeHelp(fs.Name()))
		return 2, false
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeCommandHelp(stderr, fs.Name(), options(fs, nil))
			return 0, false
		}
		// The flag package wrote the error's line.
		fmt.Fprintf(stderr, "gemini-ls %s: %s\n", fs.Name(), cmdline.SeeHelp(fs.Name()))
		return 2, false
	}
	return 0, true
}
