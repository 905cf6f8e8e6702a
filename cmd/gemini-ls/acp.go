package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/acp"
	"github.com/gemini-ls/gemini-ls/internal/auth/login"
)

// serveACP speaks the Agent Client Protocol on stdin/stdout, for Zed,
// JetBrains IDEs and the agent plugins of Neovim and Emacs.
func serveACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	releaseStartUp()
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	var responses responseFlags
	responses.register(fs)
	// ACP's terminal sign-in (acp.TerminalSignInMethod): the client runs
	// the agent as configured with --login, in a terminal.
	signInFirst := fs.Bool("login", false, "Sign in with Google as `gemini-ls login` does, then exit (ACP's terminal sign-in)")
	// No ACP message carries warnings: stderr, the client's log of
	// gemini-ls, gets them in words.
	const tell = true
	return serveStdio(fs, "ACP", args, stderr, tell, func(log *zap.Logger) int {
		if *signInFirst {
			return signIn(ctx, nil, stdin, stdout, stderr)
		}
		getenv, lookupEnv := processEnv()
		if err := acp.Serve(ctx, stdin, stdout, acp.Options{
			Logger:    log,
			Version:   version,
			Getenv:    getenv,
			LookupEnv: lookupEnv,
			SignIn:    login.Config{Endpoints: signInEndpoints()},

			SandboxSupervisor: sandboxSupervisor(),
			Responses:         responses.responses("."),
		}); err != nil {
			fmt.Fprintf(stderr, "gemini-ls acp: %v\n", err)
			return 1
		}
		return 0
	})
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
