package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Session is a persistent sandbox: one bwrap, or one docker or podman
// container, started on the first command, whose supervisor runs every
// command of the session (doc.go, "A sandbox paid once per session").
type Session struct {
	sb *Sandbox
	// supervisor is the program that answers SupervisorArg and its
	// arguments: gemini-ls itself, or a test binary.
	supervisor []string

	mu  sync.Mutex
	box *box
}

// persistentSandboxes: on Linux every backend can keep a sandbox per
// session, since gemini-ls, static, runs as the supervisor in a container
// of the host's architecture too (a cgo build does not: New).
const persistentSandboxes = true

// NewSession is a persistent sandbox of sb's policy whose supervisor is
// the program supervisor names with its arguments (in a container,
// mounted read-only at supervisorInContainer).
func (s *Sandbox) NewSession(supervisor ...string) (*Session, error) {
	if s == nil {
		return nil, errors.New("a persistent sandbox needs a sandbox")
	}
	if len(supervisor) == 0 {
		return nil, errors.New("a persistent sandbox needs its supervisor")
	}
	return &Session{sb: s, supervisor: supervisor}, nil
}

// Note is what the model is told after a command that ran in the
// session's sandbox failed: Sandbox.Note, for the session.
func (se *Session) Note() string { return se.sb.note(true) }

// Run runs c in the session's sandbox until it ends, or until ctx does,
// which kills its process group. The sandbox is started, or restarted
// when it died or when the policy it was started with differs from the
// one Confine would build now (roots, settings, a governing file since).
func (se *Session) Run(ctx context.Context, c Command) (Exit, error) {
	if len(c.Args) == 0 {
		return Exit{}, errors.New("running nothing in the sandbox")
	}
	dir := c.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Exit{}, fmt.Errorf("sandboxing %s: %w", c.Args[0], err)
		}
		dir = wd
	}
	se.sb.startFiles.check()
	se.sb.gitWatch.check()
	if err := se.sb.openWindow(); err != nil {
		return Exit{}, fmt.Errorf("sandboxing %s: %w", c.Args[0], err)
	}
	env := se.sb.environ(c.Env)
	argv := c.Args
	if c.Path != "" && !se.inContainer() {
		argv = append([]string{c.Path}, c.Args[1:]...)
	}
	m := message{Op: opRun, Argv: argv, Env: se.commandEnv(env), Dir: dir, Combined: sameWriter(c.Stdout, c.Stderr)}
	b, err := se.boxFor(env)
	if err != nil {
		return Exit{}, fmt.Errorf("sandboxing %s: %w", c.Args[0], err)
	}
	exit, err := b.run(ctx, m, c.Stdout, c.Stderr)
	if errors.Is(err, errNotDelivered) {
		// The sandbox had died unnoticed: the command never reached it,
		// so it runs once in a new one.
		se.discard(b)
		if b, err = se.boxFor(env); err != nil {
			return Exit{}, fmt.Errorf("sandboxing %s: %w", c.Args[0], err)
		}
		exit, err = b.run(ctx, m, c.Stdout, c.Stderr)
	}
	return exit, err
}

// Close retires the sandbox: it runs no new command, and ends, with its
// supervisor, once the commands running in it ended (a Run after Close
// starts a new one). When none runs, Close returns once it ended, or
// after closeWait.
func (se *Session) Close() error {
	se.mu.Lock()
	b := se.box
	se.box = nil
	se.mu.Unlock()
	if b != nil && b.retire() {
		// Idle: it ends now. Waiting for it (a container's runtime
		// removes the container once it ended) leaves nothing of the
		// session running after gemini-ls, or after session/close; one
		// not ended within closeWait is killed (finish).
		select {
		case <-b.done:
		case <-time.After(closeWait + killWait):
		}
	}
	return nil
}

// closeWait bounds the wait for a retired, idle sandbox's end before it
// is killed, and killWait the wait for its end once killed.
const (
	closeWait = 5 * time.Second
	killWait  = 5 * time.Second
)

// sameWriter says whether stdout and stderr are one writer, as exec.Cmd
// tells (a writer that cannot be compared is not the same).
func sameWriter(stdout, stderr io.Writer) (same bool) {
	if stdout == nil {
		return false
	}
	defer func() { _ = recover() }()
	return stdout == stderr
}

