//go:build !unix

package setup

import "io/fs"

// ownedByRoot: where there is no root, the directory's place
// (C:\ProgramData) is what guards it.
func ownedByRoot(fs.FileInfo) bool { return true }

// writableByOthers: Windows keeps no Unix mode (Go reports 0o777 for
// every directory not read-only, which would refuse them all); its ACLs,
// and C:\ProgramData's, say who may write.
func writableByOthers(fs.FileInfo) bool { return false }
