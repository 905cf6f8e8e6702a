package memory

import (
	"strings"
	"testing"
)

// FuzzPatch: whatever an inbox patch holds (the auto-memory agent, a
// model, writes it), reading it and applying it to any text ends without
// a panic, and a file's part with no hunks leaves the text as it is.
//
//	go test -run '^$' -fuzz FuzzPatch ./internal/memory/
func FuzzPatch(f *testing.F) {
	for _, c := range [][2]string{
		{"a\nb\nc\n", "--- /f\n+++ /f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "--- /dev/null\n+++ /m/n.md\n@@ -0,0 +1 @@\n+x\n"},
		{"a", "--- /f\n+++ /f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"x\n", "@@ -1 +1 @@\n-x\n+y\n@@ -9,99 +9,99 @@\n"},
		{"a\r\nb\r\n", "--- /f\t2026\r\n+++ /f\r\n@@ -2 +2 @@\r\n-b\r\n+c\r\n"},
		{strings.Repeat("a\n", 50), "--- /f\n+++ /f\n@@ -40,2 +40,1 @@\n a\n-a\n"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, source, text string) {
		patches, err := parsePatch(text)
		if err != nil {
			return
		}
		for _, p := range patches {
			out, err := apply(source, p)
			if err == nil && len(p.hunks) == 0 && out != source {
				t.Fatalf("a patch of no hunks changed %q to %q", source, out)
			}
		}
	})
}
