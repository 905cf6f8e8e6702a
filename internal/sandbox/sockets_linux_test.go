package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// probeEnv, set, makes the test binary the probe the sockets tests run
// inside the sandbox (TestMain), which is also the sessions' supervisor
// (SupervisorArg) and the fake docker (sandboxtest.FakeDockerArg).
const probeEnv = "GEMINI_LS_SANDBOX_PROBE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandboxtest.FakeDockerArg {
		os.Exit(sandboxtest.RunFakeDocker(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == SupervisorArg {
		if err := Supervise(context.Background(), os.Stdin, os.Stdout, os.Args[2:]...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(probeEnv) != "" {
		os.Exit(probe(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// probe connects to each Unix socket address it is given ("@name" an
// abstract one; "own@name" one it listens on first) and writes a byte,
// then tries socket(AF_UNIX), socketpair and io_uring_setup, printing a
// line for each.
func probe(addrs []string) int {
	for _, addr := range addrs {
		if own, ok := strings.CutPrefix(addr, "own"); ok {
			l, err := net.Listen("unix", own)
			if err != nil {
				fmt.Printf("listen %s: %v\n", own, err)
				continue
			}
			defer l.Close()
			addr = own
		}
		c, err := net.Dial("unix", addr)
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		fmt.Printf("connect %s: %v\n", addr, err)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.Close(fd)
	}
	fmt.Printf("socket(AF_UNIX): %v\n", err)
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.Close(pair[0])
		syscall.Close(pair[1])
	}
	fmt.Printf("socketpair: %v\n", err)
	var params [120]byte // struct io_uring_params
	r, _, errno := syscall.Syscall(425, 1, uintptr(unsafe.Pointer(&params)), 0)
	if errno == 0 {
		syscall.Close(int(r))
	}
	fmt.Printf("io_uring_setup: %v\n", errnoErr(errno))
	return 0
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// listener is a Unix socket listener at addr that counts what reaches it.
type listener struct {
	addr    string
	reached atomic.Int32
}

// waitReached says whether a connection has reached l, waiting for its
// reader a while.
func (l *listener) waitReached() bool {
	for range 500 {
		if l.reached.Load() > 0 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func listen(t *testing.T, addr string) *listener {
	t.Helper()
	if !strings.HasPrefix(addr, "@") {
		if err := os.MkdirAll(filepath.Dir(addr), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ln := &listener{addr: addr}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if n, _ := io.ReadFull(c, make([]byte, 1)); n > 0 {
				ln.reached.Add(1)
			}
			c.Close()
		}
	}()
	return ln
}

// probeIn copies the test binary into root (the sandbox's /tmp is its
// own, so the build's is not there) and runs it in sb as the probe.
func probeIn(t *testing.T, sb *Sandbox, root string, env []string, addrs ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), probeBinary(t, root), addrs...)
	cmd.Dir = root
	cmd.Env = append(env, probeEnv+"=1")
	if sb != nil {
		if err := sb.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	return string(out)
}

// probeBinary is a copy of this test binary in root, which runs as the
// probe with probeEnv set.
func probeBinary(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(root, "probe")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// No sandboxed command reaches a Unix socket of the host, wherever it
// listens: under the home directory (Docker Desktop's), under
// $XDG_RUNTIME_DIR (the SSH and GPG agents', D-Bus's), under /run, or in
// the abstract namespace; it cannot even make one (seccomp), nor set up
// io_uring, whose operations the filter would not see; socketpair still
// works. The same probe outside reaches each, so the listeners answer.
func TestBubblewrapReachesNoHostUnixSocket(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network %v", network), func(t *testing.T) {
			sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Network: network, Why: "test"})
			// Under the home, which the sandbox shows, and not under
			// /tmp, which it replaces: only the mask hides it.
			runtime := filepath.Join(home, "runtime")
			tag := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatBool(network)
			listeners := []*listener{
				listen(t, filepath.Join(home, ".docker", "desktop", "docker.sock")),
				listen(t, filepath.Join(runtime, "bus")),
				listen(t, "@gemini-ls-test-"+tag),
			}
			if run := filepath.Join("/run", "gemini-ls-test-"+tag+".sock"); canWrite("/run") {
				listeners = append(listeners, listen(t, run))
			} else {
				t.Logf("/run is not writable here: the listener under /run is left out (the tmpfs over it is checked by the others' masking)")
			}
			var addrs []string
			for _, l := range listeners {
				addrs = append(addrs, l.addr)
			}
			env := append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)

			outside := probeIn(t, nil, root, env, addrs...)
			for _, l := range listeners {
				if !strings.Contains(outside, "connect "+l.addr+": <nil>") || !l.waitReached() {
					t.Fatalf("outside the sandbox the probe did not reach %s: %s", l.addr, outside)
				}
				l.reached.Store(0)
			}

			inside := probeIn(t, sb, root, env, addrs...)
			for _, l := range listeners {
				if strings.Contains(inside, "connect "+l.addr+": <nil>") || l.reached.Load() != 0 {
					t.Errorf("the sandboxed probe reached %s:\n%s", l.addr, inside)
				}
			}
			for _, want := range []string{"socket(AF_UNIX): operation not permitted", "socketpair: <nil>", "io_uring_setup: operation not permitted"} {
				if !strings.Contains(inside, want+"\n") {
					t.Errorf("inside the sandbox, want %q:\n%s", want, inside)
				}
			}
		})
	}
}

// A socket the user names (tools.sandboxAllowedSockets) is reachable,
// even under a masked directory; the others stay out of reach, the
// abstract ones too with the network off.
func TestBubblewrapReachesANamedSocket(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	root, home := t.TempDir(), t.TempDir()
	runtime := filepath.Join(home, "runtime")
	named := listen(t, filepath.Join(runtime, "docker.sock"))
	other := listen(t, filepath.Join(runtime, "bus"))
	abstract := listen(t, "@gemini-ls-test-named-"+strconv.Itoa(os.Getpid()))
	sb, err := New(Config{Command: Bubblewrap, AllowedSockets: []string{named.addr}, Why: "test"}, func() []string { return []string{root} }, home, "")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)
	out := probeIn(t, sb, root, env, named.addr, other.addr, abstract.addr)
	if !strings.Contains(out, "connect "+named.addr+": <nil>") || !named.waitReached() {
		t.Errorf("the named socket was not reached:\n%s", out)
	}
	if other.reached.Load() != 0 || abstract.reached.Load() != 0 {
		t.Errorf("a socket not named was reached:\n%s", out)
	}
	if !strings.Contains(sb.Describe(), "host sockets "+named.addr) || !strings.Contains(sb.Note(), named.addr) {
		t.Errorf("Describe %q and Note %q do not name the socket", sb.Describe(), sb.Note())
	}
}

// In the session's sandbox, with the network on and a socket named, the
// supervisor confines each command to the abstract sockets made inside
// (Landlock's scoping): the host's (X11's, D-Bus's) are out of reach,
// the command's own still work, and the session's note says nothing of
// them, where a command Wrap sandboxes still reaches them and its note
// says so. On a kernel without the scoping, both notes say they are open.
func TestSessionScopesTheHostsAbstractSockets(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	root, home := t.TempDir(), t.TempDir()
	named := listen(t, filepath.Join(t.TempDir(), "agent.sock"))
	abstract := listen(t, "@gemini-ls-test-x11-session-"+strconv.Itoa(os.Getpid()))
	own := "own@gemini-ls-test-own-" + strconv.Itoa(os.Getpid())
	se := sessionOf(t, Config{Command: Bubblewrap, Network: true, AllowedSockets: []string{named.addr}, Why: "test"},
		func() []string { return []string{root} }, home)
	var out bytes.Buffer
	exit, err := se.Run(t.Context(), Command{Args: []string{probeBinary(t, root), abstract.addr, own}, Dir: root,
		Env: append(os.Environ(), probeEnv+"=1"), Stdout: &out, Stderr: &out})
	if err != nil || exit.Code != 0 {
		t.Fatalf("the probe: %v %+v\n%s", err, exit, out.String())
	}
	reached := strings.Contains(out.String(), "connect "+abstract.addr+": <nil>") || abstract.reached.Load() > 0
	sessionSays := strings.Contains(se.Note(), "abstract")
	wrapSays := strings.Contains(se.sb.Note(), "every abstract Unix socket of the host")
	if landlockABI() < landlockScopeABI {
		if !reached || !sessionSays || !wrapSays {
			t.Errorf("without Landlock's scoping (ABI %d): reached %v, the session's note %q, Wrap's %q", landlockABI(), reached, se.Note(), se.sb.Note())
		}
		return
	}
	if reached {
		t.Errorf("a command in the session reached the host's abstract socket:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "connect "+strings.TrimPrefix(own, "own")+": <nil>") {
		t.Errorf("a command could not reach the abstract socket it made:\n%s", out.String())
	}
	if sessionSays || !wrapSays {
		t.Errorf("the session's note %q and Wrap's %q, want only Wrap's to say the host's abstract sockets are open", se.Note(), se.sb.Note())
	}
}

func canWrite(dir string) bool {
	f, err := os.CreateTemp(dir, ".gemini-ls-probe")
	if err != nil {
		return false
	}
	f.Close()
	return os.Remove(f.Name()) == nil || errors.Is(err, os.ErrNotExist)
}

// With the network on and a socket named, the host's network namespace
// is shared and socket(AF_UNIX) allowed, so the host's abstract sockets
// (X11's, D-Bus's) are reachable, not only the named one: Describe and
// Note say so, and say nothing of it with the network off.
func TestBubblewrapSaysANamedSocketOpensTheAbstractOnesWithTheNetworkOn(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network %v", network), func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			named := listen(t, filepath.Join(t.TempDir(), "agent.sock"))
			abstract := listen(t, "@gemini-ls-test-x11-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatBool(network))
			sb, err := New(Config{Command: Bubblewrap, Network: network, AllowedSockets: []string{named.addr}, Why: "test"},
				func() []string { return []string{root} }, home, "")
			if err != nil {
				t.Fatal(err)
			}
			out := probeIn(t, sb, root, os.Environ(), abstract.addr)
			reached := strings.Contains(out, "connect "+abstract.addr+": <nil>")
			t.Logf("network %v, abstract socket reached %v:\n%s", network, reached, out)
			says := strings.Contains(sb.Describe(), "every abstract socket of the host") && strings.Contains(sb.Note(), "every abstract Unix socket of the host")
			if reached && !says {
				t.Errorf("the host's abstract socket was reached, but Describe %q and Note %q do not say so", sb.Describe(), sb.Note())
			}
			if !reached && strings.Contains(sb.Describe()+sb.Note(), "abstract") {
				t.Errorf("no abstract socket is reached, but Describe %q or Note %q says one is", sb.Describe(), sb.Note())
			}
		})
	}
}
