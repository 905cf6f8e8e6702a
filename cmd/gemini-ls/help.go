package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
)

// Help reads as Gemini CLI 0.61's (yargs'), written by package cmdline.
// The options come from the flag set the command parses, so help cannot
// drift from what it takes: the names sharing one flag.Value are one
// flag's aliases, and a Value that is a hiddenFlag is parsed but not
// shown.

// hiddenFlag marks a flag parsed but left out of help: one of Gemini
// CLI's that gemini-ls takes only to refuse it.
type hiddenFlag interface{ hiddenFromHelp() }

// versionOption is the bare gemini-ls's -v, which run dispatches.
func versionOption() cmdline.Option {
	return cmdline.Option{Names: []string{"v", "version"}, Usage: "Show version number", Kind: "boolean"}
}

// options are fs's flags as help shows them: hidden ones left out, each
// with its aliases, those named in order first, in that order, then the
// others by name.
func options(fs *flag.FlagSet, order []string) []cmdline.Option {
	var opts []cmdline.Option
	byValue := map[flag.Value]int{} // flag values are pointers: comparable
	fs.VisitAll(func(fl *flag.Flag) {
		if _, hidden := fl.Value.(hiddenFlag); hidden {
			return
		}
		if i, ok := byValue[fl.Value]; ok {
			opts[i].Names = append(opts[i].Names, fl.Name)
			return
		}
		byValue[fl.Value] = len(opts)
		opts = append(opts, optionOf(fl))
	})
	rank := func(o cmdline.Option) int {
		for _, n := range o.Names {
			if i := slices.Index(order, n); i >= 0 {
				return i
			}
		}
		return len(order)
	}
	slices.SortStableFunc(opts, func(a, b cmdline.Option) int { return cmp.Compare(rank(a), rank(b)) })
	for _, o := range opts {
		cmdline.ShortFirst(o.Names)
	}
	return opts
}

// optionOf is fl as help shows it, its name its only one so far.
func optionOf(fl *flag.Flag) cmdline.Option {
	_, usage := flag.UnquoteUsage(fl)
	o := cmdline.Option{Names: []string{fl.Name}, Usage: usage, Kind: "string"}
	if g, ok := fl.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			o.Kind = "boolean"
		case []string:
			o.Kind = "array"
		case int, int64, uint, uint64, float64:
			o.Kind = "number"
		}
	}
	if c, ok := fl.Value.(*choiceFlag); ok {
		o.Choices = c.choices
	}
	switch {
	case fl.DefValue == "" || o.Kind == "boolean" && fl.DefValue == "false":
	case o.Kind == "string":
		o.Def = fmt.Sprintf("%q", fl.DefValue)
	default:
		o.Def = fl.DefValue
	}
	return o
}

// writeCommandHelp writes the help of the command called name, whose
// flags are opts.
func writeCommandHelp(w io.Writer, name string, opts []cmdline.Option) {
	c, _ := lookup(name)
	cmdline.WriteUsage(w, "gemini-ls", c, opts)
}
