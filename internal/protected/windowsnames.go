package protected

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Windows names one file by several spellings that a comparison of
// names misses: trailing dots and spaces of a component are dropped
// (.git. is .git), a colon starts an NTFS stream of the file (.env::$DATA
// is .env's content), and a file may have a short (8.3) name besides its
// own (VSCODE~1 for .vscode).
//
// The first two are folded on every system, not only on Windows: a
// directory a Windows server shares (SMB) is read and written by Linux
// and macOS clients through the server, which folds them, and folding
// where the file system would not costs one question about a file whose
// name is unusual anyway.

// folded is name as Windows reads a path component: without an NTFS
// stream after a colon, without trailing dots and spaces. "." and ".."
// are left as they are.
func folded(name string) string {
	if name == "." || name == ".." {
		return name
	}
	if i := strings.IndexByte(name, ':'); i > 0 {
		name = name[:i]
	}
	return strings.TrimRight(name, ". ")
}

// sameName reports whether component is name, as a case-insensitive
// Windows file system reads the component.
func sameName(component, name string) bool {
	return strings.EqualFold(folded(component), name)
}

// looksShort reports whether name (folded) has the shape of a short
// (8.3) name that Windows made for a longer one: a base of at most 8
// characters ending in a tilde and digits, and an extension of at most
// 3. A short name is all Windows may need to name a protected file
// (GEMINI~1 for .gemini), so one the file system did not resolve may be
// any of them.
func looksShort(name string) bool {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		base, ext = name[:i], name[i+1:]
	}
	tilde := strings.LastIndexByte(base, '~')
	if tilde < 1 || tilde == len(base)-1 || len(base) > 8 || len(ext) > 3 {
		return false
	}
	for _, r := range base[tilde+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// byShortName is why a component of path past its first known ones,
// which the file system resolved to long names (longPath), looks like a
// short name: it may name any protected file.
func byShortName(path string, known int) string {
	parts := strings.Split(path, string(filepath.Separator))
	for i := known; i < len(parts); i++ {
		if looksShort(folded(parts[i])) {
			return fmt.Sprintf("%s may be the short (8.3) name of a protected file (such as .gemini, .git or .vscode), and gemini-ls could not ask the file system which file it names",
				strings.Join(parts[:i+1], string(filepath.Separator)))
		}
	}
	return ""
}
