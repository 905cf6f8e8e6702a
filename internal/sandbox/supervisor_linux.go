package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// outputGrace is how long a command's output is awaited once its process
// group is killed: only a process that left the group (setsid) can still
// hold it open.
const outputGrace = 2 * time.Second

// supervisor runs commands inside the sandbox for the frames it reads.
type supervisor struct {
	out  io.Writer
	seal *sealer    // the frames on out, in order
	wmu  sync.Mutex // one frame at a time on out

	// container: it runs in a docker or podman container, not under
	// bwrap (containerArg).
	container bool
	// scratches are, under bwrap, what each command's fresh /tmp and
	// /dev/shm carry over (scratchOf): bwrap set them up once, and
	// nothing changes them in the supervisor's view.
	scratches []scratch
	// scope is, under bwrap, the Landlock ruleset each command's thread
	// enters (abstractSocketScope), -1 where there is none.
	scope int
	// scratch, in a container, take /tmp and the other scratch
	// directories back to what they held at the start when no command
	// runs.
	scratch []*tmpSweeper

	mu      sync.Mutex
	running map[uint64]int // command id → process group
	// starting counts the commands between their fork and their entry
	// in running, which endGroup's kill of everything must spare.
	starting int
	// killed are the commands killed before they ran.
	killed map[uint64]bool
	// ending is why the supervisor is ending, when its frames failed.
	ending error
}

// containerArg, after SupervisorArg, says that the supervisor runs in a
// container (docker or podman run --init), where it holds no capability
// to give a command a mount namespace, rather than under bwrap.
const containerArg = "--container"

// Supervise is the supervisor's loop: it runs each command the frames
// to it ask for, on its own, until they end (gemini-ls gone or done),
// then kills what still runs. args are those after SupervisorArg: none
// under bwrap, containerArg in a container. In a container the frames
// come on stdin and go on stdout, which the caller passes as in and out;
// under bwrap, whose pid 1 keeps stdin and stdout where a command can
// open them, on the descriptors framesInFD and framesOutFD, and in and
// out are not used. It returns the frames' error, nil at their end.
func Supervise(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	sv, in, open, err := newSupervisor(stdin, stdout, args)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer func() {
		// Nothing outlives the session: every command's group, and
		// whatever left its group, dies.
		_ = unix.Kill(-1, unix.SIGKILL)
		wg.Wait()
	}()
	for {
		m, err := readFrame(in, open)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// The commands killed on the way out say why.
			sv.mu.Lock()
			sv.ending = fmt.Errorf("the sandbox was ended: %w", err)
			sv.mu.Unlock()
			return fmt.Errorf("supervising: %w", err)
		}
		switch m.Op {
		case opRun:
			wg.Add(1)
			go func() {
				defer wg.Done()
				sv.run(ctx, m)
			}()
		case opKill:
			sv.kill(m.ID)
		}
	}
}

// newSupervisor checks where it runs and sets it up for args, with
// the frames' reader (stdin in a container, framesInFD under bwrap),
// and the sealer that opens them.
func newSupervisor(stdin io.Reader, stdout io.Writer, args []string) (*supervisor, io.Reader, *sealer, error) {
	container := slices.Equal(args, []string{containerArg})
	if !container && len(args) > 0 {
		return nil, nil, nil, fmt.Errorf("the sandbox's supervisor takes no argument but %s, not %q", containerArg, args)
	}
	// It kills every process it may signal when a command ends: only
	// in a pid namespace of its own, whose init is bwrap's (or docker's
	// --init), and where it is the first process, is that its own
	// commands alone.
	if !firstInItsPidNamespace() {
		return nil, nil, nil, errors.New("the sandbox's supervisor runs only as the first process of a bubblewrap sandbox or a container")
	}
	// The frames' descriptors too: a command inheriting them could send
	// frames and forge answers.
	closeInherited()
	in, out := stdin, stdout
	sv := &supervisor{container: container, scope: -1, running: map[uint64]int{}, killed: map[uint64]bool{}}
	var err error
	if container {
		// Its memory, where the frames' key is, and its descriptors are
		// then no command's to read through /proc: they run as the same
		// user, without capabilities. (Under bwrap the capabilities it
		// holds keep them out.)
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
			return nil, nil, nil, fmt.Errorf("the sandbox's supervisor: %w", err)
		}
		for _, dir := range scratchDirs() {
			sweeper, err := newTmpSweeper(dir)
			if err != nil {
				return nil, nil, nil, err
			}
			if sweeper != nil {
				sv.scratch = append(sv.scratch, sweeper)
			}
		}
	} else {
		if in, out, err = framesPipes(); err != nil {
			return nil, nil, nil, err
		}
		if sv.scratches, err = scratches(); err != nil {
			return nil, nil, nil, err
		}
		if sv.scope, err = abstractSocketScope(); err != nil {
			return nil, nil, nil, err
		}
	}
	sv.out = out
	open, err := sv.openChannel(in)
	if err != nil {
		return nil, nil, nil, err
	}
	return sv, in, open, nil
}

