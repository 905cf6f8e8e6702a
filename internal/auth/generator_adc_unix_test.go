//go:build unix

package auth_test

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// While one request makes the client (here: reading a credentials file
// nobody has written yet), another whose context ends stops waiting for it.
func TestGeneratorWaitForClientEndsWithContext(t *testing.T) {
	a := newADC(t, geminitest.TextTurn("hi"))
	gen := auth.NewGenerator(a.auth)
	if err := syscall.Mkfifo(a.credsPath, 0o600); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := gen.GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
		first <- err
	}()
	// The pipe opens for writing once the first request is reading it.
	var pipe *os.File
	for deadline := time.Now().Add(5 * time.Second); ; {
		var err error
		if pipe, err = os.OpenFile(a.credsPath, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first request never read the credentials: %v", err)
		}
		time.Sleep(time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	second := make(chan error, 1)
	go func() {
		_, err := gen.CountTokens(ctx, "gemini-x", genai.Text("hello"), nil)
		second <- err
	}()
	select {
	case err := <-second:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("second request = %v, want its context's end", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the second request still waits for the first one's client after its context ended")
	}

	tokenURL, _ := a.tokenServer("adc-token")
	a.writeCredentialsTo(pipe, tokenURL)
	if err := <-first; err != nil {
		t.Errorf("first request: %v", err)
	}
}
