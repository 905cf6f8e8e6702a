//go:build !linux

package workspace

import "os"

// statEntries lstats the entries at the indexes wanted one by one.
func statEntries(_ *os.File, entries []diskEntry, wanted []int) {
	statEntriesByPath(entries, wanted)
}
