package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// The persistent sandbox's protocol (session_linux.go, supervisor_linux.go):
// frames of a 4-byte big-endian length and a JSON message, gemini-ls to
// the supervisor and back on two pipes: under bwrap the supervisor's
// descriptors framesInFD and framesOutFD, which bwrap's pid 1 does not
// keep (its stdio it does, and a command could open them through
// /proc/1/fd), in a container its stdin and stdout, which docker run -i
// forwards. Pipes, not a Unix socket: the seccomp filter refuses
// AF_UNIX inside, and nothing needs a descriptor passed, since the
// supervisor makes each command's pipes itself and sends their bytes back
// in frames.

// framesInFD and framesOutFD are, under bwrap, the supervisor's
// descriptors of the frames to it and from it (after its executable, 3,
// and the seccomp filter, 4).
const (
	framesInFD  = 5
	framesOutFD = 6
)

// SupervisorArg, as a program's first argument, makes it the persistent
// sandbox's supervisor (Supervise): gemini-ls
// answers it with a hidden subcommand, tests with their TestMain.
const SupervisorArg = "__sandbox-supervisor"

// maxFrame bounds a frame, so that a broken peer cannot make the other
// allocate without limit.
const maxFrame = 16 << 20

// Message kinds.
const (
	opRun     = "run"     // to the supervisor: start a command
	opKill    = "kill"    // to the supervisor: kill a command's process group
	opStarted = "started" // from it: the command runs, as Pid
	opOut     = "out"     // from it: Data written on Stream (1 stdout, 2 stderr)
	opExit    = "exit"    // from it: the command ended, its group killed
)

// message is one frame's content; which fields count depends on Op.
type message struct {
	Op   string   `json:"op"`
	ID   uint64   `json:"id"`
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Combined gives the command one pipe for stdout and stderr, whose
	// output comes as stream 1, in the order written.
	Combined bool `json:"combined,omitempty"`

	Pid    int    `json:"pid,omitempty"`
	Stream int    `json:"stream,omitempty"`
	Data   []byte `json:"data,omitempty"`
	// Code is the exit code, -1 when Signal (its name) ended the command;
	// Err says why it could not start or was not waited for.
	Code   int    `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	Err    string `json:"err,omitempty"`
}

func writeFrame(w io.Writer, m message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding a %s frame: %w", m.Op, err)
	}
	if len(body) > maxFrame {
		return fmt.Errorf("a %s frame of %d bytes is over the limit", m.Op, len(body))
	}
	frame := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	if _, err := w.Write(append(frame, body...)); err != nil {
		return fmt.Errorf("writing a %s frame: %w", m.Op, err)
	}
	return nil
}

func readFrame(r io.Reader) (message, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return message{}, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return message{}, fmt.Errorf("reading a frame: %d bytes is over the limit", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return message{}, fmt.Errorf("reading a frame of %d bytes: %w", n, err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("decoding a frame: %w", err)
	}
	return m, nil
}
