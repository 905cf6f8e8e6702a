package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

// Commands sandboxed in a container run the image's bash, whatever the
// host's shell (PowerShell on Windows), and the model is told bash; with
// no sandbox, or bubblewrap's, they run in the host's own shell.
func TestShellInAContainerIsBash(t *testing.T) {
	bin := t.TempDir()
	docker := filepath.Join(bin, "docker")
	if runtime.GOOS == "windows" {
		docker += ".exe"
	}
	if err := os.WriteFile(docker, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	root := t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Docker, Image: sandbox.DefaultImage, Why: "test"},
		func() []string { return []string{root} }, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	powershell := osshell.Shell{Kind: osshell.PowerShell, Executable: "pwsh.exe", Args: []string{"-NoProfile", "-Command"}}
	if got := shellIn(powershell, sb); got.Kind != osshell.Bash || got.Executable != "bash" {
		t.Errorf("in docker: %+v, want bash", got)
	}
	if got := shellIn(powershell, nil); got.Executable != "pwsh.exe" {
		t.Errorf("unsandboxed: %+v, want the host's", got)
	}
}
