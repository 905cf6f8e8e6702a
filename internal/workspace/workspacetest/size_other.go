//go:build !windows

package workspacetest

const (
	// ManyFiles is how many files BigTree's directory holds.
	ManyFiles = 100_000
	// MatchPattern matches ten files of BigTree's directory, relative to
	// its root: many/f099990.txt … many/f099999.txt.
	MatchPattern = "many/f09999*.txt"
	matchPrefix  = "f09999"
)
