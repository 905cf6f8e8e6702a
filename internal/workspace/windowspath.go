package workspace

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// hostOS is the system the rules below are applied for.
const hostOS = runtime.GOOS

// The rules of Windows paths the workspace applies, written out rather
// than left to path/filepath so that they can be tested on any system:
// each function takes goos, and the callers pass runtime.GOOS.

// within reports whether path is root or below it; both absolute and
// cleaned. On Windows names are compared without regard to case, as its
// file systems compare them (C:\Repo and c:\repo are one directory). An
// empty root, which no absolute path is, holds nothing.
func within(root, path string) bool { return withinOn(hostOS, root, path) }

func withinOn(goos, root, path string) bool {
	if root == "" || len(path) < len(root) || !sameNameOn(goos, root, path[:len(root)]) {
		return false
	}
	if len(path) == len(root) {
		return true
	}
	sep := separatorOn(goos)
	return root[len(root)-1] == sep || path[len(root)] == sep
}

// samePath reports whether the absolute, cleaned paths a and b are the
// same path, as within compares them.
func samePath(a, b string) bool { return len(a) == len(b) && within(a, b) }

// sameNameOn reports whether a and b are the same name on goos. Windows
// compares names by Unicode simple case folding; a name whose cases
// differ in length in UTF-8 (rare: the Kelvin sign) is taken as different,
// which refuses a path rather than letting one out.
func sameNameOn(goos, a, b string) bool {
	if goos == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func separatorOn(goos string) byte {
	if goos == "windows" {
		return '\\'
	}
	return '/'
}

// anchorWindowsPath makes path, given on Windows, one filepath.IsAbs
// and filepath.Join read as it was meant, root being the first root
// (absolute); or says why it cannot be used:
//
//   - \dir\file, rooted but on no drive, is on root's drive (C:\dir\file),
//     as Node's path.resolve and cmd.exe have it; filepath.Join would put
//     it under root instead.
//   - C:file is relative to the current directory of drive C:, which a
//     server has no meaningful one of: refused, saying to give the full
//     path.
//   - \\?\C:\dir and \\?\UNC\server\share\dir, the extended-length
//     forms, are C:\dir and \\server\share\dir, as 0.61's
//     stripExtendedLengthPrefix has them.
//   - \\.\ device paths (\\.\pipe\x, \\.\PhysicalDrive0) are refused:
//     they name no file.
//
// Anything else is returned as given.
func anchorWindowsPath(path, root string) (string, error) {
	switch {
	case hasPrefixFold(path, `\\?\UNC\`) || hasPrefixFold(path, `//?/UNC/`):
		path = `\\` + path[len(`\\?\UNC\`):]
	case strings.HasPrefix(path, `\\?\`) || strings.HasPrefix(path, `//?/`):
		path = path[len(`\\?\`):]
	case strings.HasPrefix(path, `\\.\`) || strings.HasPrefix(path, `//./`):
		return "", errors.New("it is a Windows device path, which names no file; give the file's path, such as C:\\dir\\file")
	}
	switch {
	case isDriveRelative(path):
		drive := path[:2]
		return "", fmt.Errorf("it is relative to the current directory of drive %s, which gemini-ls does not use; give the full path (%s\\…) or one relative to the workspace root %s", drive, drive, root)
	case isSlash(path, 0) && !isSlash(path, 1):
		return windowsVolume(root) + path, nil
	}
	return path, nil
}

// checkShare refuses a path on a network share (\\server\share\dir)
// that none of dirs (the roots and allowed directories) is on, before
// anything looks at it: looking would have Windows connect to the server,
// and offer it the user's credentials, for a path that would then be
// refused as outside the roots anyway.
func checkShare(path string, dirs []string) error {
	if !isUNC(path) {
		return nil
	}
	share := windowsVolume(path)
	for _, dir := range dirs {
		if strings.EqualFold(windowsVolume(dir), share) {
			return nil
		}
	}
	return fmt.Errorf("it is on the network share %s, which no workspace directory is on; gemini-ls does not reach out to other machines' shares", share)
}

// windowsVolume is the drive (C:) or share (\\server\share) p starts
// with, "" for none.
func windowsVolume(p string) string {
	if hasDrive(p) {
		return p[:2]
	}
	if !isUNC(p) {
		return ""
	}
	rest := p[2:]
	server := strings.IndexAny(rest, `\/`)
	if server < 0 {
		return p
	}
	share := strings.IndexAny(rest[server+1:], `\/`)
	if share < 0 {
		return p
	}
	return p[:2+server+1+share]
}

// isUNC reports whether p names a network share: \\server\share….
func isUNC(p string) bool {
	return isSlash(p, 0) && isSlash(p, 1) && len(p) > 2 && !isSlash(p, 2)
}

// isDriveRelative reports whether p is on a drive but not rooted: C:file,
// C:.
func isDriveRelative(p string) bool { return hasDrive(p) && !isSlash(p, 2) }

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// HasDrive reports whether p begins with a Windows drive, C:, on any
// system (a container's view of a Windows host's paths is read anywhere).
func HasDrive(p string) bool { return hasDrive(p) }

// isSlash reports whether p[i] is a Windows separator, either slash.
func isSlash(p string, i int) bool { return i < len(p) && (p[i] == '\\' || p[i] == '/') }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
