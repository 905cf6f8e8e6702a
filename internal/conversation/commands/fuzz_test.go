package commands

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/shellquote"
)

// FuzzCommandFile: a command file is a command with a string prompt or
// an error, never a panic; its expansion with any arguments runs no
// shell command it did not first have confirmed, leaves no injection of
// the prompt behind, and a prompt without triggers is sent as written
// (the invocation after it when it has no {{args}}); and the arguments
// quoted into a !{…} command are, read back by a shell parser, one word
// holding exactly what was typed.
//
//	go test -run '^$' -fuzz FuzzCommandFile ./internal/conversation/commands/
func FuzzCommandFile(f *testing.F) {
	for _, s := range []string{
		"prompt = \"Review {{args}}\"\ndescription = \"d\"",
		"prompt = \"\"\"\nFiles: !{ls {{args}}}\nand @{README.md}\n\"\"\"",
		"prompt = 'plain'",
		"prompt = \"!{echo {\\\"a\\\": 1}} {{args}}\"",
		"prompt = \"@{a} @{b} !{git diff} {{args}} {{args}}\"",
		"prompt = \"!{unclosed\"",
		"prompt = 1",
		"description = \"no prompt\"",
		"prompt = \"x\"\ndescription = [1]",
		"[table]\nprompt = \"nested\"",
		"prompt = \"\\u0000\\u2028 \"",
	} {
		f.Add([]byte(s), "it's a \"test\" $HOME `id` !x C:\\dir *.go ~ & | ;")
	}
	path := filepath.Join(f.TempDir(), "cmd.toml")
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := parseFile(path)
		if err != nil {
			return
		}
		if !utf8.ValidString(c.Prompt) {
			t.Fatalf("parseFile(%q): a prompt that is not UTF-8", data)
		}
		c.Name = "fuzz"
		inv, ok := Parse("/fuzz " + args)
		if !ok || inv.Name != "fuzz" && inv.Name != "" {
			t.Fatalf("Parse(%q) = %+v, %v", "/fuzz "+args, inv, ok)
		}
		sh := &fakeShell{}
		files := fakeFiles{}
		for _, in := range mustInjections(c.Prompt, fileTrigger) {
			files[in.content] = []string{"file text"}
		}
		exp, err := c.Expand(context.Background(), inv, sh, files)
		for _, cmd := range sh.ran {
			if !slices.Contains(sh.asked, cmd) {
				t.Fatalf("prompt %q: ran %q unasked (asked %q)", c.Prompt, cmd, sh.asked)
			}
		}
		if err != nil {
			if len(sh.ran) > 0 {
				t.Fatalf("prompt %q: failed (%v) after running %q", c.Prompt, err, sh.ran)
			}
			return
		}
		text := exp.Text()
		if !strings.ContainsAny(c.Prompt, "@!{") {
			want := strings.ReplaceAll(c.Prompt, argsPlaceholder, inv.Args)
			if !strings.Contains(c.Prompt, argsPlaceholder) && inv.Args != "" {
				want += "\n\n" + inv.Raw
			}
			if text != want {
				t.Fatalf("prompt %q with args %q: sent %q, want %q", c.Prompt, inv.Args, text, want)
			}
		}
		// An empty !{} expands to nothing, joining the text on its two
		// sides: "!!{}{}" is sent as "!{}", which nothing expands again.
		emptyInjection := slices.ContainsFunc(mustInjections(c.Prompt, shellTrigger), func(in injection) bool { return in.content == "" })
		// What a command printed is its output, not the prompt's: the
		// fake shell prints the command back ("out(git !{x}s)").
		left := text
		for _, cmd := range sh.ran {
			left = strings.ReplaceAll(left, "out("+cmd+")", "\x00")
		}
		if !strings.ContainsAny(inv.Args, "@!{") && !strings.Contains(c.Prompt, fileTrigger+"}") && !emptyInjection {
			if strings.Contains(left, shellTrigger) || strings.Contains(left, argsPlaceholder) && !strings.Contains(inv.Args, argsPlaceholder) {
				t.Fatalf("prompt %q with args %q: %q left in %q", c.Prompt, inv.Args, "!{ or {{args}}", text)
			}
		}

		checkShellQuote(t, inv.Args)
	})
}

func mustInjections(prompt, trigger string) []injection {
	in, _ := extractInjections(prompt, trigger, "")
	return in
}

// checkShellQuote: shellquote.Quote(arg) is, to a POSIX shell, the one word arg.
func checkShellQuote(t *testing.T, arg string) {
	t.Helper()
	if arg == "" || !utf8.ValidString(arg) || strings.ContainsRune(arg, 0) {
		return // no word at all; bytes a command line cannot carry
	}
	quoted := shellquote.Quote(arg)
	file, err := syntax.NewParser().Parse(strings.NewReader("echo "+quoted), "")
	if err != nil {
		t.Fatalf("shellquote.Quote(%q) = %q: not shell syntax: %v", arg, quoted, err)
	}
	var words []*syntax.Word
	syntax.Walk(file, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			words = call.Args
		}
		return true
	})
	if len(file.Stmts) != 1 || len(words) != 2 {
		t.Fatalf("shellquote.Quote(%q) = %q: %d statements, %d words", arg, quoted, len(file.Stmts), len(words))
	}
	cfg := &expand.Config{Env: expand.ListEnviron("HOME=/home/fuzz", "PATH=/bin")}
	got, err := expand.Fields(cfg, words[1])
	if err != nil || len(got) != 1 || got[0] != arg {
		t.Fatalf("shellquote.Quote(%q) = %q, which the shell reads as %q (%v)", arg, quoted, got, err)
	}
}
