//go:build !unix

package setup

import "io/fs"

// ownedByRoot: where there is no root, the directory's place
// (C:\ProgramData) is what guards it.
func ownedByRoot(fs.FileInfo) bool { return true }
