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
	p := &mgmtParser{args: args, unknownAsArgs: unknownAsArgs, out: mgmtArgs{values: map[string][]string{}, specs: specs}}
	if err := p.parse(); err != nil {
		return p.out, err
	}
	out, unknown := p.out, p.unknown
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
	return out, out.settle()
}

// mgmtParser is parseMgmtArgs's walk through its arguments.
type mgmtParser struct {
	args          []string
	i             int // the argument at hand
	unknownAsArgs bool
	out           mgmtArgs
	unknown       []string // the options not in the specs
}

func (p *mgmtParser) parse() error {
	for ; p.i < len(p.args); p.i++ {
		a := p.args[p.i]
		if a == "--" {
			if p.unknownAsArgs {
				p.out.rest = p.args[p.i+1:] // 0.61's "populate--": the server's args only
			} else {
				p.out.positional = append(p.out.positional, p.args[p.i+1:]...)
			}
			return nil
		}
		if len(a) < 2 || a[0] != '-' || isNegativeNumber(a) {
			p.out.positional = append(p.out.positional, a)
			continue
		}
		if err := p.option(a); err != nil {
			return err
		}
	}
	return nil
}

// option takes the option a, and its value.
func (p *mgmtParser) option(a string) error {
	name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if name == "h" || name == "help" {
		p.out.help = true
		return nil
	}
	spec, negated, ok := p.find(name)
	switch {
	case ok:
		return p.take(spec, name, value, hasValue, negated)
	case name == "d" || name == "debug": // 0.61's global flag; nothing to do here
	case p.unknownAsArgs:
		p.out.positional = append(p.out.positional, a)
	default:
		p.unknown = append(p.unknown, name)
		if !hasValue && p.valueFollows() {
			p.i++ // yargs takes the next word as its value
		}
	}
	return nil
}

// find is the option name names, or the boolean option it negates
// ("no-" and its name).
func (p *mgmtParser) find(name string) (spec mgmtOpt, negated, ok bool) {
	if spec, ok := p.spec(name); ok {
		return spec, false, true
	}
	if plain, isNo := strings.CutPrefix(name, "no-"); isNo {
		if spec, ok := p.spec(plain); ok && spec.kind == optBool {
			return spec, true, true
		}
	}
	return mgmtOpt{}, false, false
}

func (p *mgmtParser) spec(name string) (mgmtOpt, bool) {
	for _, s := range p.out.specs {
		if slices.Contains(s.names, name) {
			return s, true
		}
	}
	return mgmtOpt{}, false
}

// valueFollows reports whether the next argument is a word, not an
// option.
func (p *mgmtParser) valueFollows() bool {
	return p.i+1 < len(p.args) && (len(p.args[p.i+1]) < 2 || p.args[p.i+1][0] != '-')
}

// take records the option spec (given as name) with its value, in
// a=value or in the arguments that follow as its kind takes them.
func (p *mgmtParser) take(spec mgmtOpt, name, value string, hasValue, negated bool) error {
	key := spec.names[0]
	switch spec.kind {
	case optBool:
		v := "true"
		if hasValue {
			v = value
		} else if p.i+1 < len(p.args) && (p.args[p.i+1] == "true" || p.args[p.i+1] == "false") {
			p.i++
			v = p.args[p.i]
		}
		if negated {
			v = map[string]string{"true": "false", "false": "true"}[v]
		}
		p.out.values[key] = []string{v}
	case optString, optEach:
		if !hasValue {
			if p.i+1 >= len(p.args) {
				return fmt.Errorf("Not enough arguments following: %s", name)
			}
			p.i++
			value = p.args[p.i]
		}
		p.out.values[key] = append(p.out.values[key], value)
	case optGreedy:
		if hasValue {
			p.out.values[key] = append(p.out.values[key], value)
			return nil
		}
		p.out.values[key] = append(p.out.values[key], []string{}...) // given, if with no value
		for p.valueFollows() {
			p.i++
			p.out.values[key] = append(p.out.values[key], p.args[p.i])
		}
	}
	return nil
}

// settle gives the options not given their defaults, and checks the
// choices of those given.
func (a mgmtArgs) settle() error {
	for _, s := range a.specs {
		v, ok := a.values[s.names[0]]
		if !ok {
			if s.def != "" {
				a.values[s.names[0]] = []string{s.def}
			}
			continue
		}
		if len(s.choices) > 0 && !slices.Contains(s.choices, v[len(v)-1]) {
			quoted := make([]string, len(s.choices))
			for i, c := range s.choices {
				quoted[i] = fmt.Sprintf("%q", c)
			}
			return fmt.Errorf("Invalid values:\n  Argument: %s, Given: %q, Choices: %s", s.names[0], v[len(v)-1], strings.Join(quoted, ", "))
		}
	}
	return nil
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
