package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// signIn runs `gemini-ls login`: Gemini CLI's "Sign in with Google" in a
// terminal, in the browser, or with a pasted code (-no-browser, or
// NO_BROWSER=true, as in Gemini CLI) when the browser is on another
// machine.
func signIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	releaseStartUp()
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	noBrowser := fs.Bool("no-browser", false, "Print the URL and read the authorization code Google's page shows, for a browser on another machine (also NO_BROWSER=true)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	cfg := signInConfig(os.Getenv)
	var res login.Result
	var err error
	if *noBrowser || login.NoBrowser(os.Getenv) {
		res, err = pastedCodeSignIn(ctx, cfg, stdin, stdout)
	} else {
		res, err = cfg.Browser(ctx, func(url string) {
			fmt.Fprintf(stdout, "Attempting to open authentication page in your browser.\nOtherwise navigate to:\n\n%s\n\n", url)
			if err := login.OpenBrowser(url, os.Getenv); err != nil {
				fmt.Fprintf(stderr, "Failed to open browser with error: %v\nPlease try running again with NO_BROWSER=true set.\n", err)
			}
			fmt.Fprintln(stdout, "Waiting for authentication...")
		})
	}
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls login: %v\n", err)
		if errors.Is(err, context.Canceled) {
			return exitCancelled
		}
		return exitError
	}
	who := "Signed in with Google"
	if res.Email != "" {
		who += " as " + res.Email
	}
	fmt.Fprintf(stdout, "%s. The login is cached in %s, for gemini-ls and Gemini CLI.\n", who, res.CredsPath)
	if res.Warning != "" {
		fmt.Fprintf(stderr, "gemini-ls login: %s\n", res.Warning)
	}
	return 0
}

// signInConfig is the sign-in as the environment configures it: the user
// directory and the callback address; the endpoints are the build's.
func signInConfig(getenv func(string) string) login.Config {
	cfg := login.Config{Endpoints: signInEndpoints(), UserDir: settings.UserDir(getenv)}
	cfg.CallbackHost = strings.TrimSpace(getenv("OAUTH_CALLBACK_HOST"))
	if port, err := strconv.Atoi(strings.TrimSpace(getenv("OAUTH_CALLBACK_PORT"))); err == nil {
		cfg.CallbackPort = port
	}
	return cfg
}

// pastedCodeSignIn prints the URL and reads the code, as Gemini CLI's
// authWithUserCode does, within the sign-in's timeout.
func pastedCodeSignIn(ctx context.Context, cfg login.Config, stdin io.Reader, stdout io.Writer) (login.Result, error) {
	m, err := cfg.Manual()
	if err != nil {
		return login.Result{}, err
	}
	fmt.Fprintf(stdout, "Please visit the following URL to authorize the application:\n\n%s\n\nEnter the authorization code: ", m.URL)
	ctx, cancel := context.WithTimeout(ctx, m.Timeout())
	defer cancel()
	lines := make(chan string, 1)
	go func() {
		// Left blocked on a terminal that never answers; the process
		// exits after the timeout all the same.
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		return m.Finish(ctx, line)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return login.Result{}, errors.New("Authorization timed out after 5 minutes.")
		}
		return login.Result{}, fmt.Errorf("Authentication cancelled: %w", ctx.Err())
	}
}
