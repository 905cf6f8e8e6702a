package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// TrustedFoldersPath is the file that records which folders the user
// trusts, shared with Gemini CLI: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
// trustedFolders.json in the user's directory; "" when there is neither.
func TrustedFoldersPath(getenv Getenv) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	if dir := UserDir(getenv); dir != "" {
		return filepath.Join(dir, "trustedFolders.json")
	}
	return ""
}

// SetFolderTrust records level (TrustFolder, TrustParent or DoNotTrust)
// for folder in the trusted folders file at path, as Gemini CLI 0.61's
// trust dialog, /permissions and extension installs record it
// (LoadedTrustedFolders.setValue): the key is folder made absolute
// (lower-cased where file systems usually ignore case); TRUST_PARENT is
// recorded against folder itself, and trusts its parent. The other rules
// stay in their order, comments dropped; the file is JSON indented by two
// spaces with no final line break, private (0o600). A file that is not
// an object of trust levels is left as it is, and the error says so, as
// Gemini CLI refuses to update it. It is the one writer of the file.
//
// The file is read and rewritten under Gemini CLI's lock on it
// (internal/sharedlock), which its own writer takes too, so that grants
// made at once, by either program, are all kept; when the lock cannot be
// had, the error says so and the file is left as it is.
func SetFolderTrust(ctx context.Context, path, folder, level string) error {
	if level != TrustFolder && level != TrustParent && level != DoNotTrust {
		return fmt.Errorf("%q is not a trust level", level)
	}
	key, err := trustKey(folder)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("recording the folder's trust: %w", err)
	}
	err = sharedlock.Rewrite(ctx, path, maxFileSize, func(before []byte) ([]byte, error) {
		var keys []string
		levels := map[string]string{}
		if clean := stripJSONC(before); len(bytes.TrimSpace(clean)) > 0 {
			var err error
			if keys, levels, err = orderedLevels(clean); err != nil {
				return nil, fmt.Errorf("Cannot update trusted folders because the configuration file is invalid: %s: %v. Please fix the file manually before trying to update it.", path, err)
			}
		}
		if _, ok := levels[key]; !ok {
			keys = append(keys, key)
		}
		levels[key] = level
		return encodeLevels(keys, levels), nil
	}, safefile.ReplacerIf(0o600))
	if err != nil {
		return fmt.Errorf("recording the folder's trust: %w", err)
	}
	return nil
}

// RecordTrust records level for folder in the trustedFolders.json
// getenv names (SetFolderTrust) and, when it trusts folder, that the
// user accepts folder's configuration as it now is, in the sandboxes'
// trail (sandboxtrail.Trail.Accept): a folder asked about again because
// a sandboxed command could have changed its configuration is trusted
// once more.
func RecordTrust(ctx context.Context, getenv Getenv, folder, level string) error {
	path := TrustedFoldersPath(getenv)
	if path == "" {
		return errors.New("neither " + HomeVariable + ", GEMINI_CLI_HOME nor GEMINI_CLI_TRUSTED_FOLDERS_PATH is set, so the folder's trust cannot be recorded")
	}
	if err := SetFolderTrust(ctx, path, folder, level); err != nil {
		return err
	}
	if level == DoNotTrust {
		return nil
	}
	return SandboxTrail(getenv).Accept(folder)
}

// StateDir is where gemini-ls keeps what it writes for itself (saved
// sessions, transcripts, the sandboxes' records and trail):
// $XDG_STATE_HOME/gemini-ls, else .local/state/gemini-ls in the user's
// home (SystemHome: gemini-ls's own state is not in GEMINI_CLI_HOME); ""
// when neither is known (a relative XDG_STATE_HOME is ignored, as the
// XDG spec says).
func StateDir(getenv Getenv) string {
	if state := getenv("XDG_STATE_HOME"); filepath.IsAbs(state) {
		return filepath.Join(state, "gemini-ls")
	}
	if home := SystemHome(getenv); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "gemini-ls")
	}
	return ""
}

// SandboxTrail is the sandboxes' trail in the state directory, from the
// process's environment, which a .env does not change; the zero Trail
// when there is no state directory.
func SandboxTrail(getenv Getenv) sandboxtrail.Trail {
	if state := StateDir(getenv); state != "" {
		return sandboxtrail.At(filepath.Join(state, "sandbox-trail"))
	}
	return sandboxtrail.Trail{}
}

// trustKey is folder as Gemini CLI keys it (normalizePath): absolute,
// lower-cased on macOS and Windows.
func trustKey(folder string) (string, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return "", fmt.Errorf("the folder %q: %w", folder, err)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		abs = strings.ToLower(abs)
	}
	return abs, nil
}

// encodeLevels is the file as JSON.stringify(rules, null, 2) writes it.
func encodeLevels(keys []string, levels map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  %s: %s", jsString(k), jsString(levels[k]))
	}
	if len(keys) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.Bytes()
}

// jsString is s quoted as JSON.stringify quotes it: unlike Go's encoder,
// it leaves <, > and & as they are.
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// orderedLevels reads a trusted folders file: its paths in order, and
// their levels; an entry of another value is an error. A path given twice
// keeps its first place and its last level, as JSON.parse does.
func orderedLevels(data []byte) ([]string, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("Trusted folders file is not a valid JSON object.")
	}
	var keys []string
	levels := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k := fmt.Sprint(t)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		s, ok := v.(string)
		if !ok || (s != TrustFolder && s != TrustParent && s != DoNotTrust) {
			return nil, nil, fmt.Errorf("Invalid trust level %v for path %q", v, k)
		}
		if _, seen := levels[k]; !seen {
			keys = append(keys, k)
		}
		levels[k] = s
	}
	return keys, levels, nil
}
