package cmdline

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Option is one option as help shows it.
type Option struct {
	Names   []string // without dashes, one-letter names first
	Usage   string
	Kind    string // yargs' type: boolean, string, number or array
	Choices []string
	Def     string // the default, as help shows it; "" for none
}

// HelpOption is the option every command takes beyond its own: -h and
// --help.
func HelpOption() Option {
	return Option{Names: []string{"h", "help"}, Usage: "Show help", Kind: "boolean"}
}

// ShortFirst sorts names one-letter first, as help shows them.
func ShortFirst(names []string) {
	long := func(name string) int { return min(len(name)-1, 1) }
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(long(a), long(b)) })
}

// flags is o's names as help shows them, -s, --long, aligned on the
// long names as yargs does.
func (o Option) flags() string {
	dashed := make([]string, len(o.Names))
	for i, n := range o.Names {
		dashed[i] = "--" + n
		if len(n) == 1 {
			dashed[i] = "-" + n
		}
	}
	s := strings.Join(dashed, ", ")
	if len(o.Names[0]) > 1 {
		s = "    " + s
	}
	return s
}

// describe is what help says of o after its names.
func (o Option) describe() string {
	s := o.Usage + "  [" + o.Kind + "]"
	if len(o.Choices) > 0 {
		s += " [choices: " + QuoteAll(o.Choices) + "]"
	}
	if o.Def != "" {
		s += " [default: " + o.Def + "]"
	}
	return s
}

// QuoteAll is words quoted and comma-separated, as yargs lists choices.
func QuoteAll(words []string) string {
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

// WriteOptions writes the Options section of opts.
func WriteOptions(w io.Writer, opts []Option) {
	rows := make([][2]string, len(opts))
	for i, o := range opts {
		rows[i] = [2]string{o.flags(), o.describe()}
	}
	writeTable(w, "Options", rows)
}

// WriteCommands writes the Commands section of cmds, each named after
// prefix ("gemini-ls", "gemini-ls mcp"), the one called def (if any)
// marked as the default.
func WriteCommands(w io.Writer, prefix string, cmds []Command, def string) {
	rows := make([][2]string, len(cmds))
	for i, c := range cmds {
		rows[i] = [2]string{strings.TrimSpace(prefix + " " + c.Name + " " + c.Args), c.Summary}
		if c.Name == def {
			rows[i][1] += "  [default]"
		}
	}
	writeTable(w, "Commands", rows)
}

// WriteUsage writes the help of c, a command of prefix's ("gemini-ls",
// "gemini-ls mcp"), whose flags are opts.
func WriteUsage(w io.Writer, prefix string, c Command, opts []Option) {
	usage := prefix + " " + c.Name
	if len(opts) > 0 {
		usage += " [options]"
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\n", strings.TrimSpace(usage+" "+c.Args), c.Summary)
	WriteOptions(w, append(opts, HelpOption()))
}
