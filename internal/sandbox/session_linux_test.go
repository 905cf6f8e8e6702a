package sandbox

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
)

// eachBackend runs f for each backend a persistent sandbox has:
// bubblewrap, and docker through sandboxtest's fake (podman's run is
// docker's).
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	for _, backend := range []string{Bubblewrap, Docker} {
		t.Run(backend, func(t *testing.T) { f(t, backend) })
	}
}

// configFor is the sandbox of backend for a test, the fake docker put on
// PATH for docker.
func configFor(t *testing.T, backend string) Config {
	t.Helper()
	if backend == Bubblewrap {
		sandboxtest.NeedBubblewrap(t)
		return Config{Command: Bubblewrap, Why: "the test"}
	}
	sandboxtest.FakeDocker(t)
	return Config{Command: backend, Image: "gemini-ls-test-image", Why: "the test"}
}

// sessionFor is a persistent sandbox of backend over a fresh workspace
// and home, whose supervisor is this test binary (TestMain).
func sessionFor(t *testing.T, backend string) (se *Session, root, home string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	return sessionOf(t, configFor(t, backend), func() []string { return []string{root} }, home), root, home
}

func sessionOf(t *testing.T, cfg Config, roots func() []string, home string) *Session {
	t.Helper()
	sb, err := New(cfg, roots, home, "")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	se, err := sb.NewSession(self, SupervisorArg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { se.Close() })
	return se
}

