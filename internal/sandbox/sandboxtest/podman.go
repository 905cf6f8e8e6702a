package sandboxtest

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Podman readies, for t, a real podman and an image to run, and returns
// the image's name and the environment a process needs to run podman as
// the test's does: PATH without HideContainerDaemons' stand-ins and, on a
// machine like CI's, CONTAINERS_CONF (podmanWorkarounds). Both are also
// set in t's own environment.
//
// The image holds Debian's static busybox, its programs linked to it, and
// its static bash at /bin/bash alone: no C library of the host, no
// /usr/bin/bash, so that a test shows what gemini-ls runs in a container
// is found and run there, not on the host.
func Podman(t *testing.T) (image string, env []string) {
	t.Helper()
	path := RealPath()
	env = []string{"PATH=" + path}
	t.Setenv("PATH", path)
	podman, err := exec.LookPath("podman")
	if err != nil {
		need(t, fmt.Errorf("the test runs podman (apt-get install podman crun catatonit): %w", err))
	}
	// What env holds is set in this process's environment, which podman
	// inherits.
	run := podmanRunner(func(args ...string) *exec.Cmd { return boundedCommand(t, CommandTimeout, podman, args...) })
	if out, err := run(nil, "info"); err != nil {
		need(t, fmt.Errorf("podman does not answer `podman info`: %v\n%s", err, out))
	}
	image, err = testImage(run)
	if err != nil {
		need(t, err)
	}
	firstContainer(t, "podman", run, t.TempDir(), func(conf string) {
		env = append(env, "CONTAINERS_CONF="+conf)
		t.Setenv("CONTAINERS_CONF", conf)
	}, "run", "--rm", image, "true")
	return image, env
}

// runner runs podman with args, stdin its input: what it printed, on
// either output.
type runner func(stdin []byte, args ...string) (string, error)

// podmanRunner is the runner of the podman commands command makes.
func podmanRunner(command func(args ...string) *exec.Cmd) runner {
	return func(stdin []byte, args ...string) (string, error) {
		cmd := command(args...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// firstContainer has run run the container probe names. Where it fails,
// as on a machine like CI's, it writes podman's workarounds in dir,
// hands their file to use (which sets CONTAINERS_CONF for podman) and
// runs it again; it stops t, saying which podman (what), unless one ran.
func firstContainer(t *testing.T, what string, run runner, dir string, use func(conf string), probe ...string) {
	t.Helper()
	out, err := run(nil, probe...)
	if t.Failed() {
		// The probe did not end (boundedCommand): no workaround helps.
		t.FailNow()
	}
	if err != nil {
		conf, werr := writePodmanWorkarounds(dir)
		if werr != nil {
			t.Fatal(werr)
		}
		use(conf)
		out, err = run(nil, probe...)
	}
	if err != nil {
		need(t, fmt.Errorf("%s cannot run a container here: %v\n%s", what, err, out))
	}
}

// testImage is the name of the test image, imported into podman's store
// unless there already: named by what it holds, so that tests running
// side by side and one after another share it.
func testImage(run runner) (string, error) {
	const busybox, bash = "/bin/busybox", "/bin/bash-static"
	sum := sha256.New()
	files := map[string][]byte{}
	for _, p := range []string{busybox, bash} {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("the test image needs Debian's %s (apt-get install busybox-static bash-static): %w", p, err)
		}
		sum.Write(data)
		files[p] = data
	}
	image := "localhost/gemini-ls-sandbox-test:" + hex.EncodeToString(sum.Sum(nil))[:16]
	if _, err := run(nil, "image", "exists", image); err == nil {
		return image, nil
	}
	applets, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		return "", fmt.Errorf("listing busybox's programs: %w", err)
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	now := time.Now()
	add := func(h *tar.Header, data []byte) {
		h.ModTime, h.Size, h.Format = now, int64(len(data)), tar.FormatPAX
		if err == nil {
			err = tw.WriteHeader(h)
		}
		if err == nil && len(data) > 0 {
			_, err = tw.Write(data)
		}
	}
	for _, dir := range []string{"bin", "dev", "etc", "proc", "root", "sys"} {
		add(&tar.Header{Name: dir + "/", Typeflag: tar.TypeDir, Mode: 0o755}, nil)
	}
	add(&tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}, nil)
	add(&tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644}, []byte("root:x:0:0:root:/root:/bin/sh\n"))
	add(&tar.Header{Name: "bin/busybox", Typeflag: tar.TypeReg, Mode: 0o755}, files[busybox])
	add(&tar.Header{Name: "bin/bash", Typeflag: tar.TypeReg, Mode: 0o755}, files[bash])
	for _, name := range strings.Fields(string(applets)) {
		if name != "busybox" && name != "bash" {
			add(&tar.Header{Name: "bin/" + name, Typeflag: tar.TypeSymlink, Linkname: "busybox", Mode: 0o777}, nil)
		}
	}
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return "", fmt.Errorf("making the test image: %w", err)
	}
	if out, err := run(layer.Bytes(), "import", "--change", "ENV PATH=/usr/local/bin:/usr/bin:/bin", "-", image); err != nil {
		return "", fmt.Errorf("importing the test image: %v\n%s", err, out)
	}
	return image, nil
}

