package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// apply places hunks as jsdiff does without fuzz: moved to where their
// lines are, the end-of-file newline as the markers say, and refused when
// a context line is not there.
func TestApplyPatch(t *testing.T) {
	for _, tc := range []struct {
		name, source, patch, want string
		fails                     bool
	}{
		{name: "in place", source: "a\nb\nc\n", patch: "--- /f\n+++ /f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", want: "a\nB\nc\n"},
		{name: "moved down", source: "x\ny\na\nb\nc\n", patch: "--- /f\n+++ /f\n@@ -1,3 +1,4 @@\n a\n b\n+b2\n c\n", want: "x\ny\na\nb\nb2\nc\n"},
		{name: "two hunks", source: "1\n2\n3\n4\n5\n6\n7\n8\n", patch: "--- /f\n+++ /f\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -7,2 +7,2 @@\n 7\n-8\n+eight\n", want: "one\n2\n3\n4\n5\n6\n7\neight\n"},
		{name: "new file", source: "", patch: "--- /dev/null\n+++ /f\n@@ -0,0 +1,2 @@\n+a\n+b\n", want: "a\nb\n"},
		{name: "no newline at the end", source: "a\n", patch: "--- /f\n+++ /f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n", want: "b"},
		{name: "context missing", source: "a\nb\n", patch: "--- /f\n+++ /f\n@@ -1,2 +1,2 @@\n a\n-z\n+Z\n", fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := parsePatch(tc.patch)
			if err != nil || len(ps) != 1 {
				t.Fatalf("parsePatch: %v, %d files", err, len(ps))
			}
			got, err := apply(tc.source, ps[0])
			if tc.fails {
				if err == nil {
					t.Errorf("applied: %q", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := parsePatch("--- /f\n+++ /f\n@@ -1,2 +1,2 @@\n a\n"); err == nil {
		t.Error("a hunk shorter than its header parsed")
	}
}

// A new sibling note gets a pointer in MEMORY.md when the patch adds
// none, as 0.61 adds one; a patch reaching a dot file, a file below the
// directory or, through a symlink, one outside is not applied.
func TestInboxPointerAndTargets(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "memory")
	write(t, filepath.Join(dir, "MEMORY.md"), "# Project Memory\n")
	in := Inbox{Dir: dir, GlobalFile: filepath.Join(base, "GEMINI.md")}
	note := filepath.Join(dir, "db-setup.md")
	write(t, filepath.Join(dir, ".inbox", "private", "a.patch"), "--- /dev/null\n+++ "+note+"\n@@ -0,0 +1 @@\n+Port 5433\n")
	msg, err := in.Apply(context.Background(), KindPrivate, KindPrivate)
	if err != nil || msg != `Applied all 1 private memory patch. Auto-added MEMORY.md pointer(s) for "db-setup.md".` {
		t.Fatalf("Apply: %q, %v", msg, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "MEMORY.md")); string(b) != "# Project Memory\n- See "+note+" for db setup notes.\n" {
		t.Errorf("MEMORY.md: %q", b)
	}

	refused := func(name, target string) {
		t.Helper()
		write(t, filepath.Join(dir, ".inbox", "private", name), "--- "+target+"\n+++ "+target+"\n@@ -1 +1 @@\n-x\n+y\n")
		if _, err := in.Apply(context.Background(), KindPrivate, name); err == nil || !strings.Contains(err.Error(), "outside the private memory root") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, target := range map[string]string{
		"dot.patch":   filepath.Join(dir, ".hidden.md"),
		"below.patch": filepath.Join(dir, "sub", "x.md"),
		"txt.patch":   filepath.Join(dir, "notes.txt"),
	} {
		refused(name, target)
	}
	if _, err := in.Apply(context.Background(), "secret", "secret"); err == nil {
		t.Error("an unknown kind was accepted")
	}
	// Last, as it skips where no real link can be made (Wine).
	outside := filepath.Join(base, "outside.md")
	write(t, outside, "x\n")
	platformtest.Symlink(t, outside, filepath.Join(dir, "link.md"))
	refused("link.patch", filepath.Join(dir, "link.md"))
	if b, _ := os.ReadFile(outside); string(b) != "x\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
}
