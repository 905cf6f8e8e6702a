package tools

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestExcludeSetAnswersAsTheGlobs: for every default exclude, and patterns
// of other forms, the set's answer is doublestar's on paths of one to
// three names built from names each form could confuse.
func TestExcludeSetAnswersAsTheGlobs(t *testing.T) {
	patterns := []string{"temp/**", "**/*", "**/*.log", "src/**/*.go", "**/{a,b}.txt", "**/dist", "*.bin"}
	for _, p := range defaultManyExcludes {
		patterns = append(patterns, strings.ToLower(p))
	}
	names := []string{"a", "dist", "dist.txt", "x.bin", ".bin", "bin", "a.bin.txt", ".env", "x.env", "gemini.md", "node_modules",
		"foo.tar.gz", "b.pyc", "build", "temp", "a.txt", "main.go", "src", ".git", "x.log"}
	var paths []string
	for _, a := range names {
		paths = append(paths, a)
		for _, b := range names {
			paths = append(paths, a+"/"+b)
			for _, c := range names[:8] {
				paths = append(paths, a+"/"+b+"/"+c)
			}
		}
	}
	for _, p := range patterns {
		set := newExcludeSet([]string{p})
		for _, path := range paths {
			if got, want := set.match(path), doublestar.MatchUnvalidated(p, path); got != want {
				t.Errorf("%q on %q: %v, the glob says %v", p, path, got, want)
			}
		}
	}
	all := newExcludeSet(patterns)
	for _, path := range paths {
		want := false
		for _, p := range patterns {
			want = want || doublestar.MatchUnvalidated(p, path)
		}
		if got := all.match(path); got != want {
			t.Errorf("all patterns on %q: %v, the globs say %v", path, got, want)
		}
	}
}
