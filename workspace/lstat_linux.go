package workspace

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lstatEntries lstats the entries of the open directory dir relative to
// it (fstatat): DirEntry.Info would lstat each by its full path, which
// the kernel resolves from the root again for every entry of a deep tree.
func lstatEntries(dir *os.File, entries []fs.DirEntry) ([]fs.FileInfo, []error) {
	infos := make([]fs.FileInfo, len(entries))
	errs := make([]error, len(entries))
	rc, err := dir.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) {
			for i, de := range entries {
				var st unix.Stat_t
				if err := unix.Fstatat(int(fd), de.Name(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					errs[i] = &fs.PathError{Op: "lstat", Path: de.Name(), Err: err}
					continue
				}
				infos[i] = &statInfo{name: de.Name(), size: st.Size, mode: fileMode(st.Mode),
					mod: time.Unix(st.Mtim.Sec, st.Mtim.Nsec)}
			}
		})
	}
	if err != nil { // no descriptor to stat against: one by one by path
		for i, de := range entries {
			infos[i], errs[i] = de.Info()
		}
	}
	return infos, errs
}

// fileMode converts a stat mode as os.Lstat does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

type statInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.size }
func (s *statInfo) Mode() fs.FileMode  { return s.mode }
func (s *statInfo) ModTime() time.Time { return s.mod }
func (s *statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s *statInfo) Sys() any           { return nil }
