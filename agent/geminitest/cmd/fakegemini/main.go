// Command fakegemini serves a scripted fake of the Gemini REST API for
// end-to-end tests. It prints GOOGLE_GEMINI_BASE_URL=http://host:port as its
// first line of output and serves until killed. The script format is in the
// geminitest package documentation.
//
//	go run ./agent/geminitest/cmd/fakegemini --script turns.json [--addr 127.0.0.1:0] [--record requests.jsonl]
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
	"os/signal"
	"sync"
	"syscall"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

func main() {
	script := flag.String("script", "", "JSON file of scripted turns (required)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	record := flag.String("record", "", "append every request to this file, one JSON line each")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("fakegemini: ")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *script, *addr, *record, os.Stdout, log.Printf); err != nil {
		log.Fatal(err)
	}
}

// serve runs the fake until ctx ends, then reports the requests it could
// not answer as scripted.
func serve(ctx context.Context, script, addr, record string, out io.Writer, logf func(string, ...any)) error {
	if script == "" {
		return errors.New("--script is required")
	}
	f, err := os.Open(script)
	if err != nil {
		return err
	}
	turns, err := geminitest.LoadScript(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", script, err)
	}
	opts := geminitest.Options{Addr: addr, Logf: logf}
	if record != "" {
		rec, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("opening the request record: %w", err)
		}
		defer rec.Close()
		var mu sync.Mutex
		opts.OnRequest = func(r geminitest.Request) {
			mu.Lock()
			defer mu.Unlock()
			if err := recordRequest(rec, r); err != nil {
				logf("recording a request: %v", err)
			}
		}
	}
	srv, err := geminitest.Start(opts, turns...)
	if err != nil {
		return err
	}
	defer srv.Close()
	if _, err := fmt.Fprintf(out, "GOOGLE_GEMINI_BASE_URL=%s\n", srv.URL); err != nil {
		return err
	}
	<-ctx.Done()
	return srv.Err()
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
