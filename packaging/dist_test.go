package packaging

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// repoRoot is the checkout's top: go test runs in this package's folder.
const repoRoot = ".."

// repository is where releases are published: go.mod's module path.
const repository = "https://github.com/gemini-ls/gemini-ls"

// platform is one server archive that make dist builds.
type platform struct {
	goos, goarch string
}

// archive is the file name scripts/dist.sh gives the platform's archive.
func (p platform) archive() string {
	if p.goos == "windows" {
		return "gemini-ls-" + p.goos + "-" + p.goarch + ".zip"
	}
	return "gemini-ls-" + p.goos + "-" + p.goarch + ".tar.gz"
}

// exe is the server's name inside the archive, at its top.
func (p platform) exe() string {
	if p.goos == "windows" {
		return "gemini-ls.exe"
	}
	return "gemini-ls"
}

// releaseURL is the platform's archive on the GitHub release of version.
func (p platform) releaseURL(version string) string {
	return repository + "/releases/download/v" + version + "/" + p.archive()
}

// distPlatforms reads the platforms scripts/dist.sh builds, and fails the
// test if the script no longer names its archives and their contents as
// archive and exe do: the registry files would then point at nothing.
func distPlatforms(t *testing.T) []platform {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "dist.sh"))
	if err != nil {
		t.Fatalf("reading make dist's script: %v", err)
	}
	for _, naming := range []string{
		`exe=gemini-ls`,
		`[[ $goos == windows ]] && exe=gemini-ls.exe`,
		`zip -qX "$dist/gemini-ls-$goos-$goarch.zip" "$exe"`,
		`-cf - "$exe" LICENSE README.md |`,
		`>"$dist/gemini-ls-$goos-$goarch.tar.gz"`,
	} {
		if !bytes.Contains(script, []byte(naming)) {
			t.Fatalf("scripts/dist.sh no longer has %q: the archives' names or layout changed, so change packaging/'s files and this test with them", naming)
		}
	}
	list := regexp.MustCompile(`(?s)\nplatforms=\((.*?)\)`).FindSubmatch(script)
	if list == nil {
		t.Fatal("scripts/dist.sh has no platforms=(...) list")
	}
	var ps []platform
	for _, m := range regexp.MustCompile(`(\w+)/(\w+)=`).FindAllSubmatch(list[1], -1) {
		ps = append(ps, platform{goos: string(m[1]), goarch: string(m[2])})
	}
	if len(ps) == 0 {
		t.Fatal("scripts/dist.sh's platforms list names no GOOS/GOARCH")
	}
	return ps
}

// releaseVersion is X.Y.Z of the version a build of this checkout
// reports (the one version source, whatever stamps it): "0.1.0-dev" is
// on its way to 0.1.0, whose release the registry files name.
func releaseVersion(t *testing.T, reported string) string {
	t.Helper()
	m := regexp.MustCompile(`^(\d+\.\d+\.\d+)(?:[-+].*)?$`).FindStringSubmatch(reported)
	if m == nil {
		t.Fatalf("the server reports version %q, not X.Y.Z with an optional -suffix", reported)
	}
	return m[1]
}

// buildServer builds cmd/gemini-ls as make build does, into a temporary
// folder, and returns its path.
func buildServer(t *testing.T) string {
	t.Helper()
	// One built already where there is no Go: Windows under Wine
	// (scripts/test-windows.sh).
	if prebuilt := os.Getenv("GEMINI_LS_TEST_BINARY"); prebuilt != "" {
		return prebuilt
	}
	platformtest.Tool(t, "go")
	exe := filepath.Join(t.TempDir(), "gemini-ls")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-o", exe, "./cmd/gemini-ls")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gemini-ls: %v\n%s", err, out)
	}
	return exe
}

// startPiped starts exe with args in dir, with a fresh HOME (and
// USERPROFILE) and the extra environment, and returns its stdin, its
// stdout and what it wrote to stderr; it is stopped when the test ends,
// at the latest 60 s on (client.py's own timeout for an answer).
func startPiped(t *testing.T, exe string, args []string, dir string, env ...string) (io.WriteCloser, io.Reader, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "USERPROFILE="+t.TempDir()), env...)
	// A child left holding stderr must not keep Wait (and the test) waiting.
	cmd.WaitDelay = 5 * time.Second
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s %v: %v", exe, args, err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		cancel()
		_ = cmd.Wait()
	})
	return stdin, stdout, stderr
}

// initializeAsRegistry starts exe with args as the ACP registry's
// client.py does (a fresh HOME, TERM=dumb, the folder of the binary as
// working directory), sends its initialize request and returns the first
// line the agent writes, decoded: client.py reads exactly that line.
func initializeAsRegistry(t *testing.T, exe string, args []string) map[string]any {
	t.Helper()
	stdin, stdout, stderr := startPiped(t, exe, args, filepath.Dir(exe), "TERM=dumb")
	// client.py's request, word for word.
	request := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "clientInfo": {"name": "ACP Registry Validator", "version": "1.0.0"}, "clientCapabilities": {"terminal": true, "fs": {"readTextFile": true, "writeTextFile": true}, "_meta": {"terminal_output": true, "terminal-auth": true}}}}` + "\n"
	if _, err := io.WriteString(stdin, request); err != nil {
		t.Fatalf("sending initialize: %v", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the answer to initialize (client.py reads one line, within 60 s): %v\nstderr:\n%s", err, stderr.String())
	}
	var response map[string]any
	if err := json.Unmarshal([]byte(line), &response); err != nil {
		t.Fatalf("the first line the agent wrote is not JSON, as client.py needs: %v\n%s", err, line)
	}
	return response
}

// authTypes is client.py's parse_auth_methods: each method's type is its
// "type", else "terminal" if its _meta has "terminal-auth", else "agent"
// (whether or not _meta has "agent-auth").
func authTypes(methods []any) (map[string]string, error) {
	types := map[string]string{}
	for _, m := range methods {
		method, ok := m.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("an auth method is %T, not an object", m)
		}
		kind, _ := method["type"].(string)
		if kind == "" {
			meta, _ := method["_meta"].(map[string]any)
			_, terminal := meta["terminal-auth"]
			kind = "agent"
			if terminal {
				kind = "terminal"
			}
		}
		id, _ := method["id"].(string)
		types[id] = kind
	}
	return types, nil
}

// registryAcceptsAuth is client.py's validate_auth_methods: at least one
// method of type "agent" or "terminal".
func registryAcceptsAuth(types map[string]string) error {
	if len(types) == 0 {
		return fmt.Errorf("no authMethods in response")
	}
	var found []string
	for _, kind := range types {
		if kind == "agent" || kind == "terminal" {
			return nil
		}
		found = append(found, kind)
	}
	return fmt.Errorf("no auth method with type 'agent' or 'terminal'; found types %s", strings.Join(found, ", "))
}