// discard drops b, which could not be written to, from the session.
func (se *Session) discard(b *box) {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.box == b {
		se.box = nil
	}
	b.retire()
}

// inContainer says whether the session's sandbox is a container.
func (se *Session) inContainer() bool { return se.sb.cfg.Command != Bubblewrap }

// supervisorInContainer is where the supervisor's executable is mounted
// in a container: a path of its own, which no image is expected to hold.
const supervisorInContainer = "/gemini-ls-sandbox-supervisor"

// policy is what a sandbox is fixed to at its start, computed as Confine
// computes it (the governing files made if missing): bwrap's arguments
// but the command's, or docker's (or podman's) with the supervisor as the
// container's command, which is given the environment it adds alone.
func (se *Session) policy(env []string) ([]string, error) {
	if !se.inContainer() {
		return se.sb.bwrapArgs("/", env, nil)
	}
	self := []string{se.supervisor[0] + ":" + supervisorInContainer + ":ro"}
	inner := slices.Concat([]string{supervisorInContainer}, se.supervisor[1:], []string{containerArg})
	return se.sb.containerArgs("/", nil, self, inner)
}

// commandEnv is the environment sent with a command: under bwrap the
// whole of env, in a container only what the caller added to gemini-ls's
// own, as a container per command gets (--env).
func (se *Session) commandEnv(env []string) []string {
	if se.inContainer() {
		return addedEnv(env)
	}
	return env
}

// boxFor is a running sandbox of the policy of now, started if needed;
// one of another policy is retired (it ends with its last command).
func (se *Session) boxFor(env []string) (*box, error) {
	args, err := se.policy(env)
	if err != nil {
		return nil, err
	}
	key := strings.Join(args, "\x00")
	se.mu.Lock()
	defer se.mu.Unlock()
	if b := se.box; b != nil && b.key == key && !b.ended() {
		return b, nil
	}
	if se.box != nil {
		se.box.retire()
		se.box = nil
	}
	b, err := se.start(args, key, env)
	if err != nil {
		return nil, err
	}
	se.box = b
	return b, nil
}

// start starts the sandbox of policy with the supervisor inside, the
// frames' pipes its descriptors framesInFD and framesOutFD under bwrap,
// its stdin and stdout in a container.
func (se *Session) start(policy []string, key string, env []string) (*box, error) {
	cmd, started, err := se.boxCommand(policy, env)
	if err != nil {
		return nil, err
	}
	defer started()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the supervisor's pipe: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("making the supervisor's pipe: %w", err)
	}
	b := &box{key: key, cmd: cmd, req: reqW, calls: map[uint64]*call{}, done: make(chan struct{})}
	open, err := b.sealChannel()
	if err != nil {
		reqR.Close()
		respW.Close()
		reqW.Close()
		respR.Close()
		return nil, err
	}
	if se.inContainer() {
		// The runtime forwards the container's stdio alone (doc.go says
		// what that leaves open). A container is ended by its runtime's
		// kill, by its name: killing the client does not end it.
		cmd.Stdin, cmd.Stdout = reqR, respW
		name := containerName()
		cmd.Args = slices.Insert(cmd.Args, 2, "--name", name)
		tool := se.sb.tool
		b.kill = func() {
			ctx, cancel := context.WithTimeout(context.Background(), killWait)
			defer cancel()
			_ = spawn.Command(ctx, spawn.Helper{Name: tool}, tool, "kill", name).Run()
			_ = cmd.Process.Kill()
		}
	} else {
		// Not bwrap's stdio: its pid 1 keeps it, and a command, the same
		// user without capabilities, may open /proc/1/fd/0 to send frames
		// or hold the pipe open, and /proc/1/fd/1 to forge an answer.
		// bwrap's pid 1 closes every other descriptor; the supervisor
		// (pid 2), which a command cannot reach, keeps them.
		if len(cmd.ExtraFiles) != framesInFD-3 {
			reqR.Close()
			respW.Close()
			reqW.Close()
			respR.Close()
			return nil, fmt.Errorf("starting the sandbox: the frames' descriptors would be %d, not %d", 3+len(cmd.ExtraFiles), framesInFD)
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, reqR, respW)
		// bwrap, with --die-with-parent: its sandbox dies with it.
		b.kill = func() { _ = cmd.Process.Kill() }
	}
	cmd.Stderr = &b.stderr
	err = cmd.Start()
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return nil, fmt.Errorf("starting the sandbox: %w", err)
	}
	go b.read(respR, open)
	return b, nil
}

