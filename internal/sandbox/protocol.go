package sandbox

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/json"
	"errors"
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
//
// Every frame is sealed (AES-256-GCM) with a key gemini-ls makes for each
// sandbox and writes on the pipe to the supervisor first, keySize bytes,
// while nothing but the supervisor runs inside to read it. In a container
// the runtime's init keeps the container's stdin and stdout, and a
// command, the same user, may open them through /proc/1/fd: a frame it
// writes there fails to open, which ends the sandbox, and one it reads
// tells it nothing. Each direction numbers its frames (the nonce), so
// that none can be replayed, dropped or reordered unseen.

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

// keySize is the frames' key's: AES-256's.
const keySize = 32

// The directions, the first byte of a frame's nonce: the two share the
// key, never a nonce.
const (
	toSupervisor   byte = 'i'
	fromSupervisor byte = 'o'
)

// errForged is a frame that does not open with the key: another process
// wrote to the pipe, or a frame was dropped or replayed.
var errForged = errors.New("a frame on the sandbox's channel was not sealed by its other end: a process in the sandbox wrote to it")

// sealer seals, or opens, the frames of one direction, in order.
type sealer struct {
	aead cipher.AEAD
	dir  byte
	seq  uint64 // the next frame's number
}

func newSealer(key []byte, dir byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's channel key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's channel key: %w", err)
	}
	return &sealer{aead: aead, dir: dir}, nil
}

// nonce is the next frame's, and counts it.
func (s *sealer) nonce() []byte {
	n := make([]byte, s.aead.NonceSize())
	n[0] = s.dir
	binary.BigEndian.PutUint64(n[len(n)-8:], s.seq)
	s.seq++
	return n
}

// writeFrame writes m sealed by s; one writer at a time.
func writeFrame(w io.Writer, s *sealer, m message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding a %s frame: %w", m.Op, err)
	}
	if len(body) > maxFrame {
		return fmt.Errorf("a %s frame of %d bytes is over the limit", m.Op, len(body))
	}
	if err := writeSealed(w, s, body); err != nil {
		return fmt.Errorf("writing a %s frame: %w", m.Op, err)
	}
	return nil
}

// writeSealed writes body, at most maxFrame bytes, as one frame sealed
// by s.
func writeSealed(w io.Writer, s *sealer, body []byte) error {
	frame := make([]byte, 4, 4+len(body)+s.aead.Overhead())
	frame = s.aead.Seal(frame, s.nonce(), body, nil)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	_, err := w.Write(frame)
	return err
}

// readFrame reads the next frame and opens it with s: errForged when it
// does not open.
func readFrame(r io.Reader, s *sealer) (message, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return message{}, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame+uint32(s.aead.Overhead()) {
		return message{}, fmt.Errorf("reading a frame: %d bytes is over the limit", n)
	}
	sealed := make([]byte, n)
	if _, err := io.ReadFull(r, sealed); err != nil {
		return message{}, fmt.Errorf("reading a frame of %d bytes: %w", n, err)
	}
	body, err := s.aead.Open(sealed[:0], s.nonce(), sealed, nil)
	if err != nil {
		return message{}, errForged
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return message{}, fmt.Errorf("decoding a frame: %w", err)
	}
	return m, nil
}

// readKey reads the frames' key, which comes first.
func readKey(r io.Reader) ([]byte, error) {
	key := make([]byte, keySize)
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, fmt.Errorf("reading the sandbox's channel key: %w", err)
	}
	return key, nil
}
