package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// Applying an inbox patch (the auto-memory agent, a model, writes it) of
// up to 1 MiB with its file takes time linear in the two, however they
// are made: a hunk's line far past the end; hunks each said to be a
// million lines after the last but found near the start, each search
// crossing the file again, until the budget refuses the patch; a long
// hunk on a file of one repeated line, found far from its line or
// nowhere, which compared line by line costs the product of the two.
func TestApplyPatchIsLinear(t *testing.T) {
	half := func(size int) int { return size / 2 }
	for name, input := range map[string]func(int) string{
		"a start past the end": func(size int) string {
			return "b\n" + lineartest.Repeat("a\n")(half(size)) + "\x00@@ -9223372036854775807 +1 @@\n-b\n+c\n"
		},
		"hunks far apart, found near the start": func(size int) string {
			var file, patch strings.Builder
			for i := 0; patch.Len() < half(size); i++ {
				fmt.Fprintf(&file, "l%d\n", i)
				fmt.Fprintf(&patch, "@@ -%d +%d @@\n-l%d\n+L%d\n", (i+1)*1000000, (i+1)*1000000, i, i)
			}
			return file.String() + lineartest.Repeat("f\n")(half(size)) + "\x00" + patch.String()
		},
		"a long hunk found far away": func(size int) string {
			file := lineartest.Repeat("a\n")(half(size)) + "b\n"
			return file + "\x00@@ -1 +1 @@\n" + lineartest.Repeat(" a\n")(half(size)/2) + " b\n"
		},
		"a long hunk found nowhere": func(size int) string {
			file := "b\n" + lineartest.Repeat("a\n")(half(size))
			return file + "\x00@@ -1 +1 @@\n" + lineartest.Repeat(" a\n")(half(size)/2) + " b\n"
		},
		"many hunks in place": func(size int) string {
			var file, patch strings.Builder
			for i := 0; patch.Len() < half(size); i++ {
				fmt.Fprintf(&file, "l%d\nx\n", i)
				fmt.Fprintf(&patch, "@@ -%d +%d @@\n-l%d\n+L%d\n", 2*i+1, 2*i+1, i, i)
			}
			return file.String() + "\x00" + patch.String()
		},
		"many additions": func(size int) string {
			return lineartest.Repeat("a\n")(half(size)) + "\x00" + lineartest.Repeat("@@ -1,0 +1 @@\n+x\n")(half(size))
		},
	} {
		lineartest.Linear(t, name, input, func(text string) {
			source, patch, _ := strings.Cut(text, "\x00")
			ps, err := parsePatch(patch)
			if err != nil {
				return
			}
			for _, p := range ps {
				apply(source, p) //nolint:errcheck // only its time counts
			}
		})
	}
}
