package agent

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReferences: the @references of any prompt are where they are
// written (in order, apart, each an "@" that may start one, never the
// "@" of an address), their line ranges are ranges; a path written with
// its special characters backslash-escaped is read back as itself; and
// expanding a prompt never attaches a file outside the workspace or one
// its .gitignore hides.
//
//	go test -run '^$' -fuzz FuzzReferences ./internal/agent/
func FuzzReferences(f *testing.F) {
	for _, s := range []string{
		"@a.go", "see @a.go, @b.go; @c.go", "(@src/x.go)", `@my\ file\ 2.txt now`, `@"quoted name.txt"`,
		"@file.test.go.", "a@b.c x@y", "@", "line\n@dir/ rest", "@a.go#L3-5, @b.go#L7", "@a#b.go#L2-L4",
		"@a.go#L3x @#L4 @a.go#L", "@secret.env @../outside.txt @link.txt @dir", "@a.go#L999999999-1 @a.go#L0",
		"\"@a.go\" '@dir/b.go' `@a.go` {@a.go} [@a.go] <@a.go>", "@\xff\\\xfe @é\\ x",
	} {
		f.Add(s, "my file, (v2)!.txt")
	}
	files := map[string]string{
		"a.go":        "package a // A-TEXT\n",
		"dir/b.go":    "package b\n",
		".gitignore":  "secret.env\n",
		"secret.env":  "HIDDEN-BY-GITIGNORE\n",
		"my file.txt": "spaced",
	}
	if runtime.GOOS != "windows" { // no newline in a Windows name
		files["two\nlines"] = "x"
	}
	ws, _, root := refWorkspace(f, files)
	outside := filepath.Join(f.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("OUTSIDE-THE-WORKSPACE\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	// A link out of the workspace, where links can be made (not under
	// Wine): @../outside.txt is still tried without it.
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil && runtime.GOOS != "windows" {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt, path string) {
		prev := 0
		for _, r := range parseReferences(prompt) {
			if r.start < prev || r.end <= r.start+1 || r.end > len(prompt) || prompt[r.start] != '@' || !referenceMayStart(prompt, r.start) || r.name == "" {
				t.Fatalf("parseReferences(%q): %+v", prompt, r)
			}
			if r.start > 0 {
				if c, _ := utf8.DecodeLastRuneInString(prompt[:r.start]); c < utf8.RuneSelf && ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
					t.Fatalf("parseReferences(%q): the @ at %d follows %q", prompt, r.start, c)
				}
			}
			if r.lines != nil && (r.lines.first < 0 || r.lines.last < 0 || r.lines.first > 999999999 || r.lines.last > 999999999) {
				t.Fatalf("parseReferences(%q): lines %+v", prompt, *r.lines)
			}
			prev = r.end
		}

		if path != "" && !strings.Contains(path, "#L") {
			// escapeRef escapes as a Unix shell does; on Windows a
			// backslash is a separator, not an escape.
			written := "see @" + escapeRef(path) + " now"
			refs := parseReferencesOn("linux", written)
			if len(refs) != 1 || refs[0].name != path || refs[0].lines != nil {
				t.Fatalf("parseReferencesOn(linux, %q) = %+v, want the one path %q", written, refs, path)
			}
		}

		parts, err := ExpandReferences(context.Background(), ws, prompt)
		if err != nil {
			t.Fatalf("ExpandReferences(%q): %v", prompt, err)
		}
		for _, p := range parts {
			for _, s := range []string{"OUTSIDE-THE-WORKSPACE", "HIDDEN-BY-GITIGNORE"} {
				if strings.Contains(p.Text, s) && !strings.Contains(prompt, s) {
					t.Fatalf("ExpandReferences(%q) attached %s: %q", prompt, s, p.Text)
				}
			}
		}
	})
}

// escapeRef writes path as a reference's text: each character that would
// end it, a quote or a backslash escaped, and a final ".".
func escapeRef(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); {
		r, size := utf8.DecodeRuneInString(path[i:])
		if strings.ContainsRune(" \t\n\r,;!?()[]{}\"\\", r) || r == '.' && i == len(path)-1 {
			b.WriteByte('\\')
		}
		b.WriteString(path[i : i+size]) // the bytes as they were, valid or not
		i += size
	}
	return b.String()
}
