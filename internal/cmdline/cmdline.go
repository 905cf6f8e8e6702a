// Package cmdline is the shape gemini-ls's command line shares with
// Gemini CLI 0.61's (yargs'): commands, each with its usage line and
// summary; help as yargs writes it (a usage line, what the command does,
// its commands, then its options, each once with its aliases, its type
// and its choices or default); after a mistake, where to look, and
// flags a command does not take in yargs' words with the flag each is
// likely a typo of (Scan, UnknownArguments); and its global flag,
// -d/--debug, which comes before a command as well as after it
// (CommandFirst).
//
// It holds no command of its own: cmd/gemini-ls lists the commands and
// parses their flags, internal/manage is the management commands, and
// both write their help here, so the two read alike.
package cmdline

import (
	"context"
	"io"
	"slices"
	"strings"
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

// IsGlobalFlag reports whether a is Gemini CLI 0.61's global flag, -d or
// --debug (with =true or =false), which its yargs takes before a
// command as well as after it, in any command.
func IsGlobalFlag(a string) bool {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
	if !strings.HasPrefix(a, "-") || (name != "d" && name != "debug") {
		return false
	}
	return !hasValue || value == "true" || value == "false"
}

// CommandFirst is args with the global flags (IsGlobalFlag) that come
// before the first word moved after it: `--debug extensions install DIR`
// is `extensions --debug install DIR`, whose command runs with the flag
// as yargs runs it, rather than taking the words for a prompt. args
// themselves when no such flag comes first, or a flag of another kind
// (or nothing) follows them.
func CommandFirst(args []string) []string {
	i := 0
	for i < len(args) && IsGlobalFlag(args[i]) {
		i++
	}
	if i == 0 || i == len(args) || strings.HasPrefix(args[i], "-") {
		return args
	}
	out := make([]string, 0, len(args))
	out = append(out, args[i])
	out = append(out, args[:i]...)
	return append(out, args[i+1:]...)
}

// WithoutGlobalFlags is args without the global flags (IsGlobalFlag)
// before any "--", for a command to which they mean nothing.
func WithoutGlobalFlags(args []string) []string {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	out := slices.DeleteFunc(slices.Clone(args[:end]), IsGlobalFlag)
	return append(out, args[end:]...)
}
