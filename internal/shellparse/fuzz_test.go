package shellparse_test

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/shellparse"
)

// FuzzTextAgreesWithBash: whenever Text says what a word is, it is what
// mvdan.cc/sh's expand passes to a command for it (Fields: quotes,
// escapes and $'…' decoded), as one word; and StaticText agrees with
// Text wherever it knows the word.
func FuzzTextAgreesWithBash(f *testing.F) {
	for _, seed := range []string{`\rm`, `'rm'`, `"rm"`, "r\\\nm", `$'rm'`, `$'\x72m'`, `$'r\0m'`, `$'\u00e9\U0001F600'`,
		`$'\101\1010'`, `$'\z\x\u'`, `"a\"b\$c\d"`, `a"b"'c'`, `[`, `$'\E\e\?'`, `"$x"`, `*.go`, `\*`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, word string) {
		file, err := shellparse.Parse("echo " + word)
		if err != nil || len(file.Stmts) != 1 {
			return
		}
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != 2 {
			return
		}
		w := call.Args[1]
		text, known := shellparse.Text(w)
		if !known {
			return
		}
		fields, err := expand.Fields(&expand.Config{}, w)
		if err != nil || len(fields) != 1 || fields[0] != text {
			t.Errorf("%s: Text %q, mvdan.cc/sh's expand %q (%v)", word, text, fields, err)
		}
		if static, ok := shellparse.StaticText(w); ok && static != text {
			t.Errorf("%s: StaticText %q, Text %q", word, static, text)
		}
		if strings.Contains(text, "\x00") {
			t.Errorf("%s: Text %q holds a NUL, which bash never passes", word, text)
		}
	})
}
