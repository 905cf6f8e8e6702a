//go:build unix

package codeassist_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO in the credentials' place is refused, not opened: opening it
// would block until someone writes.
func TestCheckLoginRefusesFIFO(t *testing.T) {
	path := fifotest.Make(t, filepath.Join(t.TempDir(), "oauth_creds.json"))
	fifotest.Returns(t, "CheckLogin", func() {
		if err := codeassist.CheckLogin(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v", err)
		}
	})
}

// A symlinked credentials file stays a link; its target gets the token.
func TestLoginRefreshKeepsSymlink(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{})
	dir := t.TempDir()
	target := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1})
	link := filepath.Join(dir, "oauth_creds.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := codeassist.NewLogin(codeassist.LoginConfig{Path: link, TokenURL: srv.TokenURL()}).Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info.Mode(), err)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), "granted-1") {
		t.Errorf("target = %s", data)
	}
}
