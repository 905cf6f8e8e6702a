package protected

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
)

// Names are the protected names, in their order: what a project may hold
// that configures a program run later, outside gemini-ls's say. A name
// of several components is separated by slashes. The protected endings
// (*.code-workspace) are not among them.
func Names() []string {
	var out []string
	for _, n := range configfiles.Names() {
		out = append(out, n.Name)
	}
	return out
}

// XDGConfig are the protected names under .config (.config/git, …)
// where XDG_CONFIG_HOME, configHome, puts them instead of ~/.config:
// none when it is unset or relative (which the XDG specification says
// to ignore).
func XDGConfig(configHome string) []Path {
	if !filepath.IsAbs(configHome) {
		return nil
	}
	var out []Path
	for _, n := range configfiles.Names() {
		if rest, ok := strings.CutPrefix(n.Name, ".config/"); ok {
			out = append(out, Path{Path: filepath.Join(configHome, filepath.FromSlash(rest)), What: n.What})
		}
	}
	return out
}

// MaxDepth bounds the directories above a path searched for a protected
// name linking to it; a path deeper than that is protected, unsearched.
const MaxDepth = 64

// Path is a file or directory a Set protects besides the names, and what
// it is, worded to follow "is" or "holds".
type Path struct {
	Path string // absolute
	What string
}

// Set is the protected set: the names, and its paths (New).
type Set struct {
	paths []Path
}

// New returns the set of the names and paths, each with everything
// beneath it; a relative path is left out.
func New(paths ...Path) Set {
	var s Set
	for _, p := range paths {
		if filepath.IsAbs(p.Path) {
			s.paths = append(s.paths, Path{Path: filepath.Clean(p.Path), What: p.What})
		}
	}
	return s
}

// Why says why a change of the file at path (absolute) must be approved
// by a person, naming the protected part of the path and what it is;
// "" when the file is not protected. See the package doc for the set and
// how a path is matched.
func (s Set) Why(path string) string {
	path = filepath.Clean(path)
	real := resolve(path)
	long, known := longPath(real)
	for _, p := range []string{path, real, long} {
		if why := byName(p); why != "" {
			return why
		}
		if why := s.byPath(p); why != "" {
			return why
		}
	}
	if why := byShortName(long, known); why != "" {
		return why
	}
	return byLink(real)
}

// byName is why a component of path (or several in a row) is a
// protected name, or ends with a protected ending, as Windows reads
// names (folded).
func byName(path string) string {
	parts := strings.Split(path, string(filepath.Separator))
	ns, sfs := configfiles.Names(), configfiles.Endings()
	for i, part := range parts {
		if inWorktree(parts, i) {
			// The worktree's files are an agent's work, not configuration;
			// its own .gemini, .git and the like below are matched on.
			continue
		}
		for _, n := range ns {
			if end, ok := matchName(parts, i, n.Name); ok {
				return phrase(strings.Join(parts[:end], string(filepath.Separator)), end == len(parts), n.What)
			}
		}
		for _, sf := range sfs {
			if suffix, _ := sf.Ending(); endsWithFold(folded(part), suffix) {
				return phrase(strings.Join(parts[:i+1], string(filepath.Separator)), i == len(parts)-1, sf.What)
			}
		}
	}
	return ""
}

// inWorktree reports whether parts[i] is one of the components
// .gemini/worktrees/<name> of a path inside that worktree (something
// below <name>): the directory git worktrees of the project's agents
// are made in, which holds no configuration of its own.
func inWorktree(parts []string, i int) bool {
	for start := max(i-2, 0); start <= i; start++ {
		if start+3 < len(parts) && sameName(parts[start], configfiles.Gemini) && sameName(parts[start+1], configfiles.Worktrees) && parts[start+2] != "" {
			return true
		}
	}
	return false
}

// matchName reports whether parts from i on begin with name's
// components, and where they end.
func matchName(parts []string, i int, name string) (end int, ok bool) {
	for _, c := range strings.Split(name, "/") {
		if i >= len(parts) || !sameName(parts[i], c) {
			return 0, false
		}
		i++
	}
	return i, true
}

// endsWithFold reports whether name is something followed by suffix,
// with case folding: every rune boundary is tried, since a folded
// spelling may differ in length (U+017F for s).
func endsWithFold(name, suffix string) bool {
	for i := range name {
		if i > 0 && strings.EqualFold(name[i:], suffix) {
			return true
		}
	}
	return false
}

// byPath is why path is one of s's paths or beneath one, as given or
// with its links resolved.
func (s Set) byPath(path string) string {
	for _, p := range s.paths {
		for _, dir := range []string{p.Path, resolve(p.Path)} {
			if exact, ok := within(path, dir); ok {
				return phrase(p.Path, exact, p.What)
			}
		}
	}
	return ""
}

// byLink is why a protected name in a directory above path, real (its
// links resolved), is a link to it or to a directory holding it.
func byLink(real string) string {
	depth := 0
	ns := configfiles.Names()
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if depth++; depth > MaxDepth {
			return fmt.Sprintf("%s is more than %d directories deep, past where gemini-ls looks for a protected file linking to it", real, MaxDepth)
		}
		for _, n := range ns {
			link := filepath.Join(dir, n.Name)
			if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			target, err := os.Readlink(link)
			if err != nil {
				continue
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			// Resolved as far as it exists: a link to a file not made
			// yet protects the file.
			target = resolve(target)
			if exact, ok := within(real, target); ok {
				return phrase(link+" (a link to "+target+")", exact, n.What)
			}
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// phrase says that part of a path is what it is: the file itself
// (exact) or a directory holding it.
func phrase(part string, exact bool, what string) string {
	if exact {
		return part + " is " + what
	}
	return part + " holds " + what
}

// within reports whether path is dir (exact) or beneath it, comparing
// components with case folding, as Windows reads them (folded); both
// clean and absolute.
func within(path, dir string) (exact, ok bool) {
	p, d := components(path), components(dir)
	if len(p) < len(d) {
		return false, false
	}
	for i := range d {
		if !strings.EqualFold(folded(p[i]), folded(d[i])) {
			return false, false
		}
	}
	return len(p) == len(d), true
}

// components are the names of path's directories and file.
func components(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return r == filepath.Separator })
}

// resolve is path with the links of its longest existing part resolved;
// path when none can be.
func resolve(path string) string {
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