// sh runs script through bash in the session, in root, and returns its
// combined output.
func sh(t *testing.T, ctx context.Context, se *Session, root, script string) (string, Exit, error) {
	t.Helper()
	var out bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	exit, err := se.Run(ctx, Command{Args: []string{"bash", "-c", script}, Dir: root, Stdout: w, Stderr: w})
	mu.Lock()
	defer mu.Unlock()
	return out.String(), exit, err
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func mustSh(t *testing.T, se *Session, root, script string) string {
	t.Helper()
	out, exit, err := sh(t, t.Context(), se, root, script)
	if err != nil || exit.Code != 0 {
		t.Fatalf("%s: %v %+v %q", script, err, exit, out)
	}
	return out
}

func TestSessionKeepsThePolicy(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, home := sessionFor(t, backend)
		if err := os.WriteFile(filepath.Join(root, ".env"), []byte("KEY=secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := mustSh(t, se, root, `
echo "sandbox=$SANDBOX"
touch ok && echo wrote root
touch "$HOME/x" 2>/dev/null || echo home read-only
cat .env 2>/dev/null | grep -q secret || echo env masked
cat </dev/stdin | wc -c
ls /run | wc -l`)
		for _, want := range []string{"sandbox=gemini-ls-" + backend, "wrote root", "home read-only", "env masked"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in %q", want, out)
			}
		}
		if _, err := os.Stat(filepath.Join(home, "x")); err == nil {
			t.Error("the home was written")
		}
	})
}

func TestSessionIsolatesCommands(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		mustSh(t, se, root, `export LEAK=1; cd /; echo x > /tmp/mine; echo x > /dev/shm/mine`)
		out := mustSh(t, se, root, `echo "leak=${LEAK-none} pwd=$PWD"; ls /tmp/mine /dev/shm/mine 2>/dev/null | wc -l`)
		if want := "leak=none pwd=" + root + "\n0\n"; out != want {
			t.Errorf("the second command saw %q, want %q", out, want)
		}
	})
}

// A program named without a path is found inside, on the PATH of the
// command's environment, as the sandbox's own exec would find it: a
// container's programs are not where the host's are (an image's bash may
// be /bin/bash alone).
func TestSessionFindsTheProgramOnTheCommandsPath(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		bin := filepath.Join(root, "bin")
		if err := os.Mkdir(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "only-here"), []byte("#!/bin/sh\necho found \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		run := func(path string) (string, error) {
			var out bytes.Buffer
			exit, err := se.Run(t.Context(), Command{
				Args: []string{"only-here", "it"}, Dir: root,
				Env:    append(os.Environ(), "PATH="+path),
				Stdout: &out, Stderr: &out,
			})
			if err == nil && exit.Code != 0 {
				t.Errorf("only-here: %+v %q", exit, out.String())
			}
			return out.String(), err
		}
		if out := mustSh(t, se, root, `echo "$0"`); out != "bash\n" {
			t.Errorf("bash in the session calls itself %q, want bash", out)
		}
		if out, err := run("/usr/bin:" + bin + ":/bin"); err != nil || out != "found it\n" {
			t.Errorf("on the command's PATH: %v %q, want it found", err, out)
		}
		if _, err := run("bin:/usr/bin:/bin"); err == nil || !strings.Contains(err.Error(), "executable file not found") {
			t.Errorf("on a relative PATH entry only: %v, want it not found", err)
		}
		// The supervisor works in /: "usr/bin" would name /usr/bin there,
		// and is skipped all the same.
		_, err := se.Run(t.Context(), Command{Args: []string{"true"}, Dir: root, Env: append(os.Environ(), "PATH=usr/bin:bin")})
		if err == nil || !strings.Contains(err.Error(), "executable file not found") {
			t.Errorf("true on relative PATH entries only: %v, want it not found", err)
		}
	})
}

// A repository's program does not stand in for the one asked for: with
// "." on PATH, a bash planted in the workspace is not what runs under
// bubblewrap, whose execvp, given the name, would take it. A bwrap of its
// own runs what exec.Command found (Go refuses a relative entry's
// program); the session runs that too, and its supervisor, given a bare
// name, skips a relative entry.
func TestBubblewrapRunsNoProgramPlantedOnARelativePath(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	t.Setenv("PATH", ".:"+os.Getenv("PATH"))
	root, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "bash"), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Command: Bubblewrap, Why: "the test"}
	sb, err := New(cfg, func() []string { return []string{root} }, home, "")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, sb, root, "echo real"); err != nil || out != "real\n" {
		t.Errorf("a bwrap of its own ran %q (%v), want bash", out, err)
	}
	se := sessionOf(t, cfg, func() []string { return []string{root} }, home)
	found := exec.Command("bash")
	for _, path := range []string{found.Path, ""} {
		var out bytes.Buffer
		_, err := se.Run(t.Context(), Command{Args: []string{"bash", "-c", "echo real"}, Path: path, Dir: root, Stdout: &out, Stderr: &out})
		if err != nil || out.String() != "real\n" {
			t.Errorf("the session, given the path %q, ran %q (%v), want bash", path, out.String(), err)
		}
	}
}

// The supervisor holds capabilities under bwrap; a command must have
// none, or it could unmount what the sandbox mounts read-only. (In a
// container the supervisor holds none but its user's, as does a
// container per command.)
func TestSessionCommandsHaveNoCapabilities(t *testing.T) {
	se, root, _ := sessionFor(t, Bubblewrap)
	mustSh(t, se, root, `git init -q . 2>/dev/null || mkdir -p .git`)
	out := mustSh(t, se, root, `grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status | tr -d '\t'
umount /tmp 2>/dev/null && echo unmounted /tmp
mount -o remount,rw "$PWD/.git/config" 2>/dev/null && echo remounted; true`)
	want := "CapInh:0000000000000000\nCapPrm:0000000000000000\nCapEff:0000000000000000\nCapBnd:0000000000000000\nCapAmb:0000000000000000\n"
	if out != want {
		t.Errorf("a command's capabilities: %q, want %q", out, want)
	}
}

func TestSessionEndsBackgroundChildren(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		// The second waits for setsid to have left the command's group
		// (its session is its own pid), or the group's kill would end it.
		pids := strings.Fields(mustSh(t, se, root, `sleep 100 & echo $!; setsid sleep 100 & p=$!; echo $p
until [ "$(cut -d' ' -f6 /proc/$p/stat 2>/dev/null)" = "$p" ]; do sleep 0.01; done`))
		if len(pids) != 2 {
			t.Fatalf("pids %q", pids)
		}
		// Killed is gone or a zombie awaiting the sandbox's init; SIGKILL
		// lands at once but the exit may take a moment.
		out := mustSh(t, se, root, `for i in $(seq 50); do
  alive=
  for p in `+strings.Join(pids, " ")+`; do
    grep -qs '^State:[[:space:]]*[^Z[:space:]]' /proc/$p/status && alive="$alive $p"
  done
  [ -z "$alive" ] && break
  sleep 0.02
done
[ -n "$alive" ] && echo "alive:$alive"; true`)
		if out != "" {
			t.Errorf("a command's children outlived it: %q", out)
		}
	})
}

func TestSessionKillsACommandAtItsDeadline(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, exit, err := sh(t, ctx, se, root, `sleep 100`)
		if err != nil || exit.Signal != "SIGKILL" {
			t.Fatalf("killed command: %v %+v", err, exit)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the kill took %v", d)
		}
		if out := mustSh(t, se, root, `echo next`); out != "next\n" {
			t.Errorf("next command: %q", out)
		}
	})
}

func TestSessionRestartsAKilledSandbox(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		mustSh(t, se, root, `true`)
		first := se.box
		running := make(chan error, 1)
		go func() {
			_, _, err := sh(t, context.Background(), se, root, `sleep 100`)
			running <- err
		}()
		time.Sleep(200 * time.Millisecond)
		if err := first.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-running:
			if err == nil {
				t.Error("a command of a killed sandbox ended without an error")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a command of a killed sandbox still runs")
		}
		if out := mustSh(t, se, root, `echo again`); out != "again\n" {
			t.Errorf("after the kill: %q", out)
		}
		if se.box == first {
			t.Error("the killed sandbox was not replaced")
		}
	})
}

func TestSessionRestartsWhenThePolicyChanges(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		root, other, home := t.TempDir(), t.TempDir(), t.TempDir()
		var mu sync.Mutex
		roots := []string{root}
		se := sessionOf(t, configFor(t, backend), func() []string {
			mu.Lock()
			defer mu.Unlock()
			return roots
		}, home)
		if _, _, err := sh(t, t.Context(), se, root, `touch `+other+`/x`); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(other, "x")); err == nil {
			t.Fatal("wrote outside the roots")
		}
		mu.Lock()
		roots = []string{root, other}
		mu.Unlock()
		mustSh(t, se, root, `touch `+other+`/x`)

		// A .env file made since: it is masked before the next command, by
		// a new sandbox.
		before := se.box
		mustSh(t, se, root, `echo KEY=secret > .env`)
		out, _, _ := sh(t, t.Context(), se, root, `cat .env 2>/dev/null || echo masked`)
		if out != "masked\n" {
			t.Errorf("a .env file made since the start was readable: %q", out)
		}
		if se.box == before {
			t.Error("the sandbox was not restarted for the new .env file")
		}
	})
}

func TestSessionRunsOnceMoreWhenTheSandboxCannotBeReached(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		mustSh(t, se, root, `true`)
		first := se.box
		// As when the sandbox died and its end is not read yet: the command
		// cannot be written, so it never ran, and runs in a new sandbox.
		first.req.Close()
		if out := mustSh(t, se, root, `echo again`); out != "again\n" {
			t.Errorf("after the sandbox's loss: %q", out)
		}
		if se.box == first {
			t.Error("the lost sandbox was not replaced")
		}
	})
}

// Outside its sandbox the supervisor would kill every process it may
// signal at a command's end: it refuses to start, under either name.
func TestSuperviseRefusesToRunOutsideTheSandbox(t *testing.T) {
	for _, args := range [][]string{nil, {containerArg}} {
		if err := Supervise(t.Context(), strings.NewReader(""), io.Discard, args...); err == nil {
			t.Fatalf("the supervisor ran outside its sandbox, given %q", args)
		}
	}
}

// This test process has a parent other than an init and neighbours: it
// is no sandbox's first process. Where the init started it, a neighbour
// is enough to refuse.
func TestFirstInItsPidNamespaceIsNotTheHost(t *testing.T) {
	if firstInItsPidNamespace() {
		t.Fatal("a test process passed for the first of a sandbox's pid namespace")
	}
	if aloneWithInit("/proc", os.Getpid()) {
		t.Error("the host's /proc passed for a sandbox's")
	}
	proc := t.TempDir()
	for _, name := range []string{"1", "7", "self", "sys"} {
		if err := os.Mkdir(filepath.Join(proc, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if !aloneWithInit(proc, 7) {
		t.Error("a pid namespace of init and the supervisor (pid 7) was refused")
	}
	if aloneWithInit(proc, 8) {
		t.Error("a pid namespace holding another process was taken for the supervisor's alone")
	}
}

func TestSessionCloseEndsTheSandbox(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		mustSh(t, se, root, `true`)
		b := se.box
		se.Close()
		select {
		case <-b.done:
		case <-time.After(10 * time.Second):
			t.Fatal("the sandbox outlived its session")
		}
	})
}

func TestSessionSeparatesAndKeepsOutput(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		var stdout, stderr bytes.Buffer
		exit, err := se.Run(t.Context(), Command{Args: []string{"bash", "-c", `head -c 300000 /dev/zero; echo oops >&2; exit 3`}, Dir: root, Stdout: &stdout, Stderr: &stderr})
		if err != nil || exit.Code != 3 {
			t.Fatalf("%v %+v", err, exit)
		}
		if stdout.Len() != 300000 || stderr.String() != "oops\n" {
			t.Errorf("stdout %d bytes, stderr %q", stdout.Len(), stderr.String())
		}
	})
}

// A context ended before the command runs: the kill reaches the
// supervisor before the command is entered, and still kills it.
func TestSessionKillsACommandWhoseContextEndedFirst(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		mustSh(t, se, root, `true`)
		for range 5 {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			done := make(chan Exit, 1)
			go func() {
				_, exit, _ := sh(t, ctx, se, root, `sleep 100`)
				done <- exit
			}()
			select {
			case exit := <-done:
				if exit.Signal != "SIGKILL" {
					t.Errorf("exit %+v", exit)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a command whose context had ended was not killed")
			}
		}
	})
}

// A .env a command made where gemini-ls's next start would read it is
// moved aside before the next command runs, in a session as through
// Wrap, whoever then asks TakeBack.
func TestSandboxMovesAPlantedEnvBeforeTheNextCommand(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		root, home := t.TempDir(), t.TempDir()
		cfg := configFor(t, backend)
		cfg.StartupFiles = []string{filepath.Join(root, ".env")}
		se := sessionOf(t, cfg, func() []string { return []string{root} }, home)
		mustSh(t, se, root, "echo GEMINI_SANDBOX=false > .env")
		if out := mustSh(t, se, root, "ls -a"); strings.Contains(out, ".env\n") || !strings.Contains(out, ".env"+MadeSuffix) {
			t.Errorf("in the session, the next command sees:\n%s", out)
		}
		if _, err := run(t, se.sb, root, "echo GEMINI_SANDBOX=false > .env"); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, se.sb, root, "ls -a"); err != nil || strings.Contains(out, ".env\n") || !strings.Contains(out, ".env"+MadeSuffix+"-2") {
			t.Errorf("through Wrap, the next command sees: %v\n%s", err, out)
		}
		if said := se.sb.TakeBack(); strings.Count(said, "was made while commands ran in the sandbox") != 2 {
			t.Errorf("TakeBack = %q", said)
		}
	})
}

// Before a command runs, in the session or through Wrap, the sandbox's
// window is on the trail: what the command writes below the root is
// found, a live window while the sandbox lives and a closed one after
// Close; the root's own .gemini is not. A trail that cannot be written
// runs no command.
func TestSandboxKeepsItsTrailBeforeACommandRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		root, home := t.TempDir(), t.TempDir()
		cfg := configFor(t, backend)
		cfg.Trail = sandboxtrail.At(filepath.Join(t.TempDir(), "trail"))
		se := sessionOf(t, cfg, func() []string { return []string{root} }, home)
		found := func(folder string) []string {
			t.Helper()
			fs, err := cfg.Trail.Changed(t.Context(), folder, []string{filepath.Join(folder, ".env")})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range fs {
				out = append(out, strings.TrimPrefix(f.File, folder+"/"))
			}
			return out
		}
		mustSh(t, se, root, `mkdir -p app/.gemini && echo '{"hooks": {}}' > app/.gemini/settings.json`)
		ws, err := cfg.Trail.Windows(t.Context(), time.Now())
		if err != nil || len(ws) != 1 || ws[0].To != 0 {
			t.Fatalf("after a command in the session, the windows: %+v, %v; want one, open", ws, err)
		}
		// Wrap keeps its own; a fresh sandbox's first command is its.
		wrapped, err := New(Config{Command: cfg.Command, Image: cfg.Image, Why: cfg.Why, Trail: sandboxtrail.At(filepath.Join(t.TempDir(), "trail"))},
			func() []string { return []string{root} }, home, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run(t, wrapped, root, "echo GEMINI_SANDBOX=false > app/.env"); err != nil {
			t.Fatal(err)
		}
		if ws, err := wrapped.cfg.Trail.Windows(t.Context(), time.Now()); err != nil || len(ws) != 1 || ws[0].To != 0 {
			t.Fatalf("after a command through Wrap, the windows: %+v, %v; want one, open", ws, err)
		}
		wrapped.Close()
		if _, err := run(t, se.sb, root, "true"); err != nil {
			t.Fatal(err)
		}
		if ws, err := cfg.Trail.Windows(t.Context(), time.Now()); err != nil || len(ws) != 1 {
			t.Fatalf("a command through Wrap of a sandbox whose session has a window opened another: %+v, %v", ws, err)
		}
		app := filepath.Join(root, "app")
		want := []string{".env", ".gemini/settings.json", ".gemini"}
		if got := found(app); !slices.Equal(got, want) {
			t.Errorf("found %q in the folder below the root, want %q", got, want)
		}
		if err := se.sb.Close(); err != nil {
			t.Fatal(err)
		}
		if ws, err := cfg.Trail.Windows(t.Context(), time.Now()); err != nil || len(ws) != 1 || ws[0].To == 0 {
			t.Errorf("after Close, its windows: %+v, %v; want one, closed", ws, err)
		}
		if got := found(app); !slices.Equal(got, want) {
			t.Errorf("after Close, found %q, want %q", got, want)
		}
		if got := found(root); len(got) != 0 {
			t.Errorf("found %q in the root itself", got)
		}
	})
}

func TestACommandIsNotRunOffTheTrail(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	root, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := Config{Command: Bubblewrap, Why: "the test", Trail: sandboxtrail.At(filepath.Join(state, "trail"))}
	if err := os.WriteFile(filepath.Join(state, "trail"), nil, 0o600); err != nil { // a file where the directory goes
		t.Fatal(err)
	}
	se := sessionOf(t, cfg, func() []string { return []string{root} }, home)
	if _, _, err := sh(t, t.Context(), se, root, "touch ran"); err == nil || !strings.Contains(err.Error(), "recording a sandbox's writable paths") {
		t.Errorf("in the session, off the trail: %v", err)
	}
	cmd := exec.Command("touch", "ran")
	cmd.Dir = root
	if err := se.sb.Wrap(cmd); err == nil {
		t.Error("Wrap, off the trail, did not refuse")
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); !os.IsNotExist(err) {
		t.Errorf("a command ran off the trail: %v", err)
	}
}

// Where a command could write gemini-ls's records of what sandboxes may
// do (here the root holds the state directory, as when the home
// directory is a root), they are read-only in the sandbox: a command can
// neither erase the trail nor the watched start-up files' records.
func TestACommandCannotEraseTheTrail(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		root, home := t.TempDir(), t.TempDir()
		state := filepath.Join(root, ".local", "state", "gemini-ls")
		cfg := configFor(t, backend)
		cfg.Trail = sandboxtrail.At(filepath.Join(state, "sandbox-trail"))
		cfg.WatchDir = filepath.Join(state, "sandbox-watch")
		se := sessionOf(t, cfg, func() []string { return []string{root} }, home)
		out, _, err := sh(t, t.Context(), se, root, "rm -rf .local/state/gemini-ls/sandbox-trail .local/state/gemini-ls/sandbox-watch 2>&1; touch .local/state/gemini-ls/sandbox-trail/x .local/state/gemini-ls/sandbox-watch/x 2>&1; echo done")
		if err != nil || !strings.Contains(out, "done") {
			t.Fatalf("the command: %v\n%s", err, out)
		}
		ws, err := cfg.Trail.Windows(t.Context(), time.Now())
		if err != nil || len(ws) != 1 {
			t.Errorf("after the command, the trail's windows: %+v, %v; want its own", ws, err)
		}
		for _, p := range []string{filepath.Join(state, "sandbox-trail", "x"), filepath.Join(state, "sandbox-watch", "x")} {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("the command wrote %s: %v", p, err)
			}
		}
	})
}
