package main

import (
	"bufio"
	"bytes"
	"cmp"
	"flag"
	"io"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/spelling"
)

// servesFlags reports whether args are serve's flags alone, so a bare
// gemini-ls given them is a language server (or reads a piped prompt);
// any other flag is Gemini CLI's, for a headless run. stdio says
// --stdio was among them: an editor's command line, whatever stdin holds.
func servesFlags(args []string) (serves, stdio bool) {
	fs := serveWithLogFlags()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if fs.Parse(args) != nil || fs.NArg() > 0 {
		return false, false
	}
	fs.Visit(func(f *flag.Flag) { stdio = stdio || f.Name == "stdio" })
	return true, stdio
}

// serveWithLogFlags is every flag serve takes, as serveStdio declares
// them.
func serveWithLogFlags() *flag.FlagSet {
	fs := serveFlagSet()
	new(logFlags).register(fs)
	return fs
}

// lspHeader starts every message an LSP client sends (Content-Length,
// or Content-Type before it), in any case.
const lspHeader = "content-"

// peekLSP reports whether r begins as an LSP client's stream does, and
// returns a reader of all of r, what was peeked at included. It waits for
// the first bytes: an editor sends initialize at once.
func peekLSP(r io.Reader) (io.Reader, bool) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(len(lspHeader))
	return br, len(head) == len(lspHeader) && bytes.EqualFold(head, []byte(lspHeader))
}

// notACommandHere says why name, one of Gemini CLI 0.61's commands, is
// not one of gemini-ls's; false for any other name.
func notACommandHere(name string) (string, bool) {
	switch name {
	case "hooks":
		return "gemini-ls reads Gemini CLI's hooks from settings as they are; it has no hooks command (hooks migrate --from-claude converts Claude Code's: run it with Gemini CLI)", true
	case "gemma":
		return "gemini-ls does not run the local Gemma router (LiteRT); settings' experimental.gemmaModelRouter is not read", true
	}
	return "", false
}

// mistypedCommand is the command args[0], a word that names none, is
// likely a typo of, when the line cannot be the prompt it would
// otherwise be; "" when it can. Gemini CLI 0.61 takes any such word for
// the prompt, and so does gemini-ls (fix the bug, test), except where a
// prompt cannot be what was meant:
//   - the line gives -p or --prompt too, beside which a word is refused
//     anyway ("Cannot use both…"): the word is judged a typo when it is
//     one edit from a command, or near it as spelling.Suggest judges
//     (rn -p hi, extension -p hi);
//   - the word is the line's only one, flags aside: a one-word prompt
//     one edit from a command is a typo (rn, serv --stdio, verison);
//   - the next word is a command of the group the word is near (mpc
//     list, extension install).
func mistypedCommand(args []string) string {
	word, names := args[0], commandNames()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	new(runFlags).register(fs)
	line := cmdline.Scan(fs, args[1:])
	switch {
	case slices.ContainsFunc(line.Given, func(n string) bool { return n == "p" || n == "prompt" }):
		return cmp.Or(spelling.Nearest(word, names, 1), spelling.Suggest(word, names))
	case len(line.Words) == 0:
		return spelling.Nearest(word, names, 1)
	}
	near := spelling.Suggest(word, names)
	if group, ok := lookup(near); ok {
		if _, ok := cmdline.Find(group.Subcommands, line.Words[0]); ok {
			return near
		}
	}
	return ""
}

// commandNames are the names of gemini-ls's commands.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.Name)
	}
	return names
}
