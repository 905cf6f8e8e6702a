package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// usualBinDirs are where a program is looked for besides the command's
// PATH: a command can name it there, or set its own PATH.
var usualBinDirs = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"}

// execLocks are, under bubblewrap, the mounts that keep the programs the
// policy denies outright (Config.DeniedPrograms) from starting, for a
// command whose environment is env: the empty /dev/null bound read-only
// over each file such a program is, so that its exec fails (EACCES,
// "Permission denied": a character device is not a program) and a read
// of it, to copy it or to hand it to the dynamic loader, yields nothing.
// A program is every file its name is found at on env's PATH and in
// usualBinDirs, links followed, and the other names of that file (its
// hard links) in those directories; a name holding a slash is that file.
// The files every command runs in (sh, bash) are never locked: nothing
// could run. It also returns the programs locked, by the names the rules
// give them.
func (s *Sandbox) execLocks(env []string) ([]mount, []string) {
	if s.cfg.Command != Bubblewrap || s.cfg.DeniedPrograms == nil {
		return nil, nil
	}
	denied := s.cfg.DeniedPrograms()
	if len(denied) == 0 {
		return nil, nil
	}
	dirs := searchDirs(env)
	var shells []os.FileInfo
	for _, shell := range []string{"sh", "bash"} {
		for _, p := range programFiles(shell, dirs) {
			if fi, err := os.Stat(p); err == nil {
				shells = append(shells, fi)
			}
		}
	}
	var mounts []mount
	var names []string
	for _, name := range denied {
		locked := false
		for _, p := range withHardLinks(programFiles(name, dirs), dirs) {
			fi, err := os.Stat(p)
			if err != nil || slices.ContainsFunc(shells, func(sh os.FileInfo) bool { return os.SameFile(sh, fi) }) {
				continue
			}
			locked = true
			if !slices.ContainsFunc(mounts, func(m mount) bool { return m.dest == p }) {
				mounts = append(mounts, mount{[]string{"--ro-bind", os.DevNull, p}, p})
			}
		}
		if locked {
			names = append(names, name)
		}
	}
	return mounts, names
}

// searchDirs are the directories a program's name is looked for in: the
// absolute entries of env's PATH (execvp's default without one), then
// usualBinDirs, each at its real path, once.
func searchDirs(env []string) []string {
	path := "/bin:/usr/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one counts, as in os/exec
		}
	}
	var out []string
	for _, dir := range append(filepath.SplitList(path), usualBinDirs...) {
		if !filepath.IsAbs(dir) {
			continue // a relative entry is the working directory's, which changes
		}
		real, err := filepath.EvalSymlinks(dir)
		if err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// programFiles are the regular files, at their real paths, that name
// runs as when found in dirs (a name with a slash: that path alone).
func programFiles(name string, dirs []string) []string {
	candidates := []string{name}
	if !strings.Contains(name, "/") {
		candidates = candidates[:0]
		for _, dir := range dirs {
			candidates = append(candidates, filepath.Join(dir, name))
		}
	}
	var out []string
	for _, c := range candidates {
		if !filepath.IsAbs(c) {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// withHardLinks is files with the other names, in dirs, of those of
// them that have more than one: the same program by another name. Only
// a file with several links costs a read of the directories.
func withHardLinks(files, dirs []string) []string {
	out := slices.Clone(files)
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink < 2 {
			continue
		}
		for _, dir := range dirs {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.Type().IsRegular() {
					continue
				}
				info, err := e.Info()
				p := filepath.Join(dir, e.Name())
				if err == nil && os.SameFile(fi, info) && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
