package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// `gemini-ls acp --login`, which an ACP client runs for the terminal
// sign-in it was offered, signs in as `gemini-ls login` does (here the
// pasted code's way, with no code to read) and does not serve ACP.
func TestACPLoginSignsIn(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("NO_BROWSER", "true")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := serveACP(ctx, []string{"--login"}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stdout.String(), "Please visit the following URL to authorize the application") {
		t.Errorf("acp --login exited %d; stdout %q; stderr %q", code, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String(), "jsonrpc") {
		t.Errorf("acp --login spoke ACP: %q", stdout.String())
	}
}
