package sandboxtrail

import (
	"io/fs"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// changeTime is the file's ChangeTime (FILE_BASIC_INFO), which os.Stat
// does not give, the link itself for a link; its modification time when
// it cannot be read.
func changeTime(path string, info fs.FileInfo) time.Time {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return info.ModTime()
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return info.ModTime()
	}
	defer windows.CloseHandle(h)
	var basic fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))); err != nil {
		return info.ModTime()
	}
	ft := windows.Filetime{LowDateTime: uint32(basic.ChangeTime), HighDateTime: uint32(basic.ChangeTime >> 32)}
	return time.Unix(0, ft.Nanoseconds())
}

// fileBasicInfo is FILE_BASIC_INFO, which golang.org/x/sys/windows does
// not declare: four FILETIMEs as 100 ns counts, and the attributes.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}
