package settings

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// grantEnv, set in a test binary's environment, makes it a process that
// grants trust to that folder once its standard input closes, and exits.
const grantEnv = "GEMINI_LS_TEST_GRANT_FOLDER"

func TestMain(m *testing.M) {
	if folder := os.Getenv(grantEnv); folder != "" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := SetFolderTrust(context.Background(), os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"), folder, TrustFolder); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// 40 processes each granting trust to its own folder at once: every
// grant is kept (without the lock, about half were lost).
func TestConcurrentTrustGrantsAreAllKept(t *testing.T) {
	const n = 40
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	var cmds []*exec.Cmd
	var gates []io.Closer
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), grantEnv+"="+grantFolder(i), "GEMINI_CLI_TRUSTED_FOLDERS_PATH="+path)
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, gates = append(cmds, cmd), append(gates, gate)
		t.Cleanup(func() {
			if t.Failed() && out.Len() > 0 {
				t.Logf("process %d: %s", i, out.String())
			}
		})
	}
	for _, g := range gates { // all started: let them go together
		g.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	keys, _, err := orderedLevels([]byte(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != n {
		t.Fatalf("%d of %d grants kept:\n%s", len(keys), n, readFile(t, path))
	}
	for i := range n {
		if !strings.Contains(readFile(t, path), jsString(trustKeyOf(t, grantFolder(i)))) {
			t.Errorf("the grant of %s was lost", grantFolder(i))
		}
	}
}

func grantFolder(i int) string { return fmt.Sprintf("/work/project-%02d", i) }

// trustKeyOf is folder as the trust file keys it: on Windows on the
// current drive and lower-cased.
func trustKeyOf(t *testing.T, folder string) string {
	t.Helper()
	key, err := trustKey(folder)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// A grant made while the lock directory exists, fresh, waits for it,
// and lands once it is removed.
func TestTrustGrantWaitsForTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	writeFile(t, path, `{"/a": "TRUST_FOLDER"}`)
	locktest.Waits(t, path, func(ctx context.Context) error { return SetFolderTrust(ctx, path, "/b", TrustFolder) })
	if got, want := readFile(t, path), "{\n  \"/a\": \"TRUST_FOLDER\",\n  "+jsString(trustKeyOf(t, "/b"))+": \"TRUST_FOLDER\"\n}"; got != want {
		t.Errorf("after the wait the file is\n%s\nwant\n%s", got, want)
	}
}

// A lock left by a process that died (its directory's modification time
// older than proper-lockfile's 10 s) is taken over.
func TestTrustGrantTakesOverAStaleLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	if err := os.Mkdir(path+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := SetFolderTrust(ctx, path, "/b", TrustFolder); err != nil {
		t.Fatalf("the grant over a stale lock: %v", err)
	}
	if got := readFile(t, path); !strings.Contains(got, jsString(trustKeyOf(t, "/b"))+`: "TRUST_FOLDER"`) {
		t.Errorf("the grant did not land:\n%s", got)
	}
}

// A lock its holder keeps fresh and never releases: the grant gives up
// with an error naming the file and the lock directory, and the file is
// left as it was.
func TestTrustGrantRefusedWhenTheLockIsNeverReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trustedFolders.json")
	writeFile(t, path, `{"/a": "TRUST_FOLDER"}`)
	locktest.Refused(t, path, func(ctx context.Context) error { return SetFolderTrust(ctx, path, "/b", TrustFolder) })
}

// gemini-ls and Gemini CLI 0.61, its own code, each wait for the other's
// lock on trustedFolders.json, and both grants are kept.
func TestTrustGrantAndGeminiCLIWaitForEachOther(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "trustedFolders.json")
	writeFile(t, path, "{}")

	// gemini-ls holds the lock: Gemini CLI's grant waits for it.
	lock, err := sharedlock.Acquire(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	theirs := startGeminiCLIGrant(t, home, "/theirs", false)
	theirs.await("ready")
	time.Sleep(time.Second) // its first attempts fail meanwhile
	if theirs.exited() {
		t.Fatalf("Gemini CLI's grant finished while gemini-ls held the lock: %s", theirs.out())
	}
	if got := readFile(t, path); got != "{}" {
		t.Fatalf("Gemini CLI wrote under gemini-ls's lock:\n%s", got)
	}
	lock.Release()
	theirs.wait()
	if got := readFile(t, path); !strings.Contains(got, `"/theirs": "TRUST_FOLDER"`) {
		t.Fatalf("Gemini CLI's grant did not land after the lock was released:\n%s", got)
	}

	// Gemini CLI holds the lock: gemini-ls's grant waits for it.
	again := startGeminiCLIGrant(t, home, "/theirs-again", true)
	again.await("held")
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("Gemini CLI holds no lock directory: %v", err)
	}
	ours := make(chan error, 1)
	go func() { ours <- SetFolderTrust(t.Context(), path, "/ours", TrustFolder) }()
	select {
	case err := <-ours:
		t.Fatalf("gemini-ls's grant returned (%v) while Gemini CLI held the lock", err)
	case <-time.After(time.Second):
	}
	again.release()
	again.wait()
	if err := <-ours; err != nil {
		t.Fatalf("gemini-ls's grant after Gemini CLI's: %v", err)
	}
	got := readFile(t, path)
	for _, folder := range []string{"/theirs", "/theirs-again", "/ours"} {
		if !strings.Contains(got, jsString(trustKeyOf(t, folder))+": \"TRUST_FOLDER\"") {
			t.Errorf("the grant of %s was lost:\n%s", folder, got)
		}
	}
}

