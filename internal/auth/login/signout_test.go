package login_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
)

// Signing out with no login cached removes nothing and writes nothing: no
// accounts file is made where there was none, and one with no active
// account is left as it was.
func TestSignOutWithoutALogin(t *testing.T) {
	dir := t.TempDir()
	if removed, err := login.SignOut(t.Context(), dir); removed || err != nil {
		t.Fatalf("SignOut of an empty directory: %v, %v", removed, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("SignOut wrote %v", entries)
	}
	accounts := filepath.Join(dir, login.AccountsFile)
	const inactive = `{"active": null, "old": ["me@example.com"]} `
	if err := os.WriteFile(accounts, []byte(inactive), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed, err := login.SignOut(t.Context(), dir); removed || err != nil {
		t.Fatalf("SignOut with no active account: %v, %v", removed, err)
	}
	if data, err := os.ReadFile(accounts); err != nil || string(data) != inactive {
		t.Errorf("the accounts file after SignOut: %q, %v", data, err)
	}
}
