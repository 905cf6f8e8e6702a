package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help reads as Gemini CLI 0.61's (yargs'): a usage line, what the
// command does, its commands, then its options, each once with its
// aliases, its type and its choices or default. The options come from
// the flag set the command parses, so help cannot drift from what it
// takes: the names sharing one flag.Value are one flag's aliases, and a
// Value that is a hiddenFlag is parsed but not shown.

// hiddenFlag marks a flag parsed but left out of help: one of Gemini
// CLI's that gemini-ls takes only to refuse it.
type hiddenFlag interface{ hiddenFromHelp() }

// option is one flag as help shows it.
type option struct {
	names   []string // without dashes, one-letter names first
	usage   string
	kind    string // yargs' type: boolean, string, number or array
	choices []string
	def     string // the default, as help shows it; "" for none
}

// helpOption is the option every command takes beyond its flag set: the
// flag package answers -h and --help itself.
func helpOption() option {
	return option{names: []string{"h", "help"}, usage: "Show help", kind: "boolean"}
}

// versionOption is the bare gemini-ls's -v, which run dispatches.
func versionOption() option {
	return option{names: []string{"v", "version"}, usage: "Show version number", kind: "boolean"}
}

// options are fs's flags as help shows them: hidden ones left out, each
// with its aliases, those named in order first, in that order, then the
// others by name.
func options(fs *flag.FlagSet, order []string) []option {
	var opts []option
	byValue := map[flag.Value]int{} // flag values are pointers: comparable
	fs.VisitAll(func(fl *flag.Flag) {
		if _, hidden := fl.Value.(hiddenFlag); hidden {
			return
		}
		if i, ok := byValue[fl.Value]; ok {
			opts[i].names = append(opts[i].names, fl.Name)
			return
		}
		byValue[fl.Value] = len(opts)
		opts = append(opts, optionOf(fl))
	})
	rank := func(o option) int {
		for _, n := range o.names {
			if i := slices.Index(order, n); i >= 0 {
				return i
			}
		}
		return len(order)
	}
	slices.SortStableFunc(opts, func(a, b option) int { return cmp.Compare(rank(a), rank(b)) })
	for _, o := range opts {
		shortFirst(o.names)
	}
	return opts
}

// shortFirst sorts names one-letter first, as help shows them.
func shortFirst(names []string) {
	long := func(name string) int { return min(len(name)-1, 1) }
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(long(a), long(b)) })
}

// optionOf is fl as help shows it, its name its only one so far.
func optionOf(fl *flag.Flag) option {
	_, usage := flag.UnquoteUsage(fl)
	o := option{names: []string{fl.Name}, usage: usage, kind: "string"}
	if g, ok := fl.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			o.kind = "boolean"
		case []string:
			o.kind = "array"
		case int, int64, uint, uint64, float64:
			o.kind = "number"
		}
	}
	if c, ok := fl.Value.(*choiceFlag); ok {
		o.choices = c.choices
	}
	switch {
	case fl.DefValue == "" || o.kind == "boolean" && fl.DefValue == "false":
	case o.kind == "string":
		o.def = fmt.Sprintf("%q", fl.DefValue)
	default:
		o.def = fl.DefValue
	}
	return o
}

// flags is o's names as help shows them, -s, --long, aligned on the
// long names as yargs does.
func (o option) flags() string {
	dashed := make([]string, len(o.names))
	for i, n := range o.names {
		dashed[i] = "--" + n
		if len(n) == 1 {
			dashed[i] = "-" + n
		}
	}
	s := strings.Join(dashed, ", ")
	if len(o.names[0]) > 1 {
		s = "    " + s
	}
	return s
}

// describe is what help says of o after its names.
func (o option) describe() string {
	s := o.usage + "  [" + o.kind + "]"
	if len(o.choices) > 0 {
		s += " [choices: " + quoteAll(o.choices) + "]"
	}
	if o.def != "" {
		s += " [default: " + o.def + "]"
	}
	return s
}

// quoteAll is words quoted and comma-separated, as yargs lists choices.
func quoteAll(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(quoted, ", ")
}

// writeTable writes rows as two aligned columns under title.
func writeTable(w io.Writer, title string, rows [][2]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r[0], r[1])
	}
}

func writeOptions(w io.Writer, opts []option) {
	rows := make([][2]string, len(opts))
	for i, o := range opts {
		rows[i] = [2]string{o.flags(), o.describe()}
	}
	writeTable(w, "Options", rows)
}

// writeCommands writes the Commands section of cmds, each named after
// prefix ("gemini-ls", "gemini-ls mcp").
func writeCommands(w io.Writer, prefix string, cmds []command) {
	rows := make([][2]string, len(cmds))
	for i, c := range cmds {
		rows[i] = [2]string{strings.TrimSpace(prefix + " " + c.name + " " + c.args), c.summary}
		if c.name == defaultCommand {
			rows[i][1] += "  [default]"
		}
	}
	writeTable(w, "Commands", rows)
}

// writeCommandHelp writes the help of the command called name, whose
// flags are opts.
func writeCommandHelp(w io.Writer, name string, opts []option) {
	c, _ := lookup(name)
	writeUsage(w, "gemini-ls", c, opts)
}

// writeUsage writes the help of c, a command of prefix's ("gemini-ls",
// "gemini-ls mcp"), whose flags are opts.
func writeUsage(w io.Writer, prefix string, c command, opts []option) {
	usage := prefix + " " + c.name
	if len(opts) > 0 {
		usage += " [options]"
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\n", strings.TrimSpace(usage+" "+c.args), c.summary)
	writeOptions(w, append(opts, helpOption()))
}

// writeGroupHelp writes the help of a command of commands (mcp, skills,
// extensions): what it is, and its commands.
func writeGroupHelp(w io.Writer, group string, subs []command) {
	c, _ := lookup(group)
	fmt.Fprintf(w, "Usage: gemini-ls %s <command>\n\n%s\n\n", group, c.summary)
	writeCommands(w, "gemini-ls "+group, subs)
	fmt.Fprintln(w)
	writeOptions(w, []option{helpOption()})
}

// mgmtOptions are a management command's options as help shows them.
func mgmtOptions(specs []mgmtOpt) []option {
	opts := make([]option, len(specs))
	for i, s := range specs {
		o := option{names: slices.Clone(s.names), usage: s.help, kind: "string", choices: s.choices}
		switch s.kind {
		case optBool:
			o.kind = "boolean"
		case optEach, optGreedy:
			o.kind = "array"
		}
		if s.def != "" {
			o.def = fmt.Sprintf("%q", s.def)
		}
		shortFirst(o.names)
		opts[i] = o
	}
	return opts
}
