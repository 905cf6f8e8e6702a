package tomldepth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestCheck(t *testing.T) {
	deep := func(unit string, n int) string { return strings.Repeat(unit, n) }
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"a policy", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"git status\", \"a.b.c\"]\ndecision = \"allow\"\npriority = 1.5\n", true},
		{"dotted keys at the bound", deep("a.", MaxDepth-1) + "b = 1", true},
		{"dotted keys past it", deep("a.", MaxDepth) + "b = 1", false},
		{"a header's dots", "[" + deep("a.", MaxDepth) + "b]", false},
		{"floats in an array", "a = [" + deep("1.5, ", 1000) + "]", true},
		{"dots in strings", "a = \"" + deep(".", 1000) + "\"\nb = '" + deep(".", 1000) + "'\nc = \"\"\"\n" + deep(".\n", 1000) + "\"\"\"", true},
		{"dots in comments", "# " + deep(".", 1000) + "\na = 1", true},
		{"many short keys", manyKeys(1000), true},
		{"inline tables at the bound", "a = " + deep("{b=", MaxDepth) + "1" + deep("}", MaxDepth), true},
		{"inline tables past it", "a = " + deep("{b=", MaxDepth+1) + "1" + deep("}", MaxDepth+1), false},
		{"dotted keys in inline tables", "a = {" + deep("b.", MaxDepth) + "c = 1}", false},
		{"arrays past it", "a = " + deep("[", MaxDepth+1) + deep("]", MaxDepth+1), false},
		{"brackets in strings", "a = \"" + deep("[{", 1000) + "\"", true},
	} {
		err := Check(tc.text)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Check = %v, want ok %v", tc.name, err, tc.ok)
		}
		if tc.ok {
			var v map[string]any
			if _, err := toml.Decode(tc.text, &v); err != nil {
				t.Errorf("%s: not TOML, so not a case of a file Check must let through: %v", tc.name, err)
			}
		}
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "a.b.k%d = 1\n", i)
	}
	return b.String()
}
