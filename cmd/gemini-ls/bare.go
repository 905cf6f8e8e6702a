package main

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"strings"
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

// nearCommand is the command name that word misspells (one or two
// letters off, and only a word), or "".
func nearCommand(word string) string {
	if strings.ContainsAny(word, " \t\n") || len(word) < 3 {
		return ""
	}
	for _, c := range commands() {
		if d := distance(word, c.Name); d > 0 && d <= 2 && d < len(c.Name)/2+1 {
			return c.Name
		}
	}
	return ""
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
