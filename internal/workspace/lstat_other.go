//go:build !unix

package workspace

import "os"

// statEntries takes no stat where the directory cannot be stat-ed
// relative to its descriptor: a stat by path could be led out of the
// roots by a directory swapped for a symbolic link, so Info stats each
// entry beneath its root when asked.
func statEntries(*os.File, []diskEntry, []int) {}
