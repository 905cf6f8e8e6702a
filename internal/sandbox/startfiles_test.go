package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/heldfile/heldtest"
)

// The start-up files watched are those a command could make: in a
// writable path, not there yet, outside a root's read-only .gemini. One
// that appears is renamed aside, with a number when the name is taken,
// the user warned and the model told once; Close looks a last time.
func TestStartupFilesACommandMakesAreMovedAside(t *testing.T) {
	root, home, above := t.TempDir(), t.TempDir(), t.TempDir()
	sub := filepath.Join(above, "sub")
	if err := os.MkdirAll(filepath.Join(root, "existing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "existing", ".env"), []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []string{
		filepath.Join(root, ".gemini", ".env"),  // read-only in the sandbox
		filepath.Join(root, ".env"),             // watched
		filepath.Join(root, "existing", ".env"), // there already: masked read-only
		filepath.Join(sub, ".env"),              // in an allowed path, not yet made
		filepath.Join(home, ".env"),             // read-only in the sandbox
		filepath.Join(home, ".gemini", ".env"),  // likewise
	}
	var warned []string
	s := &Sandbox{
		cfg:   Config{AllowedPaths: []string{above}, StartupFiles: files, Warn: func(msg string) { warned = append(warned, msg) }},
		roots: func() []string { return []string{root} },
		home:  home,
	}
	s.startFiles = s.watchStartFiles()
	for p, want := range map[string]bool{
		filepath.Join(root, ".env"):             true,
		filepath.Join(sub, ".env"):              true,
		filepath.Join(root, ".vscode"):          false, // read-only when there, not watched
		filepath.Join(root, ".gemini", ".env"):  false,
		filepath.Join(root, "existing", ".env"): false,
		filepath.Join(home, ".env"):             false,
		filepath.Join(home, ".gemini", ".env"):  false,
		filepath.Join(root, ".git"):             false, // made by the sandbox, kept read-only
	} {
		if slices.Contains(s.startFiles.watched, p) != want {
			t.Errorf("%s watched: %v, want %v", p, !want, want)
		}
	}
	if got := s.TakeBack(); got != "" {
		t.Errorf("nothing made, yet TakeBack = %q", got)
	}
	plant := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := filepath.Join(root, ".env")
	plant(env, "GEMINI_SANDBOX=false\n")
	plant(env+MadeSuffix, "taken\n")
	got := s.TakeBack()
	if want := "renamed " + env + MadeSuffix + "-2"; !strings.Contains(got, want) || !strings.Contains(got, env+" was made while commands ran in the sandbox") {
		t.Errorf("TakeBack = %q, want it to say %q", got, want)
	}
	if b, err := os.ReadFile(env + MadeSuffix + "-2"); err != nil || string(b) != "GEMINI_SANDBOX=false\n" {
		t.Errorf("the file moved aside: %q %v", b, err)
	}
	if _, err := os.Lstat(env); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", env, err)
	}
	if again := s.TakeBack(); again != "" {
		t.Errorf("said twice: %q", again)
	}
	// A background command makes one: the next command's set-up moves
	// it, and Close the last.
	plant(filepath.Join(sub, ".env"), "B=2\n")
	s.startFiles.check()
	plant(env, "C=3\n")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(sub, ".env"), env} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	if len(warned) != 3 {
		t.Errorf("the user was warned %d times, want 3: %q", len(warned), warned)
	}
}

