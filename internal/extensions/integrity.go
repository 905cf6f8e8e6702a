package extensions

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/scrypt"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// Gemini CLI 0.61 keeps, in ~/.gemini/extension_integrity.json, for each
// extension it installed, the SHA-256 of its install metadata and an
// HMAC of that hash, the whole store signed too; it refuses to update an
// extension whose record does not match. The HMAC key is in the system
// keychain, or, where there is none (a server, a container), in its
// encrypted file keychain ~/.gemini/gemini-credentials.json (or, when
// that fails, ~/.gemini/integrity.key). gemini-ls records its installs
// there when it can read that key and the store verifies with it, so a
// record Gemini CLI left for an earlier install of the same name does
// not block Gemini CLI's updates; it never makes a key, which Gemini CLI
// could not find in the system keychain.
const (
	integrityFile    = "extension_integrity.json"
	integrityKeyFile = "integrity.key"
	credentialsFile  = "gemini-credentials.json"
	integrityService = "gemini-cli-extension-integrity"
	integrityAccount = "secret-key"
)

// integrityStore is extension_integrity.json.
type integrityStore struct {
	Store     map[string]integrityRecord `json:"store"`
	Signature string                     `json:"signature"`
}

type integrityRecord struct {
	Hash      string `json:"hash"`
	Signature string `json:"signature"`
}

// errNoIntegrityKey: no key gemini-ls can read.
var errNoIntegrityKey = errors.New("Gemini CLI's extension integrity key is not readable here (it is in the system keychain, or was never made)")

// recordIntegrity stores rec's integrity record for the extension called
// name, as Gemini CLI's ExtensionIntegrityManager.store does. It does
// nothing when there is no store and no key (Gemini CLI then finds no
// record, which does not block an update), and says why it could not
// when there is a store it cannot sign. The store is read and rewritten
// under its lock (sharedlock.Rewrite): gemini-ls processes installing at
// once wait for each other, so that none drops the record another wrote;
// Gemini CLI 0.61 takes no lock on it, so what it writes meanwhile is
// kept and the record refused. When the lock cannot be had, the error
// says so and the store is left as it is.
func (m Manager) recordIntegrity(ctx context.Context, name string, rec Record) error {
	path := filepath.Join(m.UserDir, integrityFile)
	key, keyErr := integrityKey(m.UserDir)
	if keyErr != nil {
		// Nothing can be written: no lock is needed to say so.
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return keyErr
	}
	return sharedlock.Rewrite(ctx, path, maxFileSize, func(data []byte) ([]byte, error) {
		store := integrityStore{Store: map[string]integrityRecord{}}
		if data != nil {
			if err := jsjson.Decode(data, &store); err != nil || store.Store == nil {
				return nil, fmt.Errorf("%s cannot be read, so it was left as it is", path)
			}
			content, err := stableJSON(store.Store)
			if err != nil {
				return nil, err
			}
			if !sameHex(store.Signature, sign(key, content)) {
				return nil, fmt.Errorf("%s is not signed with the key gemini-ls can read, so it was left as it is", path)
			}
		}
		meta, err := stableJSON(rec)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(meta))
		h := hex.EncodeToString(sum[:])
		store.Store[name] = integrityRecord{Hash: h, Signature: sign(key, h)}
		content, err := stableJSON(store.Store)
		if err != nil {
			return nil, err
		}
		store.Signature = sign(key, content)
		return marshalIndent(store)
	}, safefile.ReplacerIf(0o600))
}

func sign(key, data string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(data))
	return hex.EncodeToString(mac.Sum(nil))
}

func sameHex(a, b string) bool {
	x, err1 := hex.DecodeString(a)
	y, err2 := hex.DecodeString(b)
	return err1 == nil && err2 == nil && subtle.ConstantTimeCompare(x, y) == 1
}

// stableJSON is json-stable-stringify's text of v: keys sorted, no
// blanks, no HTML escapes.
func stableJSON(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// integrityKey is Gemini CLI's integrity key where gemini-ls can read
// it: its file keychain's entry, else integrity.key.
func integrityKey(userDir string) (string, error) {
	if data, err := safefile.Read(filepath.Join(userDir, credentialsFile), maxFileSize); err == nil {
		if entries, err := decryptFileKeychain(string(data)); err == nil {
			if key := entries[integrityService][integrityAccount]; key != "" {
				return key, nil
			}
		}
	}
	if data, err := safefile.Read(filepath.Join(userDir, integrityKeyFile), maxFileSize); err == nil {
		if key := strings.TrimSpace(string(data)); key != "" {
			return key, nil
		}
	}
	return "", errNoIntegrityKey
}

// decryptFileKeychain reads Gemini CLI's FileKeychain: "iv:tag:data" in
// hex, AES-256-GCM with a key scrypt derives from the host and user names.
func decryptFileKeychain(text string) (map[string]map[string]string, error) {
	parts := strings.Split(strings.TrimSpace(text), ":")
	if len(parts) != 3 {
		return nil, errors.New("not Gemini CLI's file keychain")
	}
	iv, err1 := hex.DecodeString(parts[0])
	tag, err2 := hex.DecodeString(parts[1])
	sealed, err3 := hex.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil || len(tag) != 16 {
		return nil, errors.New("not Gemini CLI's file keychain")
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	key, err := scrypt.Key([]byte("gemini-cli-oauth"), []byte(host+"-"+u.Username+"-gemini-cli"), 16384, 8, 1, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, len(iv))
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, iv, append(sealed, tag...), nil)
	if err != nil {
		return nil, err
	}
	var entries map[string]map[string]string
	if err := json.Unmarshal(plain, &entries); err != nil {
		return nil, err
	}
	return entries, nil
}
