package login

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// accountEnv, set in a test binary's environment, makes it a process
// that records that account as signed in, in the accounts file
// accountsFileEnv names, and exits (locktest.Processes).
const (
	accountEnv      = "GEMINI_LS_TEST_CACHE_ACCOUNT"
	accountsFileEnv = "GEMINI_LS_TEST_ACCOUNTS_FILE"
)

func TestMain(m *testing.M) {
	locktest.Writer(accountEnv, func(email string) error {
		return cacheAccount(context.Background(), os.Getenv(accountsFileEnv), email)
	})
	os.Exit(m.Run())
}

// 20 processes each signing in to its own account at once: every
// account is kept, one active and the others old.
func TestConcurrentSignInsKeepEveryAccount(t *testing.T) {
	const n = 20
	path := filepath.Join(t.TempDir(), AccountsFile)
	email := func(i int) string { return fmt.Sprintf("user-%02d@example.com", i) }
	locktest.Processes(t, n, func(i int) []string {
		return []string{accountEnv + "=" + email(i), accountsFileEnv + "=" + path}
	})
	acc := readAccounts(t, path)
	if acc.Active == nil {
		t.Fatalf("no active account: %+v", acc)
	}
	all := append([]string{*acc.Active}, acc.Old...)
	var lost []string
	for i := range n {
		if !slices.Contains(all, email(i)) {
			lost = append(lost, email(i))
		}
	}
	if len(lost) > 0 || len(all) != n {
		t.Errorf("%d of %d accounts kept (active %s, old %v); lost: %v", len(all), n, *acc.Active, acc.Old, lost)
	}
}

// Signing in and out wait for a fresh lock on the accounts file, and
// give up, the file unchanged, on one never released.
func TestAccountsFileHonoursTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), AccountsFile)
	if err := os.WriteFile(path, []byte(`{"active": "a@example.com", "old": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	locktest.Waits(t, path, func(ctx context.Context) error { return cacheAccount(ctx, path, "b@example.com") })
	if acc := readAccounts(t, path); acc.Active == nil || *acc.Active != "b@example.com" || !slices.Equal(acc.Old, []string{"a@example.com"}) {
		t.Errorf("after the wait to sign in: %+v", acc)
	}
	locktest.Waits(t, path, func(ctx context.Context) error { return forgetActiveAccount(ctx, path) })
	if acc := readAccounts(t, path); acc.Active != nil || !slices.Equal(acc.Old, []string{"a@example.com", "b@example.com"}) {
		t.Errorf("after the wait to sign out: %+v", acc)
	}
	locktest.Refused(t, path, func(ctx context.Context) error { return cacheAccount(ctx, path, "c@example.com") })
}

func readAccounts(t *testing.T, path string) accounts {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var acc accounts
	if err := json.Unmarshal(data, &acc); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return acc
}

// Gemini CLI 0.61 writes the accounts file without the lock: an account
// it records while gemini-ls signs in is kept, and the sign-in says it
// was not recorded rather than write over it.
func TestAnAccountGeminiCLIRecordsMeanwhileIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), AccountsFile)
	theirs := `{"active": "theirs@example.com", "old": []}`
	err := updateAccounts(t.Context(), path, func(acc accounts, ok bool) (accounts, bool) {
		if err := os.WriteFile(path, []byte(theirs), 0o600); err != nil {
			t.Fatal(err)
		}
		ours := "ours@example.com"
		acc.Active = &ours
		return acc, true
	})
	if err == nil {
		t.Error("a sign-in over Gemini CLI's write succeeded")
	}
	if acc := readAccounts(t, path); acc.Active == nil || *acc.Active != "theirs@example.com" {
		t.Errorf("the accounts file after: %+v, want Gemini CLI's", acc)
	}
}
