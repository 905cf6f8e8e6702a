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
		{"inline tables at the bound", "a = " + deep("{b=", MaxDepth-1) + "1" + deep("}", MaxDepth-1), true},
		{"inline tables past it", "a = " + deep("{b=", MaxDepth+1) + "1" + deep("}", MaxDepth+1), false},
		{"dotted keys in inline tables", "a = {" + deep("b.", MaxDepth) + "c = 1}", false},
		{"arrays past it", "a = " + deep("[", MaxDepth+1) + deep("]", MaxDepth+1), false},
		{"brackets in strings", "a = \"" + deep("[{", 1000) + "\"", true},
		{"the product at the bound", "a.b = " + nestedTables(2, 31) + "\n", true},
		{"the product past it", "a.b.c = " + nestedTables(2, 31) + "\n", false},
		{"inline tables 64 deep each under a 63-part key", "a = " + nestedTables(64, 63) + "\n", false},
		{"a header's parts count", "[" + deep("h.", 7) + "h]\na = " + nestedTables(5, 11) + "\n", true},
		{"a header's parts past it", "[" + deep("h.", 8) + "h]\na = " + nestedTables(5, 11) + "\n", false},
		{"arrays count", "a = " + deep("[", 31) + "{" + deep("b.", 31) + "b = 1}" + deep("]", 31), true},
		{"arrays past it", "a = " + deep("[", 32) + "{" + deep("b.", 31) + "b = 1}" + deep("]", 32), false},
		{"array elements after a nested one", "a = [[{" + deep("b.", 60) + "b=1}], {" + deep("b.", 61) + "b=1}]", true},
		{"[[rule]] tables", "[[rule]]\na.b = {c = [1, {d = 2}]}\n[[rule]]\na.b = 1\n", true},
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

// nestedTables is inline tables depth deep, each under a key of parts
// dotted parts: a value at path depth depth*parts.
func nestedTables(depth, parts int) string {
	key := strings.TrimSuffix(strings.Repeat("b.", parts), ".")
	return strings.Repeat("{"+key+"=", depth) + "1" + strings.Repeat("}", depth)
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "a.b.k%d = 1\n", i)
	}
	return b.String()
}
