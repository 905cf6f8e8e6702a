package tools

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// excludeSet matches the @paths' exclude patterns against every file
// a pattern takes in: over a tree of a million files, matching the
// default excludes one glob at a time was most of the call's time. The
// forms the defaults take are answered from the path's names; any other
// pattern is matched as a glob. Either way the answer is the glob's.
type excludeSet struct {
	suffixes []string        // "**/*.bin": a last name ending ".bin"
	names    map[string]bool // "**/.env": a last name ".env"
	dirs     map[string]bool // "**/dist/**": any name "dist"
	globs    []string        // the other patterns
}

// newExcludeSet sorts patterns (lower-cased, slash-separated) by form.
func newExcludeSet(patterns []string) excludeSet {
	x := excludeSet{names: map[string]bool{}, dirs: map[string]bool{}}
	for _, p := range patterns {
		rest, anywhere := strings.CutPrefix(p, "**/")
		switch {
		case !anywhere:
			x.globs = append(x.globs, p)
		case plainName(strings.TrimSuffix(rest, "/**")) && strings.HasSuffix(rest, "/**"):
			x.dirs[strings.TrimSuffix(rest, "/**")] = true
		case strings.HasPrefix(rest, "*") && plainName(rest[1:]):
			x.suffixes = append(x.suffixes, rest[1:])
		case plainName(rest):
			x.names[rest] = true
		default:
			x.globs = append(x.globs, p)
		}
	}
	return x
}

// plainName reports whether s is one non-empty name with no glob syntax.
func plainName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "/*?[]{}\\")
}

// match reports whether a pattern takes in rel (lower-cased,
// slash-separated, relative to the root).
func (x excludeSet) match(rel string) bool {
	last := rel[strings.LastIndexByte(rel, '/')+1:]
	if x.names[last] {
		return true
	}
	for _, s := range x.suffixes {
		if strings.HasSuffix(last, s) {
			return true
		}
	}
	if len(x.dirs) > 0 {
		for name := range strings.SplitSeq(rel, "/") {
			if x.dirs[name] {
				return true
			}
		}
	}
	for _, p := range x.globs {
		if doublestar.MatchUnvalidated(p, rel) {
			return true
		}
	}
	return false
}
