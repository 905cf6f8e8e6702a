package geminils

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// scripts/debs.sh installs only the packages dpkg does not have, all of
// them with one apt-get and under the lock every install here shares, and
// says which; with none missing it runs no apt at all. dpkg-query, flock
// and apt-get are fakes that record how they were called.
func TestDebsInstallsWhatIsMissingUnderTheLock(t *testing.T) {
	platformtest.Tool(t, "bash")
	script, err := filepath.Abs("scripts/debs.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fakes := map[string]string{
		// Installed are the packages $INSTALLED names.
		"dpkg-query": `p=${!#}; case " $INSTALLED " in *" $p "*) printf 'install ok installed';; *) printf 'unknown ok not-installed';; esac`,
		"flock":      `echo "flock $1" >> "$CALLS"; shift; exec "$@"`,
		"apt-get":    `echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> "$CALLS"; [ "$1" != install ] || exit "${APT_EXIT:-0}"`,
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	debs := func(installed, aptExit string, pkgs ...string) (out, recorded string, err error) {
		os.Remove(calls)
		cmd := exec.Command("bash", append([]string{script}, pkgs...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+calls, "INSTALLED="+installed, "APT_EXIT="+aptExit)
		b, err := cmd.CombinedOutput()
		r, _ := os.ReadFile(calls)
		return string(b), string(r), err
	}

	out, recorded, err := debs("zip curl", "0", "zip", "unzip", "curl", "strace")
	want := "flock /var/lock/gemini-ls-apt.lock\n" +
		"apt-get update -qq DEBIAN_FRONTEND=noninteractive\n" +
		"apt-get install -y -qq --no-install-recommends unzip strace DEBIAN_FRONTEND=noninteractive\n"
	if err != nil || recorded != want || out != "debs: apt-get install unzip strace\n" {
		t.Errorf("two of four missing: %v, said %q, ran:\n%s\nwant:\n%s", err, out, recorded, want)
	}

	out, recorded, err = debs("zip curl", "0", "zip", "curl")
	if err != nil || recorded != "" || out != "" {
		t.Errorf("none missing: %v, said %q, ran %q", err, out, recorded)
	}

	if _, _, err = debs("", "100", "zip"); err == nil {
		t.Error("apt-get failing: debs.sh exited 0")
	}
}

// Every install of a Debian package by the build and test scripts goes
// through scripts/debs.sh, so none runs apt beside another (make
// test-editors runs suites at once).
func TestDebsIsTheOneAptInstall(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "build", "dist", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if path == filepath.Join("scripts", "debs.sh") || (d.Name() != "Makefile" && !strings.HasSuffix(path, ".sh")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "apt-get install -y") || strings.Contains(line, "apt-get update") {
				t.Errorf("%s:%d runs apt-get itself; install with scripts/debs.sh: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
