// Package cmdline is the shape gemini-ls's command line shares with
// Gemini CLI 0.61's (yargs'): commands, each with its usage line and
// summary; help as yargs writes it (a usage line, what the command does,
// its commands, then its options, each once with its aliases, its type
// and its choices or default); and, after a mistake, where to look.
//
// It holds no command of its own: cmd/gemini-ls lists the commands and
// parses their flags, internal/manage is the management commands, and
// both write their help here, so the two read alike.
package cmdline

import (
	"context"
	"io"
	"slices"
)

// Command is one command: what its help shows, and how to run it.
type Command struct {
	Name    string
	Args    string // what follows its name and options in its usage line
	Summary string
	// Run runs the command with the arguments after its name and returns
	// its exit status.
	Run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// Subcommands are a group's commands (mcp's add, list, remove), which
	// its Run dispatches to; nil for a command of its own.
	Subcommands []Command
}

// Find is the command of cmds called name.
func Find(cmds []Command, name string) (Command, bool) {
	i := slices.IndexFunc(cmds, func(c Command) bool { return c.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return cmds[i], true
}

// AsksHelp reports whether flag arguments hold -h or -help (one dash or
// two) before any "--".
func AsksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// SeeHelp points at the help of command ("" for every command).
func SeeHelp(command string) string {
	if command == "" {
		return "run 'gemini-ls --help' for the commands"
	}
	return "run 'gemini-ls " + command + " --help' for its flags"
}
