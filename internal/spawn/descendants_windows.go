package spawn

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Held are processes a command started, held open: a held process's
// id is not given to another.
type Held []windows.Handle

// HoldDescendants holds the processes c's process started, and those
// they started, while it still runs, for Kill to end once c is closed:
// Windows records each process's parent by id, so once c is gone what it
// started cannot be told from strangers. A process older than its supposed parent is a stranger
// that names an id the parent took over, and left alone.
func (cmd *Cmd) HoldDescendants() Held {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	root, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(cmd.Process.Pid))
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(root)
	// Not yet waited for, cmd.Process still holds the command's handle, as
	// it did when root was opened: root is the command, not a process that
	// took its id over. Signal 0 is no signal; it only tells that.
	if errors.Is(cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone) {
		return nil
	}
	const stillActive = 259 // STILL_ACTIVE, the exit code of a running process
	var code uint32
	if windows.GetExitCodeProcess(root, &code) != nil || code != stillActive {
		return nil // what it started is no longer told from strangers
	}
	children, err := childrenByParent()
	if err != nil {
		return nil
	}
	var held Held
	var hold func(pid uint32, h windows.Handle)
	hold = func(pid uint32, h windows.Handle) {
		born := created(h)
		for _, child := range children[pid] {
			ch, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, child)
			if err != nil {
				continue
			}
			if created(ch) < born {
				windows.CloseHandle(ch)
				continue
			}
			held = append(held, ch)
			hold(child, ch)
		}
	}
	hold(uint32(cmd.Process.Pid), root)
	return held
}

// Kill ends the held processes still running and lets go of them.
func (d Held) Kill() {
	for _, h := range d {
		_ = windows.TerminateProcess(h, 1)
		windows.CloseHandle(h)
	}
}

// childrenByParent is every running process's id, by its parent's.
func childrenByParent() (map[uint32][]uint32, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	entry := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &entry); err == nil; err = windows.Process32Next(snap, &entry) {
		if entry.ProcessID != entry.ParentProcessID {
			children[entry.ParentProcessID] = append(children[entry.ParentProcessID], entry.ProcessID)
		}
	}
	return children, nil
}

// created is when the process h started, in 100 ns since 1601; 0 when
// unknown.
func created(h windows.Handle) int64 {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	return int64(creation.HighDateTime)<<32 | int64(creation.LowDateTime)
}
