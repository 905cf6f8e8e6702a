// Command gemini-ls is a Gemini coding agent behind the Language Server
// Protocol: editors start it as a language server (`gemini-ls` or
// `gemini-ls serve`), and `gemini-ls run -p PROMPT` runs the same agent
// headless.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `gemini-ls: a Gemini coding agent for every editor, over LSP.

Usage:
  gemini-ls [serve] [--stdio] [--log-file PATH] [--log-level LEVEL]
      Speak LSP on stdin/stdout (what editors run).
  gemini-ls run -p PROMPT [-C DIR] [--model M] [--approval-mode default|auto_edit|yolo]
                [--output-format text|json|stream-json] [--log-file PATH] [--log-level LEVEL]
      Run one prompt headless in DIR.
  gemini-ls version

Auth: GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT
and GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY). GOOGLE_GEMINI_BASE_URL points the
client at another endpoint; GEMINI_MODEL picks the model.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches the subcommand and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		return serve(ctx, args, stdin, stdout, stderr)
	case "run":
		return runHeadless(ctx, args, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "gemini-ls %s\n", version)
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	fmt.Fprintf(stderr, "gemini-ls: %v\n\n%s", err, usage)
	return 2
}

// parseFlags parses args into fs, printing problems to stderr. ok is false
// when the caller should exit with status code.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gemini-ls %s: unexpected arguments %q\n", fs.Name(), fs.Args())
		return 2, false
	}
	return 0, true
}
