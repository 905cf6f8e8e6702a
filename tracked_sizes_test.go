package geminils

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// .ci/tracked-sizes, run by make lint and so by CI, fails on a tracked file
// over 1 MiB unless .ci/large-files lists it, and passes on this repository.
func TestTrackedSizes(t *testing.T) {
	platformtest.Tool(t, "git")  // to list the tracked files
	platformtest.Tool(t, "bash") // .ci/tracked-sizes is a bash script
	script, err := filepath.Abs(".ci/tracked-sizes")
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command("bash", script, dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}

	if _, err := os.Stat(".git"); err == nil {
		if out, err := run("."); err != nil {
			t.Errorf("this repository fails the check: %v\n%s", err, out)
		}
	}

	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.txt", []byte("hi\n"))
	write("exactly-1MiB.bin", make([]byte, 1<<20))
	git("add", ".")
	git("commit", "-qm", "small")
	if out, err := run(repo); err != nil {
		t.Fatalf("a repository of files up to 1 MiB fails: %v\n%s", err, out)
	}

	write("cmd/tool/tool", make([]byte, 2<<20))
	write("untracked.bin", make([]byte, 2<<20))
	git("add", "cmd/tool/tool")
	out, err := run(repo)
	if err == nil {
		t.Fatal("a tracked 2 MiB file passed the check")
	}
	if !strings.Contains(out, "cmd/tool/tool is 2097152 bytes") {
		t.Errorf("the refusal does not name the file and its size:\n%s", out)
	}
	if strings.Contains(out, "untracked.bin") {
		t.Errorf("an untracked file was checked:\n%s", out)
	}

	write(".ci/large-files", []byte("# why: a fixture\ncmd/tool/tool  # trailing words\n"))
	if out, err := run(repo); err != nil {
		t.Errorf("a file listed in .ci/large-files is refused: %v\n%s", err, out)
	}
}
