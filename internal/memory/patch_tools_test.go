package memory

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// A patch lands where git apply and GNU patch (without fuzz) put it: in
// place, moved down or up to where its lines are, the nearest of two
// places (the later at the same distance), each hunk moved as the one
// before was; where neither applies it, apply refuses it too. The hunks
// start past line 1 and end in context, where git would otherwise pin
// them to the file's start or end, which jsdiff does not.
func TestApplyAgreesWithGitAndPatch(t *testing.T) {
	git, gnuPatch := platformtest.Tool(t, "git"), platformtest.Tool(t, "patch")
	body := "p\nq\nr\ns\nt\nu\nv\n"
	hunk := "@@ -3,3 +3,3 @@\n q\n-r\n+R\n s\n"
	for _, tc := range []struct{ name, source, patch string }{
		{"in place", body, hunk},
		{"moved down", "x\ny\nz\n" + body, hunk},
		{"moved up", body[4:], hunk},
		{"the nearer of two", "q\nr\ns\nx\nx\nx\nx\nx\nx\nq\nr\ns\n", "@@ -4,3 +4,3 @@\n q\n-r\n+R\n s\n"},
		{"the later of two as near", "q\nr\ns\nx\nq\nr\ns\n", "@@ -3,3 +3,3 @@\n q\n-r\n+R\n s\n"},
		{"two hunks moved", "x\ny\n" + body + body, hunk + "@@ -10,3 +10,3 @@\n q\n-r\n+R2\n s\n"},
		{"a hunk far past the end", body, "@@ -4000,3 +4000,3 @@\n q\n-r\n+R\n s\n"},
		{"nowhere", body, "@@ -3,3 +3,3 @@\n q\n-z\n+R\n s\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "--- a/f\n+++ b/f\n" + tc.patch
			ps, err := parsePatch(text)
			if err != nil || len(ps) != 1 {
				t.Fatalf("parsePatch: %v, %d files", err, len(ps))
			}
			got, err := apply(tc.source, ps[0])
			if err != nil && !errors.Is(err, errDoesNotApply) {
				t.Fatal(err)
			}
			fromGit, gitErr := runPatchTool(t, tc.source, text, git, "apply", "patch.diff")
			fromPatch, patchErr := runPatchTool(t, tc.source, text, gnuPatch, "--fuzz=0", "--no-backup-if-mismatch", "-s", "-i", "patch.diff", "f")
			if (err == nil) != (gitErr == nil) || (err == nil) != (patchErr == nil) {
				t.Fatalf("apply: %v; git apply: %v; patch: %v", err, gitErr, patchErr)
			}
			if got != fromGit || got != fromPatch {
				t.Errorf("apply gives %q, git apply %q, patch %q", got, fromGit, fromPatch)
			}
		})
	}
}

// runPatchTool runs tool with args in a directory holding f (source) and
// patch.diff (patch), and returns f after it.
func runPatchTool(t *testing.T, source, patch, tool string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"f": source, "patch.diff": patch} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New(strings.TrimSpace(string(out)))
	}
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}
