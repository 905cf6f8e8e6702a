package setup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A sandboxed command that configures a folder between the check of its
// trust and the read of what it holds is not obeyed: the trail is read
// again before anything of it runs, the folder is then not trusted and
// asked about, its planted settings unread, and the first attempt's
// warnings are not said twice.
func TestAFolderConfiguredWhileItWasReadIsNotTrusted(t *testing.T) {
	home, parent := t.TempDir(), t.TempDir()
	app := filepath.Join(parent, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(parent)+`: "TRUST_FOLDER"}`)
	// A warning said at every build, and one said once per process.
	writeFile(t, filepath.Join(home, "system.json"), "{ broken")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"noSuchSetting": true}`)
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "system.json"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	getenv := func(k string) string { return env[k] }
	window, err := settings.SandboxTrail(getenv).Open([]string{parent}, []string{parent})
	if err != nil {
		t.Fatal(err)
	}
	defer window.Close()
	ws, err := workspace.New([]string{app}, nil)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(app, ".gemini", "settings.json")
	var warnings []string
	b, err := Build(context.Background(), Options{
		Workspace: ws,
		Getenv:    getenv,
		Warn:      func(what string, err error) { warnings = append(warnings, what) },
		afterTrust: func() {
			if _, err := os.Stat(planted); os.IsNotExist(err) {
				writeFile(t, planted, `{"tools": {"discoveryCommand": "planted"}}`)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Trust.Trusted(app) {
		t.Fatal("the folder configured while it was read is trusted")
	}
	if got := b.Settings.Tools.DiscoveryCommand; got == "planted" {
		t.Error("the planted settings were read")
	}
	if got := b.Trust.Changed(app); !strings.Contains(got, filepath.Join(app, ".gemini")) {
		t.Errorf("Changed(app) = %q, want what was planted", got)
	}
	if got := b.Trust.Undecided(); !slices.Equal(got, []string{app}) {
		t.Errorf("Undecided() = %q, want the folder asked about", got)
	}
	for _, want := range []string{"some settings were not read", UnreadSettings} {
		if n := slices.Index(warnings, want); n < 0 || slices.Contains(warnings[n+1:], want) {
			t.Errorf("warnings = %q, want %q once", warnings, want)
		}
	}
}
