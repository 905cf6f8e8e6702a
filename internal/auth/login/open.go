package login

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
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
	var cmd *exec.Cmd
	switch browser := strings.TrimSpace(getenv("BROWSER")); {
	case browser != "":
		// BROWSER may hold several commands separated by colons: the first.
		browser, _, _ = strings.Cut(browser, ":")
		cmd = exec.Command(browser, url)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("Failed to open browser: %w", err)
	}
	// Not tied to the sign-in's context: a browser started directly must
	// outlive it. Reaped in the background.
	go func() { _ = cmd.Wait() }()
	return nil
}
