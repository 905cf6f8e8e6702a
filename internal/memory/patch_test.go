package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A hunk whose header names a line far past the end of the file (the
// auto-memory agent, a model, writes the patches) is looked for from the
// file's end, as git apply clamps it, not walked to line by line from
// where it says: @@ -0111111111111 spun for minutes, 19 digits for ever.
// It still lands where its lines are; a number too large for a line
// number is refused as such.
func TestHostilePatchEndsAtOnce(t *testing.T) {
	source := "a\nx\nb\nx\nc\n"
	for _, tc := range []struct{ name, start, want string }{
		{"12 digits", "0111111111111", "a\nx\nb\ny\nc\n"},
		{"19 digits", "1111111111111111111", "a\nx\nb\ny\nc\n"},
		{"the largest int", "9223372036854775807", "a\nx\nb\ny\nc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := parsePatch("--- /f\n+++ /f\n@@ -" + tc.start + " +0 @@\n-x\n+y\n")
			if err != nil || len(ps) != 1 {
				t.Fatalf("parsePatch: %v, %d files", err, len(ps))
			}
			type result struct {
				text string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				text, err := apply(source, ps[0])
				done <- result{text, err}
			}()
			select {
			case r := <-done:
				if r.err != nil || r.text != tc.want {
					t.Errorf("got %q, %v; want %q", r.text, r.err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still applying after 10 s")
			}
		})
	}
	if _, err := parsePatch("--- /f\n+++ /f\n@@ -99999999999999999999 +1 @@\n-x\n+y\n"); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a line number past any int: %v", err)
	}
}

// A patch whose placing would cost more than a reading per line of the
// file and the patch (hunks each said to be a million lines further, all
// found near the start: each search crosses the file again) is refused
// saying why, and so is the inbox's apply of it; one in order, its hunks
// far from their lines, is not.
func TestPatchTooCostlyToPlaceIsRefused(t *testing.T) {
	var file, far, near strings.Builder
	for i := range 200 {
		fmt.Fprintf(&file, "l%d\n", i)
		fmt.Fprintf(&far, "@@ -%d +%d @@\n-l%d\n+L%d\n", (i+1)*1000000, (i+1)*1000000, i, i)
		fmt.Fprintf(&near, "@@ -%d +%d @@\n-l%d\n+L%d\n", 2000+i, 2000+i, i, i)
	}
	source := file.String() + strings.Repeat("f\n", 2000)
	ps, err := parsePatch(far.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply(source, ps[0]); !errors.Is(err, errTooFar) {
		t.Errorf("hunks a million lines apart: %v", err)
	}
	if ps, err = parsePatch(near.String()); err != nil {
		t.Fatal(err)
	}
	if got, err := apply(source, ps[0]); err != nil || !strings.HasPrefix(got, "L0\nL1\n") {
		t.Errorf("hunks in order, 2000 lines from their lines: %.20q, %v", got, err)
	}

	dir := t.TempDir()
	target := filepath.Join(dir, "notes.md")
	write(t, target, source)
	write(t, filepath.Join(dir, ".inbox", "private", "far.patch"), "--- "+target+"\n+++ "+target+"\n"+far.String())
	in := Inbox{Dir: dir, GlobalFile: filepath.Join(t.TempDir(), "GEMINI.md")}
	_, err = in.Apply(context.Background(), KindPrivate, "far.patch")
	if err == nil || !strings.Contains(err.Error(), "out of order or name lines far past the end of the file") {
		t.Errorf("the inbox's apply: %v", err)
	}
}
