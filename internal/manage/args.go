package manage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
)

// The management commands (mcp, skills) take their arguments as Gemini
// CLI 0.61's yargs takes them, so a command line written for `gemini`
// works after `gemini-ls`: options before, between or after the
// positionals, --name=value or --name value, --no-name for a boolean,
// and yargs' words for what is wrong.

// mgmtOptKind is how an option takes its value.
type mgmtOptKind int

const (
	optBool   mgmtOptKind = iota
	optString             // one value; the last given wins
	optEach               // one value each time, collected (yargs' array with nargs 1)
	optGreedy             // every value up to the next option (yargs' array)
)

// mgmtOpt is one option: its names (the first is its key), how it takes
// a value, and the values it allows (any when empty).
type mgmtOpt struct {
	names   []string
	kind    mgmtOptKind
	choices []string
	def     string
	help    string // what help says of it
}

// mgmtArgs is what parseMgmtArgs found.
type mgmtArgs struct {
	values     map[string][]string // by the option's key
	positional []string
	// rest are the arguments after "--" when unknown options are
	// arguments (mcp add's server arguments).
	rest []string
	help bool
	// specs are the options parsed, for help.
	specs []mgmtOpt
}

func (a mgmtArgs) str(key string) string {
	v := a.values[key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func (a mgmtArgs) has(key string) bool { _, ok := a.values[key]; return ok }

// parseMgmtArgs parses args against specs, wanting minPos positionals and
// at most maxPos (any number when maxPos < 0). With unknownAsArgs, an
// option it does not know is a positional (0.61's mcp add passes them to
// the server) and what follows "--" is kept apart (rest); without, it is
// yargs' "Unknown argument". -h and --help ask for help. Errors come in
// yargs' order: too few positionals, unknown arguments, a bad choice.
func parseMgmtArgs(args []string, specs []mgmtOpt, unknownAsArgs bool, minPos, maxPos int) (mgmtArgs, error) {
	out := mgmtArgs{values: map[string][]string{}, specs: specs}
	find := func(name string) (mgmtOpt, bool) {
		for _, s := range specs {
			if slices.Contains(s.names, name) {
				return s, true
			}
		}
		return mgmtOpt{}, false
	}
	var unknown []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if unknownAsArgs {
				out.rest = args[i+1:] // 0.61's "populate--": the server's args only
			} else {
				out.positional = append(out.positional, args[i+1:]...)
			}
			break
		}
		if len(a) < 2 || a[0] != '-' || isNegativeNumber(a) {
			out.positional = append(out.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			out.help = true
			continue
		}
		negated := false
		spec, ok := find(name)
		if !ok && strings.HasPrefix(name, "no-") {
			if s, found := find(strings.TrimPrefix(name, "no-")); found && s.kind == optBool {
				spec, ok, negated = s, true, true
			}
		}
		if !ok {
			if name == "d" || name == "debug" { // 0.61's global flag; nothing to do here
				continue
			}
			if unknownAsArgs {
				out.positional = append(out.positional, a)
				continue
			}
			unknown = append(unknown, name)
			if !hasValue && i+1 < len(args) && (len(args[i+1]) < 2 || args[i+1][0] != '-') {
				i++ // yargs takes the next word as its value
			}
			continue
		}
		key := spec.names[0]
		switch spec.kind {
		case optBool:
			v := "true"
			if hasValue {
				v = value
			} else if i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
				i++
				v = args[i]
			}
			if negated {
				v = map[string]string{"true": "false", "false": "true"}[v]
			}
			out.values[key] = []string{v}
		case optString, optEach:
			if !hasValue {
				if i+1 >= len(args) {
					return out, fmt.Errorf("Not enough arguments following: %s", name)
				}
				i++
				value = args[i]
			}
			out.values[key] = append(out.values[key], value)
		case optGreedy:
			if hasValue {
				out.values[key] = append(out.values[key], value)
				continue
			}
			out.values[key] = append(out.values[key], []string{}...)
			for i+1 < len(args) && (len(args[i+1]) < 2 || args[i+1][0] != '-') {
				i++
				out.values[key] = append(out.values[key], args[i])
			}
		}
	}
	if out.help {
		return out, nil
	}
	if len(out.positional) < minPos {
		return out, needPositionals(len(out.positional), minPos)
	}
	if maxPos >= 0 && len(out.positional) > maxPos {
		unknown = append(unknown, out.positional[maxPos:]...)
	}
	if len(unknown) > 0 {
		word := "argument"
		if len(unknown) > 1 {
			word = "arguments"
		}
		return out, fmt.Errorf("Unknown %s: %s", word, strings.Join(unknown, ", "))
	}
	for _, s := range specs {
		v, ok := out.values[s.names[0]]
		if !ok {
			if s.def != "" {
				out.values[s.names[0]] = []string{s.def}
			}
			continue
		}
		if len(s.choices) > 0 && !slices.Contains(s.choices, v[len(v)-1]) {
			quoted := make([]string, len(s.choices))
			for i, c := range s.choices {
				quoted[i] = fmt.Sprintf("%q", c)
			}
			return out, fmt.Errorf("Invalid values:\n  Argument: %s, Given: %q, Choices: %s", s.names[0], v[len(v)-1], strings.Join(quoted, ", "))
		}
	}
	return out, nil
}

// isNegativeNumber reports whether a, starting with "-", is a negative number,
// which yargs takes as a value, not an option.
func isNegativeNumber(a string) bool {
	for _, c := range a[1:] {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// needPositionals is yargs' error for too few positionals.
func needPositionals(got, need int) error {
	return fmt.Errorf("Not enough non-option arguments: got %d, need at least %d", got, need)
}

// mgmtOptions are a management command's options as help shows them.
func mgmtOptions(specs []mgmtOpt) []cmdline.Option {
	opts := make([]cmdline.Option, len(specs))
	for i, s := range specs {
		o := cmdline.Option{Names: slices.Clone(s.names), Usage: s.help, Kind: "string", Choices: s.choices}
		switch s.kind {
		case optBool:
			o.Kind = "boolean"
		case optEach, optGreedy:
			o.Kind = "array"
		}
		if s.def != "" {
			o.Def = fmt.Sprintf("%q", s.def)
		}
		cmdline.ShortFirst(o.Names)
		opts[i] = o
	}
	return opts
}