// sealChannel makes the frames' key and writes it first on the pipe to
// the supervisor, which reads it before any command runs to read it; it
// sets the box's sealer and returns the one that opens the supervisor's
// frames.
func (b *box) sealChannel() (open *sealer, err error) {
	key := make([]byte, keySize)
	rand.Read(key)
	if _, err := b.req.Write(key); err != nil {
		return nil, fmt.Errorf("sending the sandbox's channel key: %w", err)
	}
	if b.seal, err = newSealer(key, toSupervisor); err != nil {
		return nil, err
	}
	return newSealer(key, fromSupervisor)
}

// containerName is a name for a new container, by which its runtime
// can kill it: random, so that no other's is the same.
func containerName() string {
	return fmt.Sprintf("gemini-ls-sandbox-%d-%s", os.Getpid(), strings.ToLower(rand.Text()))
}

// boxCommand is the command that starts the sandbox of policy, and what
// to call once it started (or failed to).
func (se *Session) boxCommand(policy, env []string) (cmd *spawn.Cmd, started func(), err error) {
	if se.inContainer() {
		return se.containerCommand(policy, env), func() {}, nil
	}
	return se.bwrapCommand(policy, env)
}

// containerCommand is `docker run` (or podman's) of policy. Its stdin's
// end, with -i, closes the container's, where the supervisor then ends,
// and the container with it (--init, --rm): it does not outlive
// gemini-ls, whose end closes that pipe.
func (se *Session) containerCommand(policy, env []string) *spawn.Cmd {
	cmd := spawn.Command(context.Background(), spawn.Helper{Name: se.sb.tool}, se.sb.tool, policy...)
	cmd.Env = env
	return cmd
}

// bwrapCommand is bwrap with policy's mounts and the supervisor inside.
// The supervisor's executable is passed open, as fd 3, and run from
// there, since it may lie where the sandbox hides (a test binary under
// /tmp); it is closed once bwrap started.
func (se *Session) bwrapCommand(policy, env []string) (*spawn.Cmd, func(), error) {
	exe, err := os.Open(se.supervisor[0])
	if err != nil {
		return nil, nil, fmt.Errorf("opening the sandbox's supervisor: %w", err)
	}
	// The supervisor alone holds capabilities, in the sandbox's user
	// namespace: CAP_SYS_ADMIN to give each command a mount namespace and
	// a /tmp of its own, CAP_SETPCAP to empty the command's bounding set
	// (which uid 0 would otherwise get back at exec); it drops them all
	// for each command.
	args := slices.Concat(policy[:len(policy)-1], []string{"--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", "--", "/proc/self/fd/3"}, se.supervisor[1:])
	cmd := spawn.Command(context.Background(), spawn.Helper{Name: se.sb.tool}, "/bin/sh", append([]string{"-c", `exec "$0" --seccomp 4 "$@" 4</proc/self/fd/4`, se.sb.tool}, args...)...)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{exe, se.sb.seccomp}
	return cmd, func() { exe.Close() }, nil
}

// errNotDelivered is a command that never reached the supervisor.
var errNotDelivered = errors.New("the sandbox had ended")

// box is one running bwrap or container and its supervisor.
type box struct {
	key    string
	cmd    *spawn.Cmd
	stderr lockedBuffer

	wmu  sync.Mutex // one frame at a time on req
	req  io.WriteCloser
	seal *sealer // the frames on req, in order
	// kill ends the sandbox at once (finish).
	kill     func()
	finished sync.Once

	mu      sync.Mutex
	calls   map[uint64]*call
	next    uint64
	retired bool
	err     error         // why it ended
	done    chan struct{} // closed when it ended
}

// call is one command in flight.
type call struct {
	stdout, stderr io.Writer
	pid            int
	end            chan message
}

