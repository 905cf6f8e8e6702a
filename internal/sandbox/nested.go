package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// writableChecked are the writable paths, once those that lie in another
// are checked: a command may replace such a path (a
// tools.sandboxAllowedPaths entry in a root, a root in a root), or a
// directory above it, with a link to ~, ~/.local/bin or any other place
// outside, and the next sandbox's mount would follow the link and make
// that place writable. Each must lead into a writable path that is in
// none other, which no command can move; a path that does not exist yet
// is checked where it would be made (docker makes it).
func (s *Sandbox) writableChecked() ([]string, error) {
	paths := s.writable()
	outers := make([]string, len(paths))
	nested := false
	for i, p := range paths {
		outers[i] = enclosing(paths, p)
		nested = nested || outers[i] != ""
	}
	if !nested {
		return paths, nil // the usual case: nothing to resolve
	}
	var tops []string // where the paths in no other lead
	for i, p := range paths {
		if outers[i] == "" {
			tops = append(tops, resolveExisting(p))
		}
	}
	for i, p := range paths {
		if outers[i] == "" {
			continue
		}
		real := resolveExisting(p)
		if !slices.ContainsFunc(tops, func(top string) bool { return workspace.Within(top, real) }) {
			return nil, fmt.Errorf("the writable path %s lies in %s, where commands write, and now leads to %s, outside the paths the sandbox lets them write (a command may have replaced it with a link); nothing runs in the sandbox until it leads back into them", p, outers[i], real)
		}
	}
	return paths, nil
}

// enclosing is the path of paths that holds p, other than p: "" when
// none does.
func enclosing(paths []string, p string) string {
	for _, q := range paths {
		if q != p && workspace.Within(q, p) {
			return q
		}
	}
	return ""
}

// resolveExisting is p with its symlinks resolved as far as p exists, the
// rest joined on: where p is, or where a mkdir -p of it would make it,
// a dangling link followed (docker makes what it names).
func resolveExisting(p string) string { return resolveWithin(p, 40) }

func resolveWithin(p string, hops int) string {
	var rest []string
	for dir := filepath.Clean(p); ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		switch {
		case err == nil:
			return filepath.Join(append([]string{real}, rest...)...)
		case !os.IsNotExist(err) || filepath.Dir(dir) == dir || hops == 0:
			return filepath.Clean(p) // unresolvable: nothing is mounted through it
		}
		if info, err := os.Lstat(dir); err == nil && info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(dir)
			if err != nil {
				return filepath.Clean(p)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(dir), target)
			}
			return resolveWithin(filepath.Join(append([]string{target}, rest...)...), hops-1)
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}