// openChannel reads the frames' key, which gemini-ls writes first, and
// sets the supervisor's sealer; it returns the one that opens the frames
// to it.
func (sv *supervisor) openChannel(in io.Reader) (open *sealer, err error) {
	key, err := readKey(in)
	if err != nil {
		return nil, err
	}
	if sv.seal, err = newSealer(key, fromSupervisor); err != nil {
		return nil, err
	}
	return newSealer(key, toSupervisor)
}

// framesPipes are, under bwrap, the pipes gemini-ls passed for the
// frames, framesInFD and framesOutFD: checked to be pipes, so that a
// supervisor started otherwise does not read or write whatever is there.
func framesPipes() (io.Reader, io.Writer, error) {
	var files [2]*os.File
	for i, fd := range []int{framesInFD, framesOutFD} {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return nil, nil, fmt.Errorf("the sandbox's supervisor takes its frames on descriptors %d and %d, pipes, and %d is not one (%v)", framesInFD, framesOutFD, fd, err)
		}
		files[i] = os.NewFile(uintptr(fd), "frames")
	}
	return files[0], files[1], nil
}

// firstInItsPidNamespace says whether this process is the first of a pid
// namespace: its parent is the namespace's init (pid 1) and no other
// process is there. Under bwrap it is pid 2; in a container it is the
// first the runtime's init (tini, catatonit) started, whatever its
// number, which the runtime does not promise.
func firstInItsPidNamespace() bool {
	return os.Getppid() == 1 && aloneWithInit("/proc", os.Getpid())
}

// aloneWithInit says whether proc (a proc file system) lists no process
// but pid 1 and self.
func aloneWithInit(proc string, self int) bool {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != 1 && pid != self {
			return false
		}
	}
	return true
}

// closeInherited marks every descriptor past stderr close-on-exec: bwrap
// hands the supervisor its executable, the seccomp filter and the
// frames' pipes, and commands get none of them.
func closeInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

func (sv *supervisor) send(m message) {
	sv.wmu.Lock()
	defer sv.wmu.Unlock()
	// gemini-ls gone: Supervise ends at the end of its frames.
	_ = writeFrame(sv.out, sv.seal, m)
}

// kill kills command id's group, or, before it is running, has start
// kill it. (A kill that comes after its end leaves an entry behind: the
// host sends one only when a command's context ended first, rarely.)
func (sv *supervisor) kill(id uint64) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if pgid, ok := sv.running[id]; ok {
		_ = unix.Kill(-pgid, unix.SIGKILL)
		return
	}
	sv.killed[id] = true
}

// run runs one command: in a process group of its own, in its directory,
// with its environment, a /tmp of its own and no capability, stdin empty,
// its output sent back as it comes; when it ends its group is killed, as
// a per-command sandbox's pid namespace would be.
func (sv *supervisor) run(ctx context.Context, m message) {
	code, signal, err := sv.exec(ctx, m)
	end := message{Op: opExit, ID: m.ID, Code: code, Signal: signal}
	sv.mu.Lock()
	err = cmp.Or(sv.ending, err)
	sv.mu.Unlock()
	if err != nil {
		end.Err = err.Error()
	}
	sv.send(end)
}

