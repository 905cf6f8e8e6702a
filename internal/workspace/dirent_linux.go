package workspace

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// direntBuffer is how much of a directory one getdents64 call returns.
const direntBuffer = 16 << 10

// direntReader reads a directory's names and types straight from
// getdents64 into a buffer it reuses: os.File.ReadDir makes an object per
// entry, which a walk of a big tree spends a tenth of its time making and
// collecting.
type direntReader struct {
	pool     *sync.Pool // of *[]byte; where buf goes back
	buf      *[]byte
	off, end int // buf[off:end] is read but not parsed yet
}

// dirNames is the Workspace's pool of getdents buffers.
type dirNames struct{ buffers sync.Pool }

func (d *dirNames) reader() *direntReader {
	return &direntReader{pool: &d.buffers}
}

// direntName is one name read from a directory, typed from the listing.
type direntName struct {
	name string
	typ  fs.FileMode
}

// read returns up to n of f's entries, typed from the listing (an entry
// the file system does not type is lstat-ed, as os.ReadDir does), and
// whether the directory has no more.
func (d *direntReader) read(f *os.File, n int) (entries []direntName, eof bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false, err
	}
	for len(entries) < n {
		if d.off >= d.end {
			if d.buf == nil {
				if b, ok := d.pool.Get().(*[]byte); ok {
					d.buf = b
				} else {
					b := make([]byte, direntBuffer)
					d.buf = &b
				}
			}
			var got int
			var rerr error
			if err := rc.Control(func(fd uintptr) {
				rerr = retryEINTR(func() (err error) {
					got, err = unix.Getdents(int(fd), *d.buf)
					return err
				})
			}); err != nil {
				return entries, false, err
			}
			if rerr != nil {
				return entries, false, rerr
			}
			if got <= 0 {
				return entries, true, nil
			}
			d.off, d.end = 0, got
		}
		rec := (*d.buf)[d.off:d.end]
		const nameOffset = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
		if len(rec) < nameOffset {
			d.off = d.end
			continue
		}
		reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
		if reclen < nameOffset || reclen > len(rec) {
			d.off = d.end // a record the kernel cannot have written
			continue
		}
		d.off += reclen
		ino := binary.NativeEndian.Uint64(rec[0:8])
		name := rec[nameOffset:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := direntName{name: string(name)}
		var typed bool
		if e.typ, typed = direntType(rec[18]); !typed {
			var st unix.Stat_t
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = unix.Fstatat(int(fd), e.name, &st, unix.AT_SYMLINK_NOFOLLOW)
			}); err != nil || serr != nil {
				continue // gone since it was listed
			}
			e.typ = fileMode(st.Mode)
		}
		entries = append(entries, e)
	}
	return entries, false, nil
}

// release gives the buffer back; the reader is not used again.
func (d *direntReader) release() {
	if d.buf != nil {
		d.pool.Put(d.buf)
		d.buf = nil
	}
}

// direntType is the mode type of a getdents d_type, false for DT_UNKNOWN.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}
