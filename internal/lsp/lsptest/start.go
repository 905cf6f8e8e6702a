package lsptest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
)

// Process is a gemini-ls binary speaking LSP on its stdio.
type Process struct {
	Cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{}
	err    error
}

// StartBinary starts `bin serve` with env, logging to logFile. The process
// is killed when the test ends if still running.
func StartBinary(t testing.TB, bin string, env []string, logFile string) *Process {
	t.Helper()
	return StartCommand(t, bin, env, logFile, "serve", "--log-file", logFile, "--log-level", "debug")
}

// StartCommand starts bin with args, expecting it to speak LSP on stdio;
// its stderr goes to logFile.stderr.
func StartCommand(t testing.TB, bin string, env []string, logFile string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	// Panics and anything else the process prints outside its log.
	stderr, err := os.Create(logFile + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	t.Cleanup(func() { _ = stderr.Close() })
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	p := &Process{Cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.Cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *Process) Read(b []byte) (int, error)  { return p.stdout.Read(b) }
func (p *Process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close closes the server's stdin.
func (p *Process) Close() error { return p.stdin.Close() }

// CloseStdout closes the reading end of the server's stdout, as a client
// that stopped reading does; the server's stdin stays open.
func (p *Process) CloseStdout() error { return p.stdout.Close() }

// KeepingStdin is p for a client whose Close leaves the server's stdin
// open: a jsonrpc2 client closes its stream as soon as a read fails, and
// a test of a client that stopped reading keeps writing.
func (p *Process) KeepingStdin() io.ReadWriteCloser { return keepStdin{p} }

type keepStdin struct{ *Process }

func (keepStdin) Close() error { return nil }

// Wait waits for the process to exit and returns its exit status.
func (p *Process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.done:
		return p.Cmd.ProcessState.ExitCode(), nil
	case <-ctx.Done():
		return -1, fmt.Errorf("waiting for gemini-ls to exit: %w", ctx.Err())
	}
}

// pipeConn is one end of an in-process connection.
type pipeConn struct {
	io.Reader
	io.WriteCloser
	closeRead func() error
}

func (p pipeConn) Close() error {
	err := p.WriteCloser.Close()
	if cerr := p.closeRead(); err == nil {
		err = cerr
	}
	return err
}

// StartInProcess serves opts on in-memory pipes and returns the client's
// end and a channel that yields Serve's exit status.
func StartInProcess(t testing.TB, opts lsp.Options) (io.ReadWriteCloser, <-chan int) {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- lsp.Serve(context.Background(), pipeConn{serverIn, serverOut, serverIn.Close}, opts)
		_ = serverOut.Close()
	}()
	return pipeConn{clientIn, clientOut, clientIn.Close}, exit
}

// RunWithBinary builds gemini-ls into a temporary directory, sets *bin to
// it, runs the tests and exits: the TestMain of packages that drive the
// real binary. $GEMINI_LS_TEST_BINARY names one built already, for a
// machine with no Go: Windows under Wine (scripts/test-windows.sh).
func RunWithBinary(m *testing.M, bin *string) { runWithBinary(m, bin, false) }

// RunWithInstalledBinary is RunWithBinary with the binary (built, or
// $GEMINI_LS_TEST_BINARY) installed as a release is: written anew in
// tar's 10 KiB records, as the editors' installers and package managers
// unpack it. What a process of it holds resident follows how its file
// was written: on Linux 6.18, a fault maps the whole page-cache folio it
// lands in, and the folios follow the writes that made the file. A
// headless run of byte-identical binaries peaks at 28.1 MiB as the
// linker wrote it, 27.2 MiB as tar unpacked it and 41.3 MiB as one write
// made it (docs/benchmarks.md, "How the binary was written"): the
// benchmarks measure what users run.
func RunWithInstalledBinary(m *testing.M, bin *string) { runWithBinary(m, bin, true) }

func runWithBinary(m *testing.M, bin *string, installed bool) {
	dir, err := os.MkdirTemp("", "gemini-ls-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	built := os.Getenv("GEMINI_LS_TEST_BINARY")
	if built == "" {
		built = filepath.Join(dir, "gemini-ls")
		if installed {
			built = filepath.Join(dir, "build", "gemini-ls")
		}
		build := exec.Command("go", "build", "-o", built, "github.com/gemini-ls/gemini-ls/cmd/gemini-ls")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the Makefile builds it: static, quicker to start
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building gemini-ls: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	*bin = built
	if installed {
		*bin = filepath.Join(dir, "gemini-ls"+filepath.Ext(built))
		if err := install(built, *bin); err != nil {
			fmt.Fprintf(os.Stderr, "installing gemini-ls: %v\n", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// install writes the file src anew at dst in tar's 10 KiB records.
func install(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	const record = 10 << 10
	for len(data) > 0 && err == nil {
		n := min(record, len(data))
		_, err = f.Write(data[:n])
		data = data[n:]
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
