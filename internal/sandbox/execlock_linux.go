package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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
// usualBinDirs, each once.
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
		if dir = filepath.Clean(dir); !slices.Contains(out, dir) {
			out = append(out, dir)
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
		// Most names are in none of the directories: one lstat each.
		if _, err := os.Lstat(c); err != nil || !filepath.IsAbs(c) {
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
// a file with several links costs a read of the directories, whose
// entries are matched by the inode number the directory gives, then
// checked by a stat.
func withHardLinks(files, dirs []string) []string {
	out := slices.Clone(files)
	var scanned []string
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Nlink < 2 {
			continue
		}
		// The directories' inode numbers are stat's on the file systems
		// programs live on (ext4, xfs, btrfs, tmpfs); where they are not
		// (an overlay's merged directory), the file's own entry, in the
		// directory read first, does not match, and every name is checked.
		faithful := true
		scanned = scanned[:0]
		for i, dir := range append([]string{filepath.Dir(f)}, dirs...) {
			// At its real path, as every mount's destination is (bwrapArgs).
			real, err := filepath.EvalSymlinks(dir)
			if err != nil || slices.Contains(scanned, real) {
				continue
			}
			scanned = append(scanned, real)
			names, all := namesOfInode(real, st.Ino)
			if i == 0 {
				faithful = slices.Contains(names, filepath.Base(f))
			}
			if !faithful {
				names = all
			}
			for _, name := range names {
				p := filepath.Join(real, name)
				if info, err := os.Lstat(p); err == nil && os.SameFile(fi, info) && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// namesOfInode are the names of the regular files in dir whose entries
// give the inode number ino (getdents' d_ino), and all of them.
func namesOfInode(dir string, ino uint64) (matching, all []string) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	defer unix.Close(fd)
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			break
		}
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.
			entIno := binary.NativeEndian.Uint64(buf[off:])
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen == 0 || off+reclen > n {
				break
			}
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if buf[off-reclen+18] != unix.DT_REG {
				continue
			}
			all = append(all, string(name))
			if entIno == ino {
				matching = append(matching, string(name))
			}
		}
	}
	return matching, all
}
