// Command fakegemini serves a scripted fake of the Gemini REST API for
// end-to-end tests. It prints GOOGLE_GEMINI_BASE_URL=http://host:port as its
// first line of output and serves until killed. The script format is in the
// geminitest package documentation.
//
//	go run ./agent/geminitest/cmd/fakegemini --script turns.json [--addr 127.0.0.1:0]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

func main() {
	script := flag.String("script", "", "JSON file of scripted turns (required)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("fakegemini: ")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *script, *addr, os.Stdout, log.Printf); err != nil {
		log.Fatal(err)
	}
}

// serve runs the fake until ctx ends, then reports the requests it could
// not answer as scripted.
func serve(ctx context.Context, script, addr string, out io.Writer, logf func(string, ...any)) error {
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
	srv, err := geminitest.Start(geminitest.Options{Addr: addr, Logf: logf}, turns...)
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
