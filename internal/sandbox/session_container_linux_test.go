package sandbox

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// containerSessionFor is a docker session over a fresh workspace, and
// the fake docker's runs.
func containerSessionFor(t *testing.T) (se *Session, root string, runs func() [][]string) {
	t.Helper()
	runs = sandboxtest.FakeDocker(t)
	root = t.TempDir()
	cfg := Config{Command: Docker, Image: "gemini-ls-test-image", Why: "the test"}
	return sessionOf(t, cfg, func() []string { return []string{root} }, t.TempDir()), root, runs
}

// The point of the session: its commands share one `docker run`, whose
// command is the supervisor, mounted read-only, under docker's init,
// with the policy of a container per command.
func TestContainerSessionRunsOneContainer(t *testing.T) {
	se, root, runs := containerSessionFor(t)
	for range 5 {
		mustSh(t, se, root, `true`)
	}
	all := runs()
	if len(all) != 1 {
		t.Fatalf("%d docker runs for 5 commands, want 1: %q", len(all), all)
	}
	self, _ := os.Executable()
	args := all[0]
	for _, want := range [][]string{
		{"--volume", self + ":" + supervisorInContainer + ":ro"},
		{"--volume", root + ":" + root},
		{"--network", "none"},
		{"--env", "SANDBOX=gemini-ls-docker"},
		{"gemini-ls-test-image", supervisorInContainer, SupervisorArg, containerArg},
	} {
		if !containsRun(args, want) {
			t.Errorf("docker %q lacks %q", args, want)
		}
	}
	if !slices.Equal(args[len(args)-4:], []string{"gemini-ls-test-image", supervisorInContainer, SupervisorArg, containerArg}) {
		t.Errorf("docker %q does not end with the image and the supervisor", args)
	}
}

