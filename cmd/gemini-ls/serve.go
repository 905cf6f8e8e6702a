package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/startup"
)

func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The editor is told the warnings and errors (window/logMessage).
	const tell = false
	return serveStdio(serveFlagSet(), "LSP", args, stderr, tell, func(log *zap.Logger) int {
		getenv, lookupEnv := processEnv()
		return lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{
			Logger:    log,
			Version:   version,
			Getenv:    getenv,
			LookupEnv: lookupEnv,
			SignIn:    login.Config{Endpoints: signInEndpoints()},
			StartedUp: startup.ReleaseExecutablePages,

			SandboxSupervisor: sandboxSupervisor(),
		})
	})
}

// serveFlagSet is serve's own flags; serveStdio adds the log flags.
func serveFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Bool("stdio", true, "Speak LSP on stdin/stdout (the only transport; accepted for VS Code)")
	return fs
}

// serveStdio is what the protocol servers (serve, acp) share: it parses
// fs's flags with the log flags added, makes the logger (tell: see
// logFlags.logger), and runs the server with it, returning its exit
// status.
func serveStdio(fs *flag.FlagSet, protocol string, args []string, stderr io.Writer, tell bool, run func(*zap.Logger) int) int {
	var logs logFlags
	logs.register(fs)
	// Gemini CLI's global --debug, as run's: the log at debug level.
	debug := fs.Bool("d", false, "Log at debug level (on stderr, unless --log-file)")
	fs.BoolVar(debug, "debug", false, "Log at debug level (on stderr, unless --log-file)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *debug && logs.level == "" {
		logs.level = "debug"
	}
	log, closeLog, err := logs.logger(stderr, tell)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return 2
	}
	defer closeLog()
	defer func() { _ = log.Sync() }()
	sendLibraryLogsTo(log)
	log.Info("serving "+protocol+" on stdio", zap.String("version", version), zap.Int("pid", os.Getpid()))
	// A write to stdout after the client died must fail (EPIPE) rather
	// than kill the process by SIGPIPE: gemini-ls still has shell
	// commands to kill. Catching the signal, unlike ignoring it, is not
	// inherited by the commands it runs.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	return run(log)
}

// stdio joins stdin and stdout into the connection the server speaks on.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
