package shellparse_test

import (
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// call parses command, one simple command.
func call(t *testing.T, command string) *syntax.CallExpr {
	t.Helper()
	file, err := shellparse.Parse(command)
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	c, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%q is not a simple command", command)
	}
	return c
}

// A word is static after quote removal only when bash changes it no
// further; line continuations are removed as bash removes them (issue
// 84: r\<newline>m is rm). Text decodes $'…' too, as bash does ($'rm' is
// rm).
func TestStaticText(t *testing.T) {
	for _, tc := range []struct {
		word, want string
		static     bool
		// text and isText are Text's answer where it differs.
		text   string
		isText bool
	}{
		{word: `ls`, want: "ls", static: true},
		{word: `\ls`, want: "ls", static: true},
		{word: `'l s'`, want: "l s", static: true},
		{word: `"a\"b\$c\d"`, want: `a"b$c\d`, static: true},
		{word: `a"b"'c'`, want: "abc", static: true},
		{word: `[`, want: "[", static: true},
		{word: `$x`},
		{word: `"$x"`},
		{word: `*.go`},
		{word: `~/x`},
		{word: `a{b,c}`},
		{word: `$(ls)`},
		{word: `$"x"`},
		{word: "\"r\\\nm\"", want: "rm", static: true},
		{word: "r\\\nm", want: "rm", static: true},
		{word: "'r\\\nm'", want: "r\\\nm", static: true},
		{word: `$'\x41'`, text: "A", isText: true},
		{word: `$'\x72m'`, text: "rm", isText: true},
		{word: `$'r\x00m'`, text: "r", isText: true}, // bash ends the text at a NUL
		{word: `$'\cA'`},                             // mvdan.cc/sh's expand leaves \c as it is
	} {
		word := call(t, "echo "+tc.word).Args[1]
		if got, ok := shellparse.StaticText(word); got != tc.want || ok != tc.static {
			t.Errorf("StaticText %s: %q, %v; want %q, %v", tc.word, got, ok, tc.want, tc.static)
		}
		want, static := tc.want, tc.static
		if tc.isText {
			want, static = tc.text, true
		}
		if got, ok := shellparse.Text(word); got != want || ok != static {
			t.Errorf("Text %s: %q, %v; want %q, %v", tc.word, got, ok, want, static)
		}
	}
}

// The builtins that read a variable name are told apart from the same
// builtins reading none.
func TestVariableNameArg(t *testing.T) {
	for command, want := range map[string]bool{
		"read line":        true,
		"unset x":          true,
		"mapfile -t lines": true,
		"printf -v x %s y": true,
		"printf $f y":      true,
		"printf %s y":      false,
		"test -v x":        true,
		"[ -R x ]":         true,
		"[ $a $b ]":        true,
		"[ -n x ]":         false,
		"wait -np id":      true,
		"wait 12":          false,
		"echo read":        false,
		"declare-ish -v x": false,
	} {
		c := call(t, command)
		name, _ := shellparse.StaticText(c.Args[0])
		if _, got := shellparse.VariableNameArg(name, c.Args[1:]); got != want {
			t.Errorf("%s: %v, want %v", command, got, want)
		}
	}
}