// A sandbox records what it watches in the Gemini directory until it
// closes; a gemini-ls starting beside it, or after it died, moves aside
// what its commands made (MoveAsideWatched), and removes the records of
// those gone. A record is read whole or not at all, and names .env
// files only.
func TestWatchedStartupFilesOutliveTheirSandbox(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	watch := filepath.Join(home, ".local", "state", "gemini-ls", "sandbox-watch")
	env, other := filepath.Join(root, ".env"), filepath.Join(root, "notes.txt")
	s := &Sandbox{cfg: Config{StartupFiles: []string{env}, WatchDir: watch}, roots: func() []string { return []string{root} }, home: home}
	s.startFiles = s.watchStartFiles()
	records := func() []string {
		t.Helper()
		names, _ := filepath.Glob(filepath.Join(watch, "*"))
		return names
	}
	if got := records(); len(got) != 1 || got[0] != s.startFiles.record || !strings.HasPrefix(filepath.Base(got[0]), strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("records %q, want this process's", got)
	}
	// A gemini-ls that died: its record's lock is free. Its process id
	// (this one's) runs, as another process's may once the id is reused:
	// the lock, not the id, says the record was left behind.
	_, held, err := writeWatchRecord(watch, []string{filepath.Join(root, "sub", ".env"), other})
	if err != nil {
		t.Fatal(err)
	}
	held.Close()
	// One an older gemini-ls wrote, with a process id that runs.
	oldRecord := filepath.Join(watch, "1-old.json")
	b, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "paths": []string{filepath.Join(root, "old", ".env")}})
	if err := os.WriteFile(oldRecord, b, 0o600); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(watch, ".new-1")
	for p, text := range map[string]string{env: "GEMINI_SANDBOX=false\n", filepath.Join(root, "sub", ".env"): "X=1\n", filepath.Join(root, "old", ".env"): "Y=1\n", other: "mine\n", half: "{"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var warned []string
	MoveAsideWatched(watch, func(msg string) { warned = append(warned, msg) })
	for _, p := range []string{env, filepath.Join(root, "sub", ".env"), filepath.Join(root, "old", ".env")} {
		if _, err := os.Stat(p + MadeSuffix); err != nil {
			t.Errorf("%s was not moved aside: %v", p, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file not a .env was moved: %v", err)
	}
	if len(warned) != 3 {
		t.Errorf("warned %q, want three", warned)
	}
	if got, want := records(), []string{half, s.startFiles.record}; !slices.Equal(got, want) {
		t.Errorf("records %q, want %q: the dead ones removed, the live one kept, the half-written one passed over", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := records(); !slices.Equal(got, []string{half}) {
		t.Errorf("after Close, records %q", got)
	}
}

// A start-up file the user let the agent's edit tools write is theirs:
// no longer watched, here nor in the record a start beside reads.
func TestApprovedStartupFilesStayWhereTheyAre(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	watch := filepath.Join(home, ".local", "state", "gemini-ls", "sandbox-watch")
	env, sub := filepath.Join(root, ".env"), filepath.Join(root, "sub", ".env")
	s := &Sandbox{cfg: Config{StartupFiles: []string{sub, env}, WatchDir: watch}, roots: func() []string { return []string{root} }, home: home}
	s.startFiles = s.watchStartFiles()
	s.Approve(env)
	if !slices.Equal(s.startFiles.watched, []string{sub}) {
		t.Errorf("watched %q", s.startFiles.watched)
	}
	if err := os.WriteFile(env, []byte("DATABASE_URL=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	MoveAsideWatched(watch, nil)
	if said := s.TakeBack(); said != "" {
		t.Errorf("TakeBack = %q", said)
	}
	if _, err := os.Stat(env); err != nil {
		t.Errorf("the approved .env was moved: %v", err)
	}
	s.Approve(sub)
	if names, _ := filepath.Glob(filepath.Join(watch, "*")); len(names) != 0 {
		t.Errorf("records left with nothing watched: %q", names)
	}
}

// A start-up file the editor has open is the user's, made there or
// looked at: not moved aside, no longer watched, nor recorded.
func TestStartupFilesOpenInTheEditorAreTheUsers(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	watch := filepath.Join(home, ".local", "state", "gemini-ls", "sandbox-watch")
	env, sub := filepath.Join(root, ".env"), filepath.Join(root, "sub", ".env")
	open := map[string]bool{}
	s := &Sandbox{cfg: Config{StartupFiles: []string{sub, env}, WatchDir: watch, OpenInEditor: func(p string) bool { return open[p] }}, roots: func() []string { return []string{root} }, home: home}
	s.startFiles = s.watchStartFiles()
	t.Cleanup(s.startFiles.close) // its record held open: Windows removes no directory holding it
	if err := os.WriteFile(env, []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open[env] = true
	if said := s.TakeBack(); said != "" {
		t.Errorf("TakeBack = %q", said)
	}
	if _, err := os.Stat(env); err != nil {
		t.Errorf("the .env the editor has open was moved: %v", err)
	}
	open[env] = false
	MoveAsideWatched(watch, nil)
	if _, err := os.Stat(env); err != nil || !slices.Equal(s.startFiles.watched, []string{sub}) {
		t.Errorf("still watched: %v, %q", err, s.startFiles.watched)
	}
}

// holdRecordEnv names, for the test binary run as a child, the directory
// where it records a watch, held until it is killed.
const holdRecordEnv = "GEMINI_LS_TEST_HOLD_RECORD"

// A record is kept while the process that wrote it lives, and is taken
// for left behind once that process is killed, with nothing run at its
// end: its lock went with it.
func TestARecordLastsAsLongAsItsProcess(t *testing.T) {
	heldtest.Child(holdRecordEnv, func(dir string) (string, error) {
		record, _, err := writeWatchRecord(dir, []string{filepath.Join(dir, ".env")})
		return record, err
	})
	watch := t.TempDir()
	record, kill := heldtest.Start(t, "TestARecordLastsAsLongAsItsProcess", holdRecordEnv, watch)
	MoveAsideWatched(watch, nil)
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("a live process's record was removed: %v", err)
	}
	kill()
	MoveAsideWatched(watch, nil)
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("a killed process's record is still there: %v", err)
	}
}