func (b *box) ended() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// run sends m and waits for its command's end, killing its group when
// ctx ends first.
func (b *box) run(ctx context.Context, m message, stdout, stderr io.Writer) (Exit, error) {
	c := &call{stdout: orDiscard(stdout), stderr: orDiscard(stderr), end: make(chan message, 1)}
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return Exit{}, errNotDelivered
	}
	b.next++
	m.ID = b.next
	b.calls[m.ID] = c
	b.mu.Unlock()
	if err := b.send(m); err != nil {
		b.forget(m.ID)
		return Exit{}, errNotDelivered
	}
	select {
	case end := <-c.end:
		return b.exit(c, end)
	case <-ctx.Done():
		// Its end comes once the group is killed (or the sandbox ended).
		_ = b.send(message{Op: opKill, ID: m.ID})
		return b.exit(c, <-c.end)
	}
}

func (b *box) exit(c *call, end message) (Exit, error) {
	exit := Exit{Pid: c.pid, Code: end.Code, Signal: end.Signal}
	if end.Err != "" {
		return exit, errors.New(end.Err)
	}
	return exit, nil
}

func (b *box) send(m message) error {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	return writeFrame(b.req, b.seal, m)
}

// forget drops a call and, when the box is retired and idle, ends it.
func (b *box) forget(id uint64) {
	b.mu.Lock()
	delete(b.calls, id)
	idle := b.retired && len(b.calls) == 0
	b.mu.Unlock()
	if idle {
		b.finish()
	}
}

// retire ends the box once its last command ended: it runs no new one.
// It says whether the box was idle, and so ends now.
func (b *box) retire() (idle bool) {
	b.mu.Lock()
	b.retired = true
	idle = len(b.calls) == 0
	b.mu.Unlock()
	if idle {
		b.finish()
	}
	return idle
}

// finish ends the retired, idle box: the supervisor ends at the end of
// its requests, and bwrap (or the container) with it. One not ended
// within closeWait (its supervisor stuck, or, in a container, a command
// holding the container's stdin open) is killed: nothing of a session
// outlives it.
func (b *box) finish() {
	b.finished.Do(func() {
		b.req.Close()
		time.AfterFunc(closeWait, func() {
			if !b.ended() && b.kill != nil {
				b.kill()
			}
		})
	})
}

// read hands the supervisor's frames, opened by open, to their calls
// until it ends, then ends every call still in flight. A frame that does
// not open ends the sandbox at once: something inside writes to its
// channel, and nothing it sends after can be believed.
func (b *box) read(resp io.ReadCloser, open *sealer) {
	defer resp.Close()
	var err error
	for {
		var m message
		if m, err = readFrame(resp, open); err != nil {
			break
		}
		b.deliver(m)
	}
	forged := errors.Is(err, errForged)
	if forged && b.kill != nil {
		b.kill()
	}
	waitErr := b.cmd.Wait()
	b.req.Close()
	b.mu.Lock()
	b.err = ended(waitErr, b.stderr.String())
	if forged {
		b.err = fmt.Errorf("the sandbox was ended: %w", errForged)
	}
	close(b.done) // with err, so that no command is sent to it any more
	calls := b.calls
	b.calls = map[uint64]*call{}
	b.mu.Unlock()
	for _, c := range calls {
		c.end <- message{Op: opExit, Code: -1, Err: b.err.Error()}
	}
}

// ended is why a sandbox ended: how bwrap (or docker) exited, and what
// it said, if anything.
func ended(waitErr error, stderr string) error {
	why := "the sandbox ended"
	if waitErr != nil {
		why += " (" + waitErr.Error() + ")"
	}
	if said := strings.TrimSpace(stderr); said != "" {
		why += ": " + said
	}
	return errors.New(why)
}

func (b *box) deliver(m message) {
	b.mu.Lock()
	c, ok := b.calls[m.ID]
	b.mu.Unlock()
	if !ok {
		return
	}
	switch m.Op {
	case opStarted:
		c.pid = m.Pid
	case opOut:
		w := c.stdout
		if m.Stream == 2 {
			w = c.stderr
		}
		// A writer that fails loses that output; the command goes on.
		_, _ = w.Write(m.Data)
	case opExit:
		b.forget(m.ID)
		c.end <- m
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// lockedBuffer is bwrap's (or docker's) stderr, kept for the error when
// it ends.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < 4096 {
		l.buf.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
