package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/acp"
)

// serveACP speaks the Agent Client Protocol on stdin/stdout, for Zed,
// JetBrains IDEs and the agent plugins of Neovim and Emacs.
func serveACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	var logs logFlags
	logs.register(fs, "warn", "info")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	log, closeLog, err := logs.logger(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return 2
	}
	defer closeLog()
	defer func() { _ = log.Sync() }()
	log.Info("serving ACP on stdio", zap.String("version", version), zap.Int("pid", os.Getpid()))
	// As serve: a write after the client died fails instead of killing us.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	if err := acp.Serve(ctx, stdin, stdout, acp.Options{
		Logger:    log,
		Version:   version,
		Getenv:    os.Getenv,
		LookupEnv: os.LookupEnv,
	}); err != nil {
		fmt.Fprintf(stderr, "gemini-ls acp: %v\n", err)
		return 1
	}
	return 0
}

// acpFlag finds --acp (or -acp) among flags given without a command, the
// form other agents take; the rest are acp's flags.
func acpFlag(args []string) ([]string, bool) {
	i := slices.IndexFunc(args, func(a string) bool { return a == "--acp" || a == "-acp" })
	if i < 0 || slices.Contains(args[:i], "--") {
		return args, false
	}
	return slices.Delete(slices.Clone(args), i, i+1), true
}
