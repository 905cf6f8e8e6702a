package login

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// ErrNoBrowser is OpenBrowser's answer when NO_BROWSER asks for none.
var ErrNoBrowser = errors.New("NO_BROWSER is set")

// NoBrowser reports whether the environment asks for the manual sign-in,
// as Gemini CLI's NO_BROWSER=true does.
func NoBrowser(getenv func(string) string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv("NO_BROWSER")))
	return v == "true" || v == "1"
}

// OpenBrowser starts the user's browser on url without waiting for it:
// the command BROWSER names when it is set (as xdg-open and Python's
// webbrowser read it), else the system's opener. It fails when no browser
// can be started or NO_BROWSER is set.
func OpenBrowser(url string, getenv func(string) string) error {
	if NoBrowser(getenv) {
		return ErrNoBrowser
	}
	var argv []string
	switch browser := strings.TrimSpace(getenv("BROWSER")); {
	case browser != "":
		// BROWSER may hold several commands separated by colons: the first.
		browser, _, _ = strings.Cut(browser, ":")
		argv = []string{browser, url}
	case runtime.GOOS == "darwin":
		argv = []string{"open", url}
	case runtime.GOOS == "windows":
		argv = []string{"rundll32", "url.dll,FileProtocolHandler", url}
	default:
		argv = []string{"xdg-open", url}
	}
	// Not tied to the sign-in's context: a browser started directly must
	// outlive it.
	cmd := spawn.Command(context.Background(), spawn.Helper{Name: "the browser"}, argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("Failed to open browser: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reaped in the background
	return nil
}
