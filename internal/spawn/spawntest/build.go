package spawntest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// HTTPServer builds the httpserver command into a directory of t's and
// returns its path: a server that runs until killed, printing "Serving
// HTTP on 127.0.0.1 port N" once it listens. Tests start it in place of
// python3's http.server, which a machine need not have.
func HTTPServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "httpserver"+exeSuffix())
	build := exec.Command("go", "build", "-o", bin, "github.com/gemini-ls/gemini-ls/internal/spawn/spawntest/httpserver")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test HTTP server: %v\n%s", err, out)
	}
	return bin
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
