package workspacetest

// Fewer files than elsewhere: Wine, which runs the Windows tests
// (scripts/test-windows.sh), looks through a directory's every name to
// create a file in it, so 100,000 files take it most of an hour. 22,000
// are still more than twice OldCap, enough for the matches to be listed
// past the first OldCap entries, which is what the tests need.
const (
	// ManyFiles is how many files BigTree's directory holds.
	ManyFiles = 22_000
	// MatchPattern matches ten files of BigTree's directory, relative to
	// its root: many/f021990.txt … many/f021999.txt.
	MatchPattern = "many/f02199*.txt"
	matchPrefix  = "f02199"
)
