package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// A container sees the host's paths where Docker Desktop mounts them:
// at their own path, and on Windows with the drive as a directory (0.61's
// getContainerPath).
func TestContainerPath(t *testing.T) {
	for _, c := range []struct{ goos, host, want string }{
		{"windows", `C:\Users\me\ws`, "/c/Users/me/ws"},
		{"windows", `d:/src/x`, "/d/src/x"},
		{"windows", `C:\`, "/c/"},
		{"windows", `\\server\share\x`, "//server/share/x"},
		{"windows", "/already/posix", "/already/posix"},
		{"linux", "/home/me/ws", "/home/me/ws"},
		{"darwin", "/Users/me/ws", "/Users/me/ws"},
	} {
		if got := containerPath(c.goos, c.host); got != c.want {
			t.Errorf("containerPath(%s, %q) = %q, want %q", c.goos, c.host, got, c.want)
		}
	}
}

// A command wrapped for docker on this machine: the program the image's
// (bash, which the host need not have: Windows), the workspace and its
// protections mounted where the container sees the host's paths, a
// masked .env over the engine's /dev/null, and --user only where the host
// has uids (not Windows). The Windows test run checks Windows' side.
func TestContainerRunsWhereTheHostsPathsAre(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("K=V"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := &Sandbox{cfg: Config{Command: Docker, Image: DefaultImage}, roots: func() []string { return []string{root} },
		tool: "/usr/bin/docker"}
	cmd := exec.Command("bash", "-c", "true")
	cmd.Dir = root
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Err != nil {
		t.Errorf("the wrapped command keeps the host's lookup error: %v", cmd.Err)
	}
	flags := map[string][]string{}
	for i, a := range cmd.Args[:len(cmd.Args)-1] {
		if strings.HasPrefix(a, "--") {
			flags[a] = append(flags[a], cmd.Args[i+1])
		}
	}
	if got := cmd.Args[len(cmd.Args)-3:]; !slices.Equal(got, []string{"bash", "-c", "true"}) {
		t.Errorf("the container runs %q, want bash -c true", got)
	}
	want := root
	if runtime.GOOS == "windows" {
		want = "/" + strings.ToLower(root[:1]) + filepath.ToSlash(root[2:])
	}
	if !slices.Equal(flags["--workdir"], []string{want}) {
		t.Errorf("--workdir %q, want %q", flags["--workdir"], want)
	}
	if users := flags["--user"]; (len(users) == 1) != (runtime.GOOS != "windows") {
		t.Errorf("--user %q on %s", users, runtime.GOOS)
	}
	var masked bool
	for _, v := range flags["--volume"] {
		v = strings.TrimSuffix(v, ":ro")
		i := strings.LastIndex(v, ":/")
		src, dest := v[:max(i, 0)], v[i+1:]
		if i < 0 || strings.ContainsAny(dest, `\:`) || !strings.HasPrefix(dest, want) {
			t.Errorf("--volume %s: not a container path under %s", v, want)
		}
		if dest == want+"/.env" {
			masked = src == "/dev/null"
		}
	}
	if !masked {
		t.Errorf("the .env is not masked by /dev/null: %q", flags["--volume"])
	}
}

// A Windows path's drive letter in SANDBOX_MOUNTS is no separator; TO is
// the container's path, a POSIX one. Off Windows such a path is not
// absolute, and refused.
func TestParseMountsWithADriveLetter(t *testing.T) {
	got, err := parseMounts(`C:\data:/in/data, D:\cache::rw, E:\x`)
	if runtime.GOOS != "windows" {
		if err == nil {
			t.Errorf("off Windows, a drive letter's path was taken: %v", got)
		}
		return
	}
	want := []Mount{{`C:\data`, "/in/data", "ro"}, {`D:\cache`, `D:\cache`, "rw"}, {`E:\x`, `E:\x`, "ro"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseMounts = %v, %v; want %v", got, err, want)
	}
	if _, err := parseMounts(`C:\data:D:\in`); err == nil {
		t.Error("a Windows path as the container's was taken")
	}
}
