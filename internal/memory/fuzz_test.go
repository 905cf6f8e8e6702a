package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// FuzzImports: whatever a GEMINI.md holds, its imports are found where
// they are written (an "@" at the start or after white space, the path
// up to the next), code spans are well-formed, and the expansion never
// brings in a file outside the scope or one holding credentials or
// settings, stays bounded, and leaves text without an import as it is.
//
//	go test -run '^$' -fuzz FuzzImports ./internal/memory/
func FuzzImports(f *testing.F) {
	for _, s := range []string{
		"Top @./a.md end",
		"A\n@sub/b.md",
		"@a.md @a.md @b.md",
		"@../outside.md and @/etc/passwd and @./../outside.md",
		"@.env @.gemini/settings.json @.ENV.local",
		"`@a.md` and ```\n@a.md\n``` but @a.md",
		"``@a.md` @b.md``",
		"see user@example.com and @https://x/y",
		"@sub/../a.md\t@sub/b.md\r\n@a.md@b.md",
		strings.Repeat("`", 9) + "@a.md",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	root := filepath.Join(dir, "root")
	for name, text := range map[string]string{
		"outside.md":                     "OUTSIDE-THE-SCOPE",
		"root/a.md":                      "A-TEXT @b.md @./sub/b.md",
		"root/b.md":                      "B-TEXT @a.md @b.md",
		"root/sub/b.md":                  "SUB-B @../a.md @../../outside.md",
		"root/.env":                      "CREDENTIAL-IN-ENV",
		"root/.ENV.local":                "CREDENTIAL-IN-ENV",
		"root/.gemini/settings.json":     `{"CREDENTIAL-IN-SETTINGS": 1}`,
		"root/link.md":                   "",
		"root/.gemini/notes.md":          "NOTES",
		"root/.gemini/oauth_creds.json":  "CREDENTIAL-OAUTH",
		"root/sub/.gemini/settings.json": "CREDENTIAL-IN-SETTINGS",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	// A link out of the scope, read as the file it leads to.
	if err := os.Remove(filepath.Join(root, "link.md")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(root, "link.md")); err != nil {
		f.Fatal(err)
	}
	sc, err := newScope(root, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	g := newGuard(filepath.Join(dir, "home", ".gemini"), []string{"GEMINI.md"})
	secrets := []string{"OUTSIDE-THE-SCOPE", "CREDENTIAL-IN-ENV", "CREDENTIAL-IN-SETTINGS", "CREDENTIAL-OAUTH"}

	f.Fuzz(func(t *testing.T, content string) {
		imports := findImports(content)
		prev := 0
		for _, im := range imports {
			if im.start < prev || im.end <= im.start || content[im.start] != '@' || content[im.start+1:im.end] != im.path ||
				strings.ContainsAny(im.path, " \t\r\n") || im.start > 0 && !isSpace(content[im.start-1]) {
				t.Fatalf("findImports(%q): %+v", content, im)
			}
			prev = im.end
		}
		prev = 0
		for _, r := range codeRegions(content) {
			if r[0] < prev || r[1] <= r[0]+1 || r[1] > len(content) || content[r[0]] != '`' || content[r[1]-1] != '`' {
				t.Fatalf("codeRegions(%q): %v", content, r)
			}
			prev = r[1]
		}

		e := &expander{scope: sc, guard: g, log: zap.NewNop()}
		chain := map[string]bool{identity(filepath.Join(root, "GEMINI.md")): true}
		out := e.expand(context.Background(), content, root, chain, 0)
		if len(imports) == 0 && out != content {
			t.Fatalf("expand(%q) without imports = %q", content, out)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) && !strings.Contains(content, s) {
				t.Fatalf("expand(%q) brought in %s:\n%s", content, s, out)
			}
		}
		// Each import found is at most a note naming it twice (and its
		// full path), or the text of a file of the tree and two markers,
		// 500 files in all.
		if limit := 3*len(content) + len(imports)*(200+len(root)) + maxImports*400; len(out) > limit {
			t.Fatalf("expand(%q) is %d bytes, over %d", content, len(out), limit)
		}
	})
}
