package sandbox

import (
	"bytes"
	"errors"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirWatch is told by the kernel (inotify) of each entry made or moved
// into the directories it watches, so that gitWatch reads again only
// what changed instead of walking every writable path at each command.
type dirWatch struct {
	fd int
	// wake is a pipe whose write end, written, ends wait.
	wake  [2]int
	paths map[int32]string // watch descriptor → the directory's path
	buf   []byte
	// short: a directory could not be watched for want of watches (the
	// user's limit, which editors' file watchers share): what the kernel
	// tells is not all from then on.
	short bool
}

// newDirWatch is a watch of no directory yet, or nil when the kernel
// gives none (gitWatch then walks everything at each check).
func newDirWatch() *dirWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	d := &dirWatch{fd: fd, paths: map[int32]string{}, buf: make([]byte, 64<<10)}
	if err := unix.Pipe2(d.wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(fd)
		return nil
	}
	return d
}

// dirMask is what a watch of a directory is told of: the entries made or
// moved into it.
const dirMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// add watches dir (not following a symlink); false when it cannot (the
// user's limit of watches reached, or dir gone).
func (d *dirWatch) add(dir string) bool {
	if d == nil {
		return false
	}
	return d.addMask(dir, dirMask)
}

// addWrites watches dir for the files written in it too, which wake wait
// and are no entries made; false as add.
func (d *dirWatch) addWrites(dir string) bool {
	if d == nil {
		return false
	}
	return d.addMask(dir, dirMask|unix.IN_CLOSE_WRITE)
}

// shortOf says dir, which the watch should tell of, cannot be watched:
// what the kernel tells is not all from then on.
func (d *dirWatch) shortOf(string) {
	if d != nil {
		d.short = true
	}
}

// addMask watches dir for mask's events, and those it was watched for:
// a directory walked again keeps its watch of files written.
func (d *dirWatch) addMask(dir string, mask uint32) bool {
	wd, err := unix.InotifyAddWatch(d.fd, dir, mask|unix.IN_MASK_ADD)
	if err != nil {
		d.short = d.short || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.ENOMEM)
		return false
	}
	d.paths[int32(wd)] = dir // a directory moved and watched again: its path now
	return true
}

// made drains what the kernel told since: the paths of the entries made
// or moved in, each with whether it is a directory; lost when the kernel
// dropped some (its queue overflowed) or could not be read, or a
// directory could not be watched, or there is no watch: then what it
// says is not all.
func (d *dirWatch) made() (entries []madeEntry, lost bool) {
	if d == nil {
		return nil, true
	}
	lost = d.short
	for {
		n, err := unix.Read(d.fd, d.buf)
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return entries, lost
		}
		if err != nil {
			return entries, true
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&d.buf[off]))
			name := d.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				lost = true
			case ev.Mask&unix.IN_IGNORED != 0:
				delete(d.paths, ev.Wd)
			case ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
				dir, ok := d.paths[ev.Wd]
				if !ok {
					continue
				}
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i] // padded with NULs
				}
				entries = append(entries, madeEntry{path: filepath.Join(dir, string(name)), dir: ev.Mask&unix.IN_ISDIR != 0})
			}
		}
	}
}

func (d *dirWatch) watched() int {
	if d == nil {
		return 0
	}
	return len(d.paths)
}

// wait blocks until the kernel has something to tell (true), or stop
// was called (false).
func (d *dirWatch) wait() bool {
	if d == nil {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(d.fd), Events: unix.POLLIN}, {Fd: int32(d.wake[0]), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil || fds[1].Revents != 0:
			return false
		case fds[0].Revents != 0:
			return true
		}
	}
}

// stop ends wait, now and for good.
func (d *dirWatch) stop() {
	if d != nil {
		unix.Write(d.wake[1], []byte{0})
	}
}

// close closes the watch; nothing may wait on it.
func (d *dirWatch) close() {
	if d != nil {
		unix.Close(d.fd)
		unix.Close(d.wake[0])
		unix.Close(d.wake[1])
	}
}