// exec starts m's command and waits for it and its output.
func (sv *supervisor) exec(ctx context.Context, m message) (code int, signal string, err error) {
	if len(m.Argv) == 0 {
		return -1, "", errors.New("no command")
	}
	env := sv.environ(m.Env)
	path, err := lookPath(m.Argv[0], env)
	if err != nil {
		return -1, "", fmt.Errorf("starting %s: %w", m.Argv[0], err)
	}
	// The host's door admitted it, and it runs in the sandbox already.
	cmd := spawn.Command(ctx, spawn.UserCommand{What: "the sandbox session"}, path, m.Argv[1:]...)
	cmd.Args = m.Argv
	cmd.Dir = m.Dir
	cmd.Env = env
	if !sv.container && m.Dir != "" {
		// As bwrap's --chdir: the shell's pwd is the path asked for, a
		// root's link, not the real path the kernel gives.
		cmd.Env = append(env, "PWD="+m.Dir)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outputs, err := sv.start(m.ID, cmd, m.Combined)
	if err != nil {
		return -1, "", fmt.Errorf("starting %s: %w", m.Argv[0], err)
	}
	pgid := cmd.Process.Pid
	sv.send(message{Op: opStarted, ID: m.ID, Pid: pgid})

	var copies sync.WaitGroup
	for i, r := range outputs {
		copies.Go(func() { sv.forward(m.ID, i+1, r) })
	}
	state, waitErr := cmd.Process.Wait()
	sv.endGroup(m.ID, pgid)
	if !waitedWithin(&copies, outputGrace) {
		for _, r := range outputs {
			r.Close()
		}
		copies.Wait()
	}
	if waitErr != nil {
		return -1, "", fmt.Errorf("waiting for %s: %w", m.Argv[0], waitErr)
	}
	return exitOf(state)
}

// start starts cmd (startPrivately) with its stdout and stderr on new
// pipes, one for both when combined (so that their order is kept), whose
// reading ends it returns, stdout's first, and enters it in running; a
// kill that came first kills it at once.
func (sv *supervisor) start(id uint64, cmd *spawn.Cmd, combined bool) ([]*os.File, error) {
	n := 2
	if combined {
		n = 1
	}
	readers, writers := make([]*os.File, n), make([]*os.File, n)
	for i := range readers {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(readers[:i], writers[:i])
			return nil, fmt.Errorf("making its output's pipe: %w", err)
		}
		readers[i], writers[i] = r, w
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[n-1]
	sv.mu.Lock()
	sv.starting++
	sv.mu.Unlock()
	err := sv.startCommand(cmd)
	closeAll(writers)
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.starting--
	if err != nil {
		closeAll(readers)
		return nil, err
	}
	sv.running[id] = cmd.Process.Pid
	if sv.killed[id] {
		delete(sv.killed, id)
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	}
	return readers, nil
}

func closeAll(sets ...[]*os.File) {
	for _, set := range sets {
		for _, f := range set {
			f.Close()
		}
	}
}

// endGroup kills the ended command's group and, when no other command
// runs, every process of the sandbox but the supervisor: what a command
// left behind, even outside its group, does not reach the next.
func (sv *supervisor) endGroup(id uint64, pgid int) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	delete(sv.running, id)
	_ = unix.Kill(-pgid, unix.SIGKILL)
	if len(sv.running) == 0 && sv.starting == 0 {
		_ = unix.Kill(-1, unix.SIGKILL)
		// Under the lock: no command starts while /tmp is swept.
		for _, sweeper := range sv.scratch {
			sweeper.sweep()
		}
	}
}

// environ is a command's environment from the one sent: under bwrap the
// whole of it; in a container, as docker run's --env, the container's
// own (the image's, SANDBOX) with what gemini-ls's caller added.
func (sv *supervisor) environ(env []string) []string {
	if sv.container {
		return append(os.Environ(), env...)
	}
	return append(env, "SANDBOX=gemini-ls-bwrap")
}

// lookPath is the executable a command named name runs, found as the
// sandbox's own exec would (bwrap's, or the container runtime's): a name
// holding a slash as it is, any other on the PATH of the command's
// environment env (in a container the image's, unless the caller set
// one), never on gemini-ls's: a container's files are not the host's,
// and its bash may be /bin/bash alone.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := "/bin:/usr/bin" // execvp's without a PATH
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one counts, as in os/exec's Cmd.Env
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // as os/exec's LookPath's ErrDot: no program of the working directory by its bare name
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, spawn.ErrNotFound)
}

// startCommand starts cmd: under bwrap with a /tmp of its own and no
// capability (startPrivately); in a container as it is, since there the
// supervisor holds no capability, and so neither does a command but
// what the container's user has, as in a container of its own.
func (sv *supervisor) startCommand(cmd *spawn.Cmd) error {
	if sv.container {
		return cmd.Start()
	}
	return sv.startPrivately(cmd)
}

// forward sends what r yields as out frames of stream until its end.
func (sv *supervisor) forward(id uint64, stream int, r *os.File) {
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			sv.send(message{Op: opOut, ID: id, Stream: stream, Data: buf[:n]})
		}
		if err != nil {
			return
		}
	}
}

func waitedWithin(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// exitOf is how a process ended: its code, or -1 and the signal's name.
func exitOf(state *os.ProcessState) (int, string, error) {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal()), nil
	}
	return state.ExitCode(), "", nil
}

// startPrivately starts cmd from a thread of its own, thrown away after:
// in a mount namespace of its own where /tmp is a new tmpfs (the command's
// private /tmp, as bwrap's --tmpfs /tmp gives a sandbox per command), and
// without the capabilities the supervisor holds for that (bwrap's
// --cap-add), so that the command has none, as under bwrap per command:
// it could otherwise undo the sandbox's read-only mounts. Namespaces and
// capabilities are a thread's own in Linux, and a child inherits its
// forking thread's.
func (sv *supervisor) startPrivately(cmd *spawn.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with the goroutine.
		runtime.LockOSThread()
		errc <- sv.startOnThisThread(cmd)
	}()
	return <-errc
}

