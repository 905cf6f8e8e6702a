package enablement

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// The file is written as 0.61's writeConfig writes it
// (JSON.stringify(config, null, 2), no newline after), its names
// normalized, other servers' entries kept in their places; enabling
// removes the entry.
func TestDisableAndEnableWriteTheFileAs061Does(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := In(filepath.Join(dir, ".gemini"))
	if err := f.Disable(ctx, " Tester "); err != nil {
		t.Fatal(err)
	}
	if err := f.Disable(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"tester\": {\n    \"enabled\": false\n  },\n  \"other\": {\n    \"enabled\": false\n  }\n}"
	if got := read(t, f); got != want {
		t.Errorf("after two disables the file is\n%s\nwant\n%s", got, want)
	}
	disabled, err := f.Disabled()
	if err != nil || !reflect.DeepEqual(disabled, map[string]bool{"tester": true, "other": true}) {
		t.Errorf("Disabled() = %v, %v", disabled, err)
	}
	if err := f.Enable(ctx, "TESTER"); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, f), "{\n  \"other\": {\n    \"enabled\": false\n  }\n}"; got != want {
		t.Errorf("after enable the file is\n%s\nwant\n%s", got, want)
	}
}

// What 0.61 wrote is read: an entry enabled true (or of another shape)
// turns nothing off; a file that is not JSON is reported and never
// overwritten.
func TestReadsWhatGeminiCLIWroteAndKeepsABrokenFile(t *testing.T) {
	dir := t.TempDir()
	f := In(dir)
	if err := os.WriteFile(f.Path(), []byte(`{"a": {"enabled": true}, "b": {"enabled": false}, "c": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if disabled, err := f.Disabled(); err != nil || !reflect.DeepEqual(disabled, map[string]bool{"b": true}) {
		t.Errorf("Disabled() = %v, %v; want only b", disabled, err)
	}
	if err := os.WriteFile(f.Path(), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Disabled(); err == nil || !strings.Contains(err.Error(), f.Path()) {
		t.Errorf("Disabled() on a broken file: %v, want an error naming it", err)
	}
	if err := f.Disable(context.Background(), "a"); err == nil {
		t.Error("Disable overwrote a file it could not parse")
	}
	if got := read(t, f); got != "{not json" {
		t.Errorf("the broken file became %q", got)
	}
}

func read(t *testing.T, f File) string {
	t.Helper()
	b, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Disabling waits for a fresh lock on the file, as every writer of it in
// gemini-ls does, so that two at once keep both.
func TestDisableWaitsForTheLock(t *testing.T) {
	f := In(filepath.Join(t.TempDir(), ".gemini"))
	if err := f.Disable(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	locktest.Waits(t, f.path, func(ctx context.Context) error { return f.Disable(ctx, "second") })
	if got := read(t, f); !strings.Contains(got, `"first"`) || !strings.Contains(got, `"second"`) {
		t.Errorf("after the wait the file is\n%s", got)
	}
}

// Gemini CLI 0.61 writes the file without the lock (writeConfig,
// fs.writeFile): what it writes while a change is being made is kept,
// and the change is refused, not written over it.
func TestAWriteOf061MeanwhileIsKept(t *testing.T) {
	f := In(filepath.Join(t.TempDir(), ".gemini"))
	if err := f.Disable(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	theirs := "{\n  \"theirs\": {\n    \"enabled\": false\n  }\n}"
	err := f.update(t.Context(), func(config *jsjson.Object) bool {
		if err := os.WriteFile(f.path, []byte(theirs), 0o644); err != nil {
			t.Fatal(err)
		}
		config.Set("ours", jsjson.NewObject())
		return true
	})
	if err == nil || !strings.Contains(err.Error(), "changed while it was being written") {
		t.Errorf("a change over 0.61's write: %v", err)
	}
	if got := read(t, f); got != theirs {
		t.Errorf("the file is\n%s\nwant 0.61's\n%s", got, theirs)
	}
}
