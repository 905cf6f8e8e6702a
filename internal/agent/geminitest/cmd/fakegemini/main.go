// Command fakegemini serves a scripted fake of the Gemini REST API for
// end-to-end tests and demos. The script format is in the geminitest
// package documentation.
//
//	go run ./internal/agent/geminitest/cmd/fakegemini --script turns.json [--addr 127.0.0.1:0] [--record requests.jsonl] [-- COMMAND [ARG...]]
//
// Without COMMAND it prints GOOGLE_GEMINI_BASE_URL=http://host:port as its
// first line of output and serves until killed.
//
// With COMMAND it runs it against the fake and exits with its status: the
// command gets GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY (a placeholder unless
// set) and no GOOGLE_GENAI_USE_VERTEXAI, so it talks to the fake and never to
// Google; the signals fakegemini gets are passed on to it; and once it ends,
// the fake stops. Nothing is left running and nothing changes in the caller's
// environment. The output is the command's: fakegemini says only where it
// serves and, at the end, which requests its script did not cover.
//
//	go run ./internal/agent/geminitest/cmd/fakegemini --script internal/agent/geminitest/testdata/demo.json -- \
//	  go run ./cmd/gemini-ls run -C . -p "Where are the TODOs?"
//
// When the command succeeds but sent such a request, fakegemini exits 1.
//
// With --record, each request is appended to the file as it arrives, one
// JSON object per line: {"method", "model", "body"}, body being the request
// as sent. Editor tests read it to check what reached the model.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

const usage = `usage: fakegemini --script FILE [--addr HOST:PORT] [--record FILE] [-- COMMAND [ARG...]]

Serves the scripted turns in FILE as a fake Gemini API on a loopback port.
Without COMMAND: prints GOOGLE_GEMINI_BASE_URL=URL and serves until killed.
With COMMAND: runs it with GOOGLE_GEMINI_BASE_URL pointing at the fake, then
stops the fake and exits with the command's status.

`

// placeholderKey is the GEMINI_API_KEY a command gets when it has none: the
// fake accepts any key, and the genai client wants one.
const placeholderKey = "fakegemini"

func main() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	script := flag.String("script", "", "JSON file of scripted turns (required)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	record := flag.String("record", "", "append every request to this file, one JSON line each")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("fakegemini: ")

	if command := flag.Args(); len(command) > 0 {
		// Caught from here on, so a Ctrl-C reaches the command (from the
		// terminal and from us) while the fake keeps answering it.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		code, err := serveCommand(*script, *addr, *record, command, sigs, os.Stdin, os.Stdout, os.Stderr, log.Printf)
		if err != nil {
			log.Print(err)
		}
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *script, *addr, *record, os.Stdout, log.Printf); err != nil {
		log.Fatal(err)
	}
}

// serve runs the fake until ctx ends, then reports the requests it could
// not answer as scripted.
func serve(ctx context.Context, script, addr, record string, out io.Writer, logf func(string, ...any)) error {
	srv, closeSrv, err := start(script, addr, record, logf, true)
	if err != nil {
		return err
	}
	defer closeSrv()
	if _, err := fmt.Fprintf(out, "GOOGLE_GEMINI_BASE_URL=%s\n", srv.URL); err != nil {
		return err
	}
	<-ctx.Done()
	return srv.Err()
}

// serveCommand runs command against the fake and returns the exit status
// fakegemini should end with: the command's, or 1 when the command could not
// start or succeeded while sending a request the script did not cover. The
// fake is stopped when it returns.
func serveCommand(script, addr, record string, command []string, sigs <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer, logf func(string, ...any)) (int, error) {
	srv, closeSrv, err := start(script, addr, record, logf, false)
	if err != nil {
		return 1, err
	}
	defer closeSrv()
	logf("serving %s for: %s", srv.URL, strings.Join(command, " "))
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = commandEnv(os.Environ(), srv.URL)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("starting the command: %w", err)
	}
	ended := make(chan struct{})
	// killedFor is the signal the command was killed for, where it could
	// not be passed on: Windows sends no signal to another process.
	var killedFor syscall.Signal
	var passing sync.WaitGroup
	passing.Go(func() {
		for {
			select {
			case sig := <-sigs:
				if err := cmd.Process.Signal(sig); err != nil && cmd.Process.Kill() == nil {
					killedFor, _ = sig.(syscall.Signal)
				}
			case <-ended:
				return
			}
		}
	})
	waitErr := cmd.Wait()
	close(ended)
	passing.Wait()
	code := exitStatus(cmd.ProcessState)
	if code == -1 {
		return 1, fmt.Errorf("waiting for the command: %w", waitErr)
	}
	if killedFor != 0 {
		// As a shell tells of a command the signal ended, on every system.
		code = 128 + int(killedFor)
	}
	closeSrv()
	if err := srv.Err(); err != nil {
		if code == 0 {
			return 1, err
		}
		logf("%v", err)
	}
	return code, nil
}

// exitStatus is the status a shell would report for a command that ended
// in state: its exit code, or 128 plus the signal that killed it. -1 when it
// did not end.
func exitStatus(state *os.ProcessState) int {
	if state == nil {
		return -1
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}

// commandEnv is environ with every variable that would send the genai
// client elsewhere than the fake at url replaced or removed.
func commandEnv(environ []string, url string) []string {
	env := make([]string, 0, len(environ)+2)
	hasKey := false
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI":
			continue
		case "GEMINI_API_KEY":
			if strings.TrimSpace(value) == "" {
				continue
			}
			hasKey = true
		}
		env = append(env, kv)
	}
	if !hasKey {
		env = append(env, "GEMINI_API_KEY="+placeholderKey)
	}
	return append(env, "GOOGLE_GEMINI_BASE_URL="+url)
}

// start loads the script and starts the fake, which logs every request with
// logf when logRequests is set; closeSrv stops it and closes the record, and
// may be called more than once.
func start(script, addr, record string, logf func(string, ...any), logRequests bool) (srv *geminitest.Server, closeSrv func(), err error) {
	if script == "" {
		return nil, nil, errors.New("--script is required")
	}
	f, err := os.Open(script)
	if err != nil {
		return nil, nil, err
	}
	sc, err := geminitest.ReadScript(f)
	f.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", script, err)
	}
	turns := sc.Turns
	opts := geminitest.Options{Addr: addr, Rules: sc.Rules}
	if logRequests {
		opts.Logf = logf
	}
	closeRecord := func() {}
	if record != "" {
		rec, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("opening the request record: %w", err)
		}
		closeRecord = func() { rec.Close() }
		var mu sync.Mutex
		opts.OnRequest = func(r geminitest.Request) {
			mu.Lock()
			defer mu.Unlock()
			if err := recordRequest(rec, r); err != nil {
				logf("recording a request: %v", err)
			}
		}
	}
	srv, err = geminitest.Start(opts, turns...)
	if err != nil {
		closeRecord()
		return nil, nil, err
	}
	var once sync.Once
	return srv, func() {
		once.Do(func() {
			srv.Close()
			closeRecord()
		})
	}, nil
}

// recordRequest writes r as one JSON line.
func recordRequest(w io.Writer, r geminitest.Request) error {
	body := json.RawMessage(r.Body)
	if !json.Valid(body) {
		b, _ := json.Marshal(string(r.Body))
		body = b
	}
	line, err := json.Marshal(struct {
		Method string          `json:"method"`
		Model  string          `json:"model"`
		Body   json.RawMessage `json:"body"`
	}{r.Method, r.Model, body})
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
