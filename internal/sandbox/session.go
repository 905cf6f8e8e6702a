package sandbox

import "io"

// Command is what Session.Run runs: Args in Dir ("": the current
// directory) with Env (nil: the process's), without what may hold a
// secret, its output to Stdout and Stderr (nil: dropped), stdin empty.
// As with exec.Cmd, when Stdout and Stderr are the same writer the
// command gets one pipe for both, so their order is kept.
//
// Path, when set, is Args[0] as found on this machine (exec.Cmd.Path):
// what runs under bubblewrap, whose files are the host's, as Confine runs
// it. In a container Args[0] is found on the command's PATH inside.
type Command struct {
	Args           []string
	Path           string
	Dir            string
	Env            []string
	Stdout, Stderr io.Writer
}

// Exit is how a command ended: Code, or -1 and Signal's name; Pid is its
// process group inside the sandbox.
type Exit struct {
	Pid    int
	Code   int
	Signal string
}
