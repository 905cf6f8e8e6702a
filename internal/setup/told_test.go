package setup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Each settings key nothing reads is named once per process, with its
// file: not again on a reload, nor by a second Build sharing the Told (an
// ACP process's next session); a key added later is named then.
func TestUnreadKeysAreToldOncePerProcess(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	userFile := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(text string) {
		if err := os.WriteFile(userFile, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"ui": {"theme": "GitHub"}, "general": {"vimMode": true, "defaultAproval": "yolo"}, "colour": "blue", "modle": "pro"}`)
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_TRUST_WORKSPACE": "true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	var told []string
	shared := &Told{}
	build := func() *Built {
		b, err := Build(context.Background(), Options{
			Workspace: ws,
			Getenv:    func(k string) string { return env[k] },
			Warn: func(what string, err error) {
				if what == "settings gemini-ls does not read are ignored" {
					told = append(told, err.Error())
				}
			},
			Told: shared,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	b := build()
	want := "settings file " + userFile + ": gemini-ls does not implement Gemini CLI's general.vimMode, ui.theme; " +
		"neither gemini-ls nor Gemini CLI has a setting colour, general.defaultAproval (did you mean general.defaultApprovalMode?), modle (did you mean model?); ignored"
	if len(told) != 1 || told[0] != want {
		t.Fatalf("told %q\nwant [%q]", told, want)
	}
	if _, _, err := b.Reload(nil); err != nil {
		t.Fatal(err)
	}
	build()
	if len(told) != 1 {
		t.Fatalf("told again: %q", told)
	}
	write(`{"ui": {"theme": "GitHub", "hideTips": true}}`)
	if _, _, err := b.Reload(nil); err != nil {
		t.Fatal(err)
	}
	if len(told) != 2 || !strings.HasSuffix(told[1], ": gemini-ls does not implement Gemini CLI's ui.hideTips; ignored") {
		t.Errorf("after a key was added, told %q", told)
	}
}

// The removal of a project's old sessions is one per process: every
// build (ACP's sessions, a rebuild) shares the project's once.
func TestToldExpiryOncePerProject(t *testing.T) {
	var told Told
	first, again := told.expiry("/a"), told.expiry("/a")
	if first != again {
		t.Error("two builds of one project run the removal twice")
	}
	if first == told.expiry("/b") {
		t.Error("two projects share one removal")
	}
}
