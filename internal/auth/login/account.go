package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// maxAnswer bounds what is read of the user-info answer and the accounts
// file.
const maxAnswer = 1 << 20

// email reads the signed-in account's address, as Gemini CLI's
// fetchAndCacheUserInfo does.
func (c Config) email(ctx context.Context, accessToken string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Endpoints.UserInfoURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	resp, err := c.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("reading the account's address: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("reading the account's address: %s", resp.Status)
	}
	var info struct {
		Email string `json:"email"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&info); err != nil {
		return "", fmt.Errorf("reading the account's address: %w", err)
	}
	if info.Email == "" {
		return "", errors.New("reading the account's address: the answer holds none")
	}
	return info.Email, nil
}

// accounts is google_accounts.json: the active account and those used
// before it (Gemini CLI's UserAccountManager).
type accounts struct {
	Active *string  `json:"active"`
	Old    []string `json:"old"`
}

// cacheAccount makes email the active account in path, moving the one
// active before to old, as Gemini CLI's cacheGoogleAccount does. A file
// that cannot be read as accounts starts afresh, as there.
func cacheAccount(ctx context.Context, path, email string) error {
	err := updateAccounts(ctx, path, func(acc accounts, _ bool) (accounts, bool) {
		if acc.Active != nil && *acc.Active != email && !slices.Contains(acc.Old, *acc.Active) {
			acc.Old = append(acc.Old, *acc.Active)
		}
		acc.Old = slices.DeleteFunc(acc.Old, func(old string) bool { return old == email })
		if acc.Old == nil {
			acc.Old = []string{}
		}
		acc.Active = &email
		return acc, true
	})
	if err != nil {
		return fmt.Errorf("recording the signed-in account: %w", err)
	}
	return nil
}

// SignOut forgets the cached Google login of userDir (settings.UserDir)
// as Gemini CLI 0.61's clearCachedCredentialFile does: oauth_creds.json is
// removed, and google_accounts.json's active account joins its old ones,
// each under its lock. removed says whether there was a login file. The
// process's own tokens are read from that file (codeassist.Login), so its
// next request finds no login.
func SignOut(ctx context.Context, userDir string) (removed bool, err error) {
	removed, err = codeassist.RemoveLogin(ctx, filepath.Join(userDir, codeassist.CredsFile))
	if err != nil {
		return false, err
	}
	return removed, forgetActiveAccount(ctx, filepath.Join(userDir, AccountsFile))
}

// forgetActiveAccount moves the active account of the accounts file at
// path to its old ones, as Gemini CLI's clearCachedGoogleAccount does; a
// file that is not there, or has no active account, is left alone.
func forgetActiveAccount(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing to forget, nor to lock
	}
	err := updateAccounts(ctx, path, func(acc accounts, ok bool) (accounts, bool) {
		if !ok || acc.Active == nil {
			return acc, false
		}
		if !slices.Contains(acc.Old, *acc.Active) {
			acc.Old = append(acc.Old, *acc.Active)
		}
		acc.Active = nil
		return acc, true
	})
	if err != nil {
		return fmt.Errorf("forgetting the signed-in account: %w", err)
	}
	return nil
}

// updateAccounts rewrites the accounts file at path with what change
// makes of the accounts it holds (ok: the file is there and holds
// accounts), unless change says to leave it. The file is read and
// rewritten under its lock (sharedlock.Rewrite): gemini-ls processes
// signing in and out at once wait for each other, so that none loses the
// account another recorded; Gemini CLI 0.61 takes no lock on it, so what
// it writes meanwhile is kept and the change refused. When the lock
// cannot be had, the error says so and the file is left as it is. It is
// written as Gemini CLI writes it: indented by two spaces, mode 0600.
func updateAccounts(ctx context.Context, path string, change func(acc accounts, ok bool) (accounts, bool)) error {
	return sharedlock.Rewrite(ctx, path, maxAnswer, func(data []byte) ([]byte, error) {
		var acc accounts
		ok := data != nil && json.Unmarshal(data, &acc) == nil
		if !ok {
			acc = accounts{}
		}
		acc, write := change(acc, ok)
		if !write {
			return nil, sharedlock.ErrUnchanged
		}
		return json.MarshalIndent(acc, "", "  ")
	}, safefile.ReplacerIf(0o600))
}