func containsRun(args, run []string) bool {
	for i := range args {
		if i+len(run) <= len(args) && slices.Equal(args[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// gemini-ls gone, its end of the pipe is closed: the supervisor ends,
// and the container with it, killing the command that ran.
func TestContainerSessionEndsWithGeminiLsSideOfThePipe(t *testing.T) {
	se, root, _ := containerSessionFor(t)
	mustSh(t, se, root, `true`)
	b := se.box
	type end struct {
		exit Exit
		err  error
	}
	running := make(chan end, 1)
	go func() {
		_, exit, err := sh(t, context.Background(), se, root, `sleep 100`)
		running <- end{exit, err}
	}()
	time.Sleep(200 * time.Millisecond)
	b.req.Close()
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the container outlived gemini-ls's side of its pipe")
	}
	if err := syscall.Kill(b.cmd.Process.Pid, 0); err == nil {
		t.Errorf("the container's process %d still runs", b.cmd.Process.Pid)
	}
	select {
	case e := <-running:
		if e.err == nil && e.exit.Signal != "SIGKILL" {
			t.Errorf("the command of a container gone ended with %+v", e.exit)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command of a container gone still runs")
	}
}

// As with --env, a command gets the container's environment and what
// its caller added, not gemini-ls's own.
func TestContainerSessionPassesTheAddedEnvironment(t *testing.T) {
	t.Setenv("GEMINI_LS_HOSTS_OWN", "host")
	se, root, _ := containerSessionFor(t)
	var out bytes.Buffer
	exit, err := se.Run(t.Context(), Command{
		Args: []string{"bash", "-c", `echo "own=${GEMINI_LS_HOSTS_OWN-none} added=$ADDED sandbox=$SANDBOX home=$HOME"`},
		Dir:  root, Env: append(os.Environ(), "ADDED=yes"), Stdout: &out, Stderr: &out,
	})
	if err != nil || exit.Code != 0 {
		t.Fatalf("%v %+v %q", err, exit, out.String())
	}
	if want := "own=none added=yes sandbox=gemini-ls-docker home=/\n"; out.String() != want {
		t.Errorf("the command's environment: %q, want %q", out.String(), want)
	}
}

// What a command leaves in /tmp (and /dev/shm), even a directory it made
// unwritable, is gone before the next command; the workspace mounted
// under /tmp is not touched.
func TestContainerSessionSweepsTmpBetweenCommands(t *testing.T) {
	se, root, _ := containerSessionFor(t)
	if !strings.HasPrefix(root, "/tmp/") {
		t.Logf("the workspace %s is not under /tmp", root)
	}
	mustSh(t, se, root, `echo kept > kept; mkdir -p /tmp/d/e && touch /tmp/d/e/f /tmp/g /dev/shm/h && chmod 500 /tmp/d/e /tmp/d`)
	out := mustSh(t, se, root, `ls -A /tmp/d /tmp/g /dev/shm/h 2>/dev/null | wc -l; cat kept`)
	if out != "0\nkept\n" {
		t.Errorf("after a command that wrote /tmp: %q, want the sweep, and the workspace kept", out)
	}
	if data, err := os.ReadFile(filepath.Join(root, "kept")); err != nil || string(data) != "kept\n" {
		t.Errorf("the workspace's file: %q %v", data, err)
	}
}

// gemini-ls passes itself as the supervisor: a docker sandbox made by New
// keeps one container a session when that supervisor, mounted into the
// image, can run there, as a static executable can. One that needs the
// host's C library (a cgo build) gets a container per command instead,
// which Describe says and why, and its commands still run.
func TestNewGivesContainersASessionOnlyWithAStaticSupervisor(t *testing.T) {
	runs := sandboxtest.FakeDocker(t)
	root := t.TempDir()
	for _, c := range []struct {
		name   string
		interp bool
	}{{"static", false}, {"dynamic", true}} {
		exe := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(exe, elfFile(t, 64, binary.LittleEndian, c.interp), 0o755); err != nil {
			t.Fatal(err)
		}
		sb, err := New(Config{Command: Podman, Image: "gemini-ls-test-image", Why: "the test", Supervisor: []string{exe, SupervisorArg}},
			func() []string { return []string{root} }, t.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		if got := sb.Session() != nil; got != !c.interp {
			t.Errorf("a podman sandbox whose supervisor is %s has a session: %v, want %v", c.name, got, !c.interp)
		}
		says := strings.Contains(sb.Describe(), "podman (gemini-ls-test-image), a container per command: this gemini-ls, built with cgo, needs the host's C library (CGO_ENABLED=0 builds one that does not), from the test:")
		if says != c.interp {
			t.Errorf("a podman sandbox whose supervisor is %s is described as %q", c.name, sb.Describe())
		}
		if c.interp {
			before := len(runs())
			if out, err := run(t, sb, root, `echo "$SANDBOX"`); err != nil || out != "gemini-ls-podman\n" {
				t.Errorf("a command in a container of its own: %v %q", err, out)
			}
			if all := runs(); len(all) != before+1 || !slices.Contains(all[len(all)-1], "bash") {
				t.Errorf("the command's container: %q, want one run of the command itself", all[before:])
			}
		}
	}
}

// elfOrder is a byte order that appends.
type elfOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// elfFile is the start of an ELF executable of class bits (32 or 64) and
// byte order, whose program headers are a PT_LOAD, then a PT_INTERP
// when interp, else a PT_NOTE.
func elfFile(t *testing.T, bits int, order elfOrder, interp bool) []byte {
	t.Helper()
	var b []byte
	class, ehsize, phentsize := byte(elf.ELFCLASS64), 64, 56
	if bits == 32 {
		class, ehsize, phentsize = byte(elf.ELFCLASS32), 52, 32
	}
	data := byte(elf.ELFDATA2LSB)
	if order == elfOrder(binary.BigEndian) {
		data = byte(elf.ELFDATA2MSB)
	}
	b = append(b, 0x7f, 'E', 'L', 'F', class, data, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	b = order.AppendUint16(b, uint16(elf.ET_EXEC))
	b = order.AppendUint16(b, uint16(elf.EM_X86_64))
	b = order.AppendUint32(b, 1)
	word := func(v uint64) {
		if bits == 32 {
			b = order.AppendUint32(b, uint32(v))
		} else {
			b = order.AppendUint64(b, v)
		}
	}
	word(0)              // entry
	word(uint64(ehsize)) // program headers' offset
	word(0)              // section headers' offset
	b = order.AppendUint32(b, 0)
	b = order.AppendUint16(b, uint16(ehsize))
	b = order.AppendUint16(b, uint16(phentsize))
	b = order.AppendUint16(b, 2)
	b = order.AppendUint16(b, 0) // section headers: none
	b = order.AppendUint16(b, 0)
	b = order.AppendUint16(b, 0)
	second := elf.PT_NOTE
	if interp {
		second = elf.PT_INTERP
	}
	for _, typ := range []elf.ProgType{elf.PT_LOAD, second} {
		ph := order.AppendUint32(nil, uint32(typ))
		b = append(b, ph...)
		b = append(b, make([]byte, phentsize-len(ph))...)
	}
	// What the standard library reads of it, to be sure it is the ELF
	// file it is meant to be.
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the made ELF file: %v", err)
	}
	if len(f.Progs) != 2 || f.Progs[1].Type != second {
		t.Fatalf("the made ELF file's program headers: %v", f.Progs)
	}
	return b
}

// What has no program interpreter is static; anything else, or what is
// not an ELF executable, is not. The test binary and the shell are
// judged as the standard library reads them.
func TestStaticExecutable(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, bits := range []int{32, 64} {
		for _, order := range []elfOrder{binary.LittleEndian, binary.BigEndian} {
			for _, interp := range []bool{false, true} {
				name := fmt.Sprintf("elf%d-%v-interp-%v", bits, order, interp)
				if got := staticExecutable(file(name, elfFile(t, bits, order, interp))); got == interp {
					t.Errorf("%s: static %v", name, got)
				}
			}
		}
	}
	static := elfFile(t, 64, binary.LittleEndian, false)
	for name, data := range map[string][]byte{
		"script":    []byte("#!/bin/sh\necho hi\n"),
		"empty":     nil,
		"truncated": static[:len(static)-1],
		"no class":  append(append([]byte{}, static[:4]...), append([]byte{0}, static[5:]...)...),
	} {
		if staticExecutable(file(name, data)) {
			t.Errorf("%s: static", name)
		}
	}
	if staticExecutable(filepath.Join(dir, "missing")) {
		t.Error("a missing file: static")
	}
	self, _ := os.Executable()
	for _, exe := range []string{self, "/bin/sh"} {
		f, err := elf.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		want := !slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
		f.Close()
		if got := staticExecutable(exe); got != want {
			t.Errorf("%s: static %v, want %v", exe, got, want)
		}
	}
}
