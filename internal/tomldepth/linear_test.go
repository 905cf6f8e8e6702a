package tomldepth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// guardedRead is how a policy or command file is read: Check, then the
// library only when Check lets the text through.
func guardedRead(text string) {
	if Check(text) != nil {
		return
	}
	var v map[string]any
	_, _ = toml.Decode(text, &v)
}

// The read with Check before it is linear, on what Check lets through at
// its bounds and on what it refuses: the library alone takes seconds on
// a line of inline tables nested 64 deep each under a 63-part key.
func TestGuardedReadIsLinear(t *testing.T) {
	for name, input := range map[string]func(size int) string{
		"the product past the bound, line after line": lineartest.Repeat("a = " + nestedTables(64, 63) + "\n"),
		"keys at the bound, line after line": func(size int) string {
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "k%d.b = %s\n", i, nestedTables(2, 31))
			}
			return b.String()
		},
		"many keys in a table at the bound": func(size int) string {
			open := "a.b = " + strings.Repeat("{"+strings.TrimSuffix(strings.Repeat("b.", 30), ".")+"=", 2) + "{"
			var b strings.Builder
			b.WriteString(open)
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "%sk%d=1, ", strings.Repeat("c.", 1), i)
			}
			b.WriteString("z=1" + strings.Repeat("}", 3) + "\n")
			return b.String()
		},
		"arrays at the bound": func(size int) string {
			return "a = " + strings.Repeat("[", 31) + lineartest.Repeat("{"+strings.Repeat("b.", 31)+"b = 1}, ")(size) + "1" + strings.Repeat("]", 31)
		},
	} {
		lineartest.Linear(t, name, input, guardedRead)
	}
}