func (sv *supervisor) startOnThisThread(cmd *spawn.Cmd) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("making the command's mount namespace: %w", err)
	}
	// Private, so that its /tmp does not reach the supervisor's.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the command's mounts private: %w", err)
	}
	// /tmp and bwrap's /dev/shm, which the sandbox's user may write:
	// shared by the session's commands, what one left would reach the
	// next.
	for _, sc := range sv.scratches {
		if err := sc.fresh(); err != nil {
			return err
		}
	}
	// While the thread still holds CAP_SYS_ADMIN, which Landlock asks
	// of a process without no_new_privs.
	if err := enterScope(sv.scope); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	return cmd.Start()
}

// dropCapabilities empties this thread's bounding, ambient, inheritable,
// permitted and effective sets.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("dropping the capabilities: %w", err)
	}
	return nil
}

// scratch is a directory each command gets fresh (/tmp, bwrap's
// /dev/shm), with what bwrap put under it, which the fresh one carries
// over: the mounts (under /tmp: a workspace root there, a home there and
// its hidden secrets) and the links (a root's link, the sandbox mounting
// the real path), as bwrap's --tmpfs /tmp comes before those.
type scratch struct {
	dir     string
	carried []string          // mount points, outermost, shallowest first
	links   map[string]string // link → where it leads
}

// scratches are the supervisor's scratch directories, read once: its
// /tmp, and /dev/shm when bwrap made one.
func scratches() ([]scratch, error) {
	var out []scratch
	for _, dir := range []string{"/tmp", "/dev/shm"} {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		carried, err := mountsUnder(dir)
		if err != nil {
			return nil, err
		}
		links, err := linksUnder(dir)
		if err != nil {
			return nil, err
		}
		out = append(out, scratch{dir: dir, carried: carried, links: links})
	}
	return out, nil
}

// fresh mounts a new tmpfs over the directory and puts back over it what
// bwrap put under it. It runs in the command's own mount namespace.
func (sc scratch) fresh() error {
	dir, carried, links := sc.dir, sc.carried, sc.links
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	for _, p := range carried {
		// Held by a descriptor: the new tmpfs hides its path.
		f, err := os.OpenFile(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("keeping %s for the command's %s: %w", p, dir, err)
		}
		held = append(held, f)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("mounting the command's %s: %w", dir, err)
	}
	for i, p := range carried {
		if err := remount(held[i], p); err != nil {
			return err
		}
	}
	for p, target := range links {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("putting the link %s back: %w", p, err)
		}
		if err := os.Symlink(target, p); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("putting the link %s back: %w", p, err)
		}
	}
	return nil
}

// linksUnder are the links in dir, outside its mounts, and where each
// leads. Under bwrap no command writes there (each has a /tmp of its
// own): they are bwrap's --symlink.
func linksUnder(dir string) (map[string]string, error) {
	mounts, err := mountPoints(dir)
	if err != nil {
		return nil, err
	}
	links := map[string]string{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // unreadable: nothing of bwrap's there
		case d.IsDir() && slices.Contains(mounts, p):
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return fmt.Errorf("reading the link %s: %w", p, err)
			}
			links[p] = target
		}
		return nil
	})
	return links, err
}

// remount binds what f holds, with the mounts beneath it and their
// flags (read-only ones stay so), at p, made first as the mount point.
func remount(f *os.File, p string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("putting %s back: %w", p, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("putting %s back: %w", p, err)
	}
	if info.IsDir() {
		err = os.Mkdir(p, 0o755)
	} else {
		err = os.WriteFile(p, nil, 0o644)
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("putting %s back: %w", p, err)
	}
	src := "/proc/thread-self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Mount(src, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("putting %s back: %w", p, err)
	}
	return nil
}

// mountsUnder are the mount points strictly under dir, outermost only
// (a recursive bind carries the rest), shallowest first.
func mountsUnder(dir string) ([]string, error) {
	all, err := mountPoints(dir)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b string) int { return len(a) - len(b) })
	var out []string
	for _, p := range all {
		if !slices.ContainsFunc(out, func(q string) bool { return strings.HasPrefix(p, q+"/") }) {
			out = append(out, p)
		}
	}
	return out, nil
}

// mountPoints are the mount points strictly under dir.
func mountPoints(dir string) ([]string, error) {
	data, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading the sandbox's mounts: %w", err)
	}
	var all []string
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		if p := unescapeMountPath(fields[4]); strings.HasPrefix(p, dir+"/") && !slices.Contains(all, p) {
			all = append(all, p)
		}
	}
	return all, nil
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
