//go:build unix

package login_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
)

// OpenBrowser runs the command BROWSER names with the URL, and runs
// nothing when NO_BROWSER=true asks for the manual sign-in.
func TestOpenBrowser(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BROWSER": script}
	getenv := func(k string) string { return env[k] }
	const u = "https://accounts.example/auth?a=1&b=2"
	if err := login.OpenBrowser(u, getenv); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(got)
		if err == nil && string(data) == u {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser was not given the URL: %q, %v", data, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Remove(got)
	env["NO_BROWSER"] = "true"
	if err := login.OpenBrowser(u, getenv); !errors.Is(err, login.ErrNoBrowser) {
		t.Errorf("with NO_BROWSER: %v", err)
	}
	env["BROWSER"], env["NO_BROWSER"] = filepath.Join(dir, "missing"), ""
	if err := login.OpenBrowser(u, getenv); err == nil {
		t.Error("a browser that cannot start was reported started")
	}
}