// grantScript calls Gemini CLI 0.61's writer of trustedFolders.json
// (LoadedTrustedFolders.setValue), saying "ready" just before; with
// "hold", its read of the file, made under its lock, first says "held"
// and waits for a line on its standard input.
const grantScript = `import * as fs from "node:fs";
import * as readline from "node:readline";
const [chunk, folder, hold] = process.argv.slice(2);
const m = await import(chunk);
if (hold === "hold") {
  const read = fs.promises.readFile;
  const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  fs.promises.readFile = async (...args) => {
    if (String(args[0]).endsWith("trustedFolders.json")) {
      console.log("held");
      await lines.next();
    }
    return read(...args);
  };
}
console.log("ready");
await m.loadTrustedFolders().setValue(folder, m.TrustLevel.TRUST_FOLDER);
process.exit(0);
`

// geminiCLIGrant is Gemini CLI's grant running in node.
type geminiCLIGrant struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	log    *lockedBuffer
	done   chan error
	result error
}

func startGeminiCLIGrant(t *testing.T, home, folder string, hold bool) *geminiCLIGrant {
	t.Helper()
	chunk := geminicli.Module(t, "loadTrustedFolders")
	script := filepath.Join(t.TempDir(), "grant.mjs")
	if err := os.WriteFile(script, []byte(grantScript), 0o600); err != nil {
		t.Fatal(err)
	}
	arg := ""
	if hold {
		arg = "hold"
	}
	cmd := exec.Command("node", script, chunk, folder, arg)
	cmd.Env = geminicli.Env(home, "")
	g := &geminiCLIGrant{t: t, cmd: cmd, lines: make(chan string, 16), log: &lockedBuffer{}, done: make(chan error, 1)}
	var err error
	if g.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = g.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			g.lines <- sc.Text()
		}
		close(g.lines)
		g.done <- cmd.Wait()
	}()
	return g
}

// await waits for Gemini CLI's script to say line.
func (g *geminiCLIGrant) await(line string) {
	g.t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case got, ok := <-g.lines:
			if !ok {
				g.t.Fatalf("Gemini CLI's grant ended before saying %q: %s", line, g.out())
			}
			if got == line {
				return
			}
		case <-timeout:
			g.t.Fatalf("Gemini CLI's grant did not say %q within a minute: %s", line, g.out())
		}
	}
}

func (g *geminiCLIGrant) release() { fmt.Fprintln(g.stdin, "go") }

func (g *geminiCLIGrant) exited() bool {
	select {
	case g.result = <-g.done:
		g.done <- g.result
		return true
	default:
		return false
	}
}

// wait waits for Gemini CLI's grant to end, which must be a success.
func (g *geminiCLIGrant) wait() {
	g.t.Helper()
	for range g.lines { // drained, so that the process can end
	}
	select {
	case err := <-g.done:
		if err != nil {
			g.t.Fatalf("Gemini CLI's grant: %v: %s", err, g.out())
		}
	case <-time.After(2 * time.Minute):
		g.t.Fatalf("Gemini CLI's grant did not end: %s", g.out())
	}
}

func (g *geminiCLIGrant) out() string { return g.log.String() }

// lockedBuffer is node's standard error, read while it may still write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Edits of settings.json made at once, each of its own key, all land:
// each waits for the others' lock, where without it most were refused as
// made over a changed file.
func TestConcurrentSettingsEditsAllLand(t *testing.T) {
	const n = 20
	path := filepath.Join(t.TempDir(), "settings.json")
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- SetValue(t.Context(), path, []string{"mcpServers", fmt.Sprint("s", i)}, map[string]string{"command": "x"})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for i := range n {
		if _, ok, err := ReadValue(path, []string{"mcpServers", fmt.Sprint("s", i)}); !ok || err != nil {
			t.Errorf("the edit of s%d was lost (%v):\n%s", i, err, readFile(t, path))
		}
	}
}

// A settings edit waits for a fresh lock on settings.json, and gives up,
// the file unchanged, on one never released.
func TestSettingsEditHonoursTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, "{\n  // mine\n  \"general\": {}\n}\n")
	locktest.Waits(t, path, func(ctx context.Context) error { return SetValue(ctx, path, []string{"general", "vimMode"}, true) })
	if got := readFile(t, path); !strings.Contains(got, `"vimMode": true`) || !strings.Contains(got, "// mine") {
		t.Errorf("after the wait the file is\n%s", got)
	}
	locktest.Refused(t, path, func(ctx context.Context) error { return SetValue(ctx, path, []string{"general", "vimMode"}, false) })
}
