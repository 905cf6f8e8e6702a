package memory

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// FuzzPatch: whatever an inbox patch holds (the auto-memory agent, a
// model, writes it), reading it and applying it to any text ends, and
// applying places each hunk where jsdiff's line-by-line walk (kept below
// as applyByWalking, on inputs small enough for it) places it, or refuses
// it as the walk does, in work linear in the file and the patch: only a
// patch whose hunks are out of order or name lines past the end of the
// file is refused as too costly to place. A file's part with no hunks
// leaves the text as it is; a diff of the text to any other text, applied
// to it, gives that other text.
//
//	go test -run '^$' -fuzz FuzzPatch ./internal/memory/
func FuzzPatch(f *testing.F) {
	for _, c := range [][3]string{
		{"a\nb\nc\n", "--- /f\n+++ /f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n"},
		{"", "--- /dev/null\n+++ /m/n.md\n@@ -0,0 +1 @@\n+x\n", "x\n"},
		{"a", "--- /f\n+++ /f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", "a\n"},
		{"x\n", "@@ -1 +1 @@\n-x\n+y\n@@ -9,99 +9,99 @@\n", ""},
		{"a\r\nb\r\n", "--- /f\t2026\r\n+++ /f\r\n@@ -2 +2 @@\r\n-b\r\n+c\r\n", "a\r\nc\r\n"},
		{strings.Repeat("a\n", 50), "--- /f\n+++ /f\n@@ -40,2 +40,1 @@\n a\n-a\n", "a\n"},
		{"a\nx\nb\nx\nc\n", "--- /f\n+++ /f\n@@ -0111111111111 +0 @@\n-x\n+y\n", "x\n"},
		{"x\ny\nx\ny\n", "@@ -3 +3 @@\n-x\n+X\n@@ -1 +1 @@\n-y\n+Y\n", "y\nx\n"},
		{"1\n2\n3\nq\n", "@@ -9 +9 @@\n-1\n+one\n@@ -99 +99 @@\n-2\n+two\n@@ -999,0 +999 @@\n+3\n", "1\n"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, source, text, other string) {
		patches, err := parsePatch(text)
		if err == nil {
			for _, p := range patches {
				checkApply(t, source, p)
			}
		}
		checkDiffApplies(t, source, other)
	})
}

// checkApply: apply does what the walk does, in linear work.
func checkApply(t *testing.T, source string, p filePatch) {
	t.Helper()
	got, err := apply(source, p)
	if errors.Is(err, errTooFar) {
		if inOrderWithin(source, p) {
			t.Fatalf("a patch in order, within the file, refused as too costly: %v\nsource %q\n%+v", err, source, p)
		}
		return
	}
	want, wantErr := applyByWalking(source, p)
	if (err == nil) != (wantErr == nil) || got != want {
		t.Fatalf("source %q, patch %+v:\napply gives %q, %v\nthe walk %q, %v", source, p, got, err, want, wantErr)
	}
	if err == nil && len(p.hunks) == 0 && got != source {
		t.Fatalf("a patch of no hunks changed %q to %q", source, got)
	}
}

// inOrderWithin reports whether p's hunks start in order, none past the
// line after the file's end.
func inOrderWithin(source string, p filePatch) bool {
	lines := strings.Count(source, "\n") + 1
	prev := 0
	for _, h := range p.hunks {
		if h.oldStart < prev || h.oldStart > lines+1 {
			return false
		}
		prev = h.oldStart
	}
	return true
}

// checkDiffApplies: a unified diff of source to other, as diff -u writes
// it, applied to source is other. A \r is left out: jsdiff's reading of a
// patch takes it as part of the line break, as 0.61 does.
func checkDiffApplies(t *testing.T, source, other string) {
	t.Helper()
	if strings.Contains(source+other, "\r") || source == other {
		return
	}
	diff := udiff.Unified("/f", "/f", source, other)
	ps, err := parsePatch(diff)
	if err != nil || len(ps) != 1 {
		t.Fatalf("the diff of %q to %q: %v, %d files\n%s", source, other, err, len(ps), diff)
	}
	if got, err := apply(source, ps[0]); err != nil || got != other {
		t.Fatalf("the diff of %q to %q gives %q, %v\n%s", source, other, got, err, diff)
	}
}

// applyByWalking is apply as jsdiff's applyPatch places hunks: trying
// each place from the hunk's line outward, one line after, one before,
// comparing the hunk's lines there, the line clamped into the file (where
// jsdiff walks to it from wherever the header says, to the same effect).
func applyByWalking(source string, p filePatch) (string, error) {
	if len(p.hunks) == 0 {
		return source, nil
	}
	lines, err := withEOFNewline(strings.Split(source, "\n"), p.hunks[len(p.hunks)-1])
	if err != nil {
		return "", err
	}
	var out []string
	minLine, offset := 0, 0
	for _, h := range p.hunks {
		var old []string
		for _, l := range h.lines {
			if l[0] == ' ' || l[0] == '-' {
				old = append(old, l[1:])
			}
		}
		start := min(max(lineHint(h.oldStart, offset), minLine), len(lines)-len(old))
		at := -1
		for d := 0; at < 0 && (start+d <= len(lines)-len(old) || start-d >= minLine); d++ {
			for _, pos := range []int{start + d, start - d} {
				if at < 0 && pos >= minLine && pos+len(old) <= len(lines) && slices.Equal(lines[pos:pos+len(old)], old) {
					at = pos
				}
			}
		}
		if at < 0 {
			return "", errDoesNotApply
		}
		out = append(out, lines[minLine:at]...)
		oldEnd := at
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				out = append(out, lines[oldEnd])
				oldEnd++
			case '-':
				oldEnd++
			case '+':
				out = append(out, l[1:])
			}
		}
		minLine = oldEnd
		offset = at + 1 - h.oldStart
	}
	return strings.Join(append(out, lines[minLine:]...), "\n"), nil
}
