package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// integrityEnv, set in a test binary's environment, makes it a process
// that records the integrity of an install of that name in the user
// directory userDirEnv names, and exits (locktest.Processes).
const (
	integrityEnv = "GEMINI_LS_TEST_RECORD_INTEGRITY"
	userDirEnv   = "GEMINI_LS_TEST_USER_DIR"
)

func TestMain(m *testing.M) {
	locktest.Writer(integrityEnv, func(name string) error {
		m := Manager{Config: Config{UserDir: os.Getenv(userDirEnv)}}
		return m.recordIntegrity(context.Background(), name, Record{Source: "/src/" + name, Type: TypeLocal})
	})
	os.Exit(m.Run())
}

// integrityHome is a user directory holding an integrity key, as Gemini
// CLI makes one where there is no keychain.
func integrityHome(t *testing.T) string {
	t.Helper()
	userDir, _ := home(t)
	write(t, filepath.Join(userDir, integrityKeyFile), "the-key\n")
	return userDir
}

// readIntegrity reads the store in userDir, which must be signed with
// integrityHome's key.
func readIntegrity(t *testing.T, userDir string) integrityStore {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(userDir, integrityFile))
	if err != nil {
		t.Fatal(err)
	}
	var store integrityStore
	if err := json.Unmarshal(data, &store); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if content, err := stableJSON(store.Store); err != nil || !sameHex(store.Signature, sign("the-key", content)) {
		t.Errorf("the store's signature does not match its records (%v):\n%s", err, data)
	}
	return store
}

// 20 processes each recording its own install at once: every record is
// kept, in a store signed whole.
func TestConcurrentIntegrityRecordsAreAllKept(t *testing.T) {
	const n = 20
	userDir := integrityHome(t)
	name := func(i int) string { return fmt.Sprintf("ext-%02d", i) }
	locktest.Processes(t, n, func(i int) []string {
		return []string{integrityEnv + "=" + name(i), userDirEnv + "=" + userDir}
	})
	store := readIntegrity(t, userDir)
	var lost []string
	for i := range n {
		if _, ok := store.Store[name(i)]; !ok {
			lost = append(lost, name(i))
		}
	}
	if len(lost) > 0 {
		t.Errorf("the records of %d of %d installs were lost: %v", len(lost), n, lost)
	}
}

// A record waits for a fresh lock on the store, and gives up, the store
// unchanged, on one never released.
func TestIntegrityRecordHonoursTheLock(t *testing.T) {
	userDir := integrityHome(t)
	m := Manager{Config: Config{UserDir: userDir}}
	if err := m.recordIntegrity(t.Context(), "first", Record{Source: "/src/first", Type: TypeLocal}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(userDir, integrityFile)
	locktest.Waits(t, path, func(ctx context.Context) error {
		return m.recordIntegrity(ctx, "second", Record{Source: "/src/second", Type: TypeLocal})
	})
	if store := readIntegrity(t, userDir); len(store.Store) != 2 {
		t.Errorf("after the wait the store holds %v, want first and second", store.Store)
	}
	locktest.Refused(t, path, func(ctx context.Context) error {
		return m.recordIntegrity(ctx, "third", Record{Source: "/src/third", Type: TypeLocal})
	})
}