// writePodmanWorkarounds writes, in dir, a containers.conf for a
// machine where podman cannot run a container as it is, like CI's: root
// without CAP_SYS_RESOURCE, so that crun cannot set the container's
// limits; cgroup v2 mounted beside v1 with a controller (a hybrid
// hierarchy), which crun refuses; or no cgroup file system at all (the
// bare root editors/clean-machine.sh makes), whose type crun reads even
// without cgroups. It runs containers without cgroups through a crun
// that drops the OCI configuration's rlimits and sees, at
// /sys/fs/cgroup, v1 alone or an empty tmpfs (the tmpfs too where the
// hybrid mount cannot be unmounted: rootless, in podman's user
// namespace, it is locked). None of that is part of
// what the sandbox's policy asks of a container (its mounts, user,
// network, init, environment).
func writePodmanWorkarounds(dir string) (conf string, err error) {
	crun, err := exec.LookPath("crun")
	if err != nil {
		return "", fmt.Errorf("podman's workarounds need crun: %w", err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	// The name crun is what podman lets run without cgroups.
	wrapper := `#!/bin/sh
bundle=
prev=
for a in "$@"; do
  [ "$prev" = --bundle ] && bundle=$a
  case $a in --bundle=*) bundle=${a#--bundle=};; esac
  prev=$a
done
if [ -n "$bundle" ] && [ -f "$bundle/config.json" ]; then
  python3 -c 'import json,sys;p=sys.argv[1];c=json.load(open(p));c["process"].pop("rlimits",None);json.dump(c,open(p,"w"))' "$bundle/config.json" || exit 1
fi
exec unshare -m /bin/sh -c '
umount /sys/fs/cgroup/unified 2>/dev/null
if grep -q " /sys/fs/cgroup/unified " /proc/self/mountinfo || ! grep -q " /sys/fs/cgroup " /proc/self/mountinfo; then
  mount -t tmpfs none /sys/fs/cgroup
fi
exec "$0" "$@"' ` + shellQuote(crun) + ` "$@"
`
	if err := os.WriteFile(filepath.Join(bin, "crun"), []byte(wrapper), 0o755); err != nil {
		return "", err
	}
	conf = filepath.Join(dir, "containers.conf")
	text := fmt.Sprintf("[containers]\ncgroups = \"disabled\"\n[engine]\nruntime = \"crun\"\n[engine.runtimes]\ncrun = [%q]\n", filepath.Join(bin, "crun"))
	return conf, os.WriteFile(conf, []byte(text), 0o644)
}

// noDaemonsDir names the directory HideContainerDaemons puts first on
// PATH.
const noDaemonsDir = "gemini-ls-test-no-container-daemon"

// HideContainerDaemons puts first on this process's PATH a docker and a
// podman that answer nothing: tests that mean the machine's default
// sandbox (--sandbox, GEMINI_SANDBOX=true) then get bubblewrap wherever
// they run, as on a machine without a container daemon, even where
// docker or podman answers (the sandbox's tests install podman). A test
// of a real podman takes it back with Podman. For a TestMain.
func HideContainerDaemons() error {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("%s-%d", noDaemonsDir, os.Getuid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stub := "#!/bin/sh\necho \"$0: no daemon answers in gemini-ls's tests (sandboxtest.HideContainerDaemons)\" >&2\nexit 1\n"
	for _, name := range []string{"docker", "podman"} {
		tmp := filepath.Join(dir, name+".new")
		if err := os.WriteFile(tmp, []byte(stub), 0o755); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// RealPath is PATH without HideContainerDaemons' directory.
func RealPath() string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return strings.HasPrefix(filepath.Base(d), noDaemonsDir) })
	return strings.Join(dirs, string(os.PathListSeparator))
}
