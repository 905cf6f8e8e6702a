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
// further.
func TestStaticText(t *testing.T) {
	for _, tc := range []struct {
		word, want string
		static     bool
	}{
		{`ls`, "ls", true},
		{`\ls`, "ls", true},
		{`'l s'`, "l s", true},
		{`"a\"b\$c\d"`, `a"b$c\d`, true},
		{`a"b"'c'`, "abc", true},
		{`[`, "[", true},
		{`$x`, "", false},
		{`"$x"`, "", false},
		{`*.go`, "", false},
		{`~/x`, "", false},
		{`a{b,c}`, "", false},
		{`$'\x41'`, "", false},
		{`$(ls)`, "", false},
	} {
		got, ok := shellparse.StaticText(call(t, "echo "+tc.word).Args[1])
		if got != tc.want || ok != tc.static {
			t.Errorf("%s: %q, %v; want %q, %v", tc.word, got, ok, tc.want, tc.static)
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
