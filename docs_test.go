package geminils

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The binary carries README.md and every docs/*.md as they are in the
// repository, by their paths, and nothing else.
func TestDocs(t *testing.T) {
	want, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, "README.md")
	if len(want) < 2 {
		t.Fatalf("the repository has no docs/*.md: %v", want)
	}
	n := 0
	err = fs.WalkDir(Docs(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("%d files carried, want %d (%v)", n, len(want), want)
	}
	for _, p := range want {
		got, err := fs.ReadFile(Docs(), filepath.ToSlash(p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		disk, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(disk) {
			t.Errorf("%s differs from the repository's", p)
		}
	}
}

// Every row of docs/configuration.md's "Gemini CLI's command line" names,
// in its last cell, the tests that hold gemini-ls to it, and each exists.
func TestCommandLineTableNamesTests(t *testing.T) {
	doc, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Gemini CLI's command line\n")
	if !ok {
		t.Fatal(`docs/configuration.md has no "## Gemini CLI's command line"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	defined := testFuncs(t)
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| 0.61 |") || strings.HasPrefix(line, "| ---") {
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		names := testName.FindAllString(cells[len(cells)-1], -1)
		if len(names) == 0 {
			t.Errorf("row names no test: %s", line)
		}
		for _, n := range names {
			if !defined[n] {
				t.Errorf("row names %s, which no _test.go defines: %s", n, line)
			}
		}
	}
	if rows == 0 {
		t.Error("the section has no rows")
	}
}

var testName = regexp.MustCompile(`\bTest[A-Z0-9_]\w*`)

// testFuncs is the name of every top-level Test function in the module.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Z0-9_]\w*)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			out[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
