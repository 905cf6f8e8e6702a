package cmdline

import (
	"flag"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spelling"
)

// Scanned is a command line as yargs reads it against a command's flags.
type Scanned struct {
	// Words are the arguments that are neither flags nor their values,
	// those after "--" included.
	Words []string
	// Unknown are the flags the command does not declare, by their names
	// without dashes, in order, each once.
	Unknown []string
	// Given are the names of the declared flags given, as written.
	Given []string
}

// Scan reads args as yargs reads a command's arguments, flags and words
// mixed: a flag fs declares that takes a value takes the next argument
// unless written with "="; one fs does not declare takes nothing (yargs
// would take the next word as its value; this only reports it). What
// follows "--" is words; a lone "-" is a word, and a flag the flag
// package would refuse for its syntax ("---x", "-=x") is left to it.
// -h and -help are known, as the flag package knows them.
func Scan(fs *flag.FlagSet, args []string) Scanned {
	var s Scanned
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			s.Words = append(s.Words, args[i+1:]...)
			break
		}
		name, hasValue, ok := flagName(a)
		if !ok {
			s.Words = append(s.Words, a)
			continue
		}
		fl := fs.Lookup(name)
		switch {
		case fl == nil && (name == "h" || name == "help"):
			s.Given = append(s.Given, name) // the flag package's own
		case fl == nil:
			if !slices.Contains(s.Unknown, name) {
				s.Unknown = append(s.Unknown, name)
			}
		case !hasValue && !isBool(fl) && i+1 < len(args):
			s.Given = append(s.Given, name)
			i++ // its value
		default:
			s.Given = append(s.Given, name)
		}
	}
	return s
}

// flagName is the name of the flag a writes, and whether a value follows
// "="; ok is false when a is no flag, or one of a syntax the flag
// package refuses.
func flagName(a string) (name string, hasValue, ok bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", false, false
	}
	name = strings.TrimPrefix(a[1:], "-")
	name, _, hasValue = strings.Cut(name, "=")
	if name == "" || name[0] == '-' || name[0] == '=' {
		return "", false, false
	}
	return name, hasValue, true
}

// isBool reports whether fl takes no value, as the flag package judges.
func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// UnknownArguments is yargs' line for flags a command does not take
// ("Unknown argument: promt", "Unknown arguments: promt, modle"), as
// Gemini CLI 0.61 says it, followed by the flag each is likely a typo of
// among known (names without dashes): "Unknown argument: promt. Did you
// mean --prompt?". "" when unknown is empty.
func UnknownArguments(unknown, known []string) string {
	if len(unknown) == 0 {
		return ""
	}
	line := "Unknown argument: " + unknown[0]
	if len(unknown) > 1 {
		line = "Unknown arguments: " + strings.Join(unknown, ", ")
	}
	var meant []string
	for _, name := range unknown {
		near := spelling.Suggest(name, known)
		switch {
		case near == "":
		case len(unknown) == 1:
			meant = append(meant, dashed(near))
		default:
			meant = append(meant, dashed(near)+" for "+name)
		}
	}
	if len(meant) > 0 {
		line += ". Did you mean " + strings.Join(meant, ", ") + "?"
	}
	return line
}

// dashed is a flag's name as typed: -p, --prompt.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}
