package sandboxtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// FakeDockerArg, as a test binary's first argument, makes it the fake
// docker FakeDocker puts on PATH: its TestMain then calls RunFakeDocker
// with the arguments that follow.
const FakeDockerArg = "__fake-docker"

// FakeDocker puts on PATH, for t, a docker and a podman that need no
// daemon: each checks and records its arguments, which must be those of
// `run -i --rm --init [options] IMAGE argv…`, and runs argv in bubblewrap
// as a container would (a pid namespace of its own under an init, the
// host's file system for the image, read-only as for a user not root, a /tmp of its own, the
// volumes mounted, --network none honoured, no capability, the image's
// environment but for --env); `kill NAME` kills the one run with --name
// NAME. The test binary must dispatch
// FakeDockerArg to RunFakeDocker. runs reads back each run's arguments.
func FakeDocker(t *testing.T) (runs func() [][]string) {
	t.Helper()
	NeedBubblewrap(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	script := "#!/bin/sh\nexec " + shellQuote(self) + " " + FakeDockerArg + " " + shellQuote(log) + ` "$@"` + "\n"
	for _, name := range []string{"docker", "podman"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() [][]string { return readRuns(t, log) }
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func readRuns(t *testing.T, log string) [][]string {
	t.Helper()
	f, err := os.Open(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs [][]string
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var args []string
		if err := json.Unmarshal(lines.Bytes(), &args); err != nil {
			t.Fatalf("the fake docker's log: %v", err)
		}
		runs = append(runs, args)
	}
	return runs
}

// RunFakeDocker is the fake docker: args are its log's path and docker's
// arguments. It becomes bwrap (its process is the container's, as far as
// its caller sees), or answers 125, as docker does when it cannot run
// the container.
func RunFakeDocker(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "fake docker: no log")
		return 125
	}
	log, args := args[0], args[1:]
	if len(args) == 2 && args[0] == "kill" {
		if err := kill(log, args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "fake docker:", err)
			return 1
		}
		return 0
	}
	r, err := parseRun(args)
	if err == nil {
		err = record(log, args)
	}
	if err == nil && r.name != "" {
		// Its process becomes the container's bwrap: kill kills it.
		err = os.WriteFile(pidFile(log, r.name), []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if err == nil {
		err = r.exec()
	}
	fmt.Fprintln(os.Stderr, "fake docker:", err)
	return 125
}

// pidFile is where the fake records the process of the container
// named name.
func pidFile(log, name string) string {
	return filepath.Join(filepath.Dir(log), "container-"+name+".pid")
}

// kill is `docker kill name`: the container's bwrap is killed, and with
// it (--die-with-parent) its sandbox.
func kill(log, name string) error {
	data, err := os.ReadFile(pidFile(log, name))
	if err != nil {
		return fmt.Errorf("no container %s: %w", name, err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		return fmt.Errorf("the container %s's pid: %w", name, err)
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Kill()
	}
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing the container %s: %w", name, err)
	}
	return nil
}

// fakeRun is what a `docker run` asks for.
type fakeRun struct {
	interactive, remove, init bool
	workdir, user, network    string
	name                      string
	volumes, env              []string
	image                     string
	argv                      []string
}

// parseRun reads docker's arguments, refusing what the sandbox never
// gives.
func parseRun(args []string) (fakeRun, error) {
	var r fakeRun
	if len(args) == 0 || args[0] != "run" {
		return r, fmt.Errorf("only run is faked, not %q", args)
	}
	valued := map[string]*string{"--workdir": &r.workdir, "--user": &r.user, "--network": &r.network, "--name": &r.name}
	listed := map[string]*[]string{"--volume": &r.volumes, "--env": &r.env}
	flags := map[string]*bool{"-i": &r.interactive, "--rm": &r.remove, "--init": &r.init}
	i := 1
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		a := args[i]
		switch {
		case flags[a] != nil:
			*flags[a] = true
		case a == "--runtime=runsc":
		case i+1 < len(args) && valued[a] != nil:
			i++
			*valued[a] = args[i]
		case i+1 < len(args) && listed[a] != nil:
			i++
			*listed[a] = append(*listed[a], args[i])
		default:
			return r, fmt.Errorf("unexpected argument %q", a)
		}
	}
	if i+1 >= len(args) {
		return r, fmt.Errorf("no image and command in %q", args)
	}
	r.image, r.argv = args[i], args[i+1:]
	return r, r.check()
}

func (r fakeRun) check() error {
	if !r.interactive || !r.remove || !r.init {
		return errors.New("a sandbox's run is -i --rm --init")
	}
	if want := strconv.Itoa(os.Getuid()) + ":" + strconv.Itoa(os.Getgid()); r.user != want {
		return fmt.Errorf("--user %q, want %q", r.user, want)
	}
	if r.network != "" && r.network != "none" {
		return fmt.Errorf("--network %q", r.network)
	}
	if !filepath.IsAbs(r.workdir) {
		return fmt.Errorf("--workdir %q", r.workdir)
	}
	return nil
}

func record(log string, args []string) error {
	line, err := json.Marshal(args)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

// exec becomes bwrap running the container's command.
func (r fakeRun) exec() error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return err
	}
	args, err := r.bwrapArgs()
	if err != nil {
		return err
	}
	return syscall.Exec(bwrap, append([]string{"bwrap"}, args...), os.Environ())
}

func (r fakeRun) bwrapArgs() ([]string, error) {
	args := []string{"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"}
	if r.network == "none" {
		args = append(args, "--unshare-net")
	}
	image, err := imageRoot()
	if err != nil {
		return nil, err
	}
	args = append(args, image...)
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run")
	volumes, err := r.mounts()
	if err != nil {
		return nil, err
	}
	// The image's root is not the user's to write, as for a container
	// run as a user other than root.
	args = append(append(args, volumes...), "--remount-ro", "/")
	args = append(args, "--clearenv", "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "--setenv", "HOME", "/")
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	args = append(args, "--chdir", r.workdir, "--")
	return append(args, r.argv...), nil
}

// imageRoot stands the host's top directories, read-only, for the image,
// on bwrap's own root, where a volume may make its mount point (/tmp,
// /proc, /dev and /run are the container's own).
func imageRoot() ([]string, error) {
	entries, err := os.ReadDir("/")
	if err != nil {
		return nil, err
	}
	var args []string
	for _, e := range entries {
		p := "/" + e.Name()
		switch {
		case slices.Contains([]string{"/tmp", "/proc", "/dev", "/run"}, p):
		case e.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return nil, err
			}
			args = append(args, "--symlink", target, p)
		default:
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args, nil
}

// mounts are the volumes as bwrap's binds, shallower first.
func (r fakeRun) mounts() ([]string, error) {
	type volume struct{ src, dst, how string }
	var vs []volume
	for _, v := range r.volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || len(parts) > 3 || !filepath.IsAbs(parts[0]) || !filepath.IsAbs(parts[1]) {
			return nil, fmt.Errorf("--volume %q", v)
		}
		how := "--bind"
		if len(parts) == 3 {
			if parts[2] != "ro" {
				return nil, fmt.Errorf("--volume %q", v)
			}
			how = "--ro-bind"
		}
		vs = append(vs, volume{parts[0], parts[1], how})
	}
	slices.SortStableFunc(vs, func(a, b volume) int { return len(a.dst) - len(b.dst) })
	var args []string
	for _, v := range vs {
		args = append(args, v.how, v.src, v.dst)
	}
	return args, nil
}
