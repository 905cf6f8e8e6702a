package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// trustCase is a home with trustedFolders.json rules and a workspace root
// with its own settings.
type trustCase struct {
	home, root string
	vars       map[string]string
}

func newTrustCase(t *testing.T, rules string) trustCase {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"tools": {"discoveryCommand": "user"}}`)
	writeSettings(t, root, `{"tools": {"discoveryCommand": "workspace"}}`)
	if rules != "" {
		// root within a JSON string: Windows's backslashes escaped.
		rules = strings.ReplaceAll(rules, "ROOT", strings.Trim(strconv.Quote(root), `"`))
		if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(rules), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return trustCase{home: home, root: root, vars: map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": ""}}
}

func (c trustCase) load(t *testing.T) (string, error) {
	t.Helper()
	trust, trustErr := DecideTrust(env(c.vars), []string{c.root})
	s, err := Load(env(c.vars), []string{c.root}, trust)
	// The one decision, which .env and GEMINI.md loading ask, agrees with
	// whether the root's settings were read.
	if workspace := s.Tools.DiscoveryCommand == "workspace"; trust.Trusted(c.root) != workspace || (trust.Why(c.root) == nil) != workspace {
		t.Errorf("Trusted(root) = %v, Why(root) = %v, but the root's settings were read: %v", trust.Trusted(c.root), trust.Why(c.root), workspace)
	}
	return s.Tools.DiscoveryCommand, errors.Join(trustErr, err)
}

func TestUntrustedWorkspaceSettingsAreNotRead(t *testing.T) {
	c := newTrustCase(t, "")
	got, err := c.load(t)
	if got != "user" {
		t.Errorf("discoveryCommand = %q, want the user's: the workspace is not trusted", got)
	}
	if err == nil || !strings.Contains(err.Error(), "is not trusted") || !strings.Contains(err.Error(), filepath.Join(c.root, ".gemini", "settings.json")) ||
		!strings.Contains(err.Error(), "GEMINI_CLI_TRUST_WORKSPACE=true") || !strings.Contains(err.Error(), "gemini-ls trust "+osshell.Local().Quote(c.root)) {
		t.Errorf("error = %v, want it to say the folder is not trusted and how to trust it", err)
	}
}

func TestTrustedFoldersRules(t *testing.T) {
	for _, c := range []struct {
		name, rules string
		trusted     bool
	}{
		{"TRUST_FOLDER on the root", `{"ROOT": "TRUST_FOLDER"}`, true},
		{"TRUST_FOLDER on a parent", `{"ROOT/..": "TRUST_FOLDER"}`, true},
		{"TRUST_PARENT on a sibling", `{"ROOT/../sibling": "TRUST_PARENT"}`, true},
		{"TRUST_FOLDER on a child only", `{"ROOT/child": "TRUST_FOLDER"}`, false},
		{"a prefix that is not a parent", `{"ROOTx": "TRUST_FOLDER", /* comments allowed */}`, false},
		{"DO_NOT_TRUST on the root beats a parent's trust", `{"ROOT/..": "TRUST_FOLDER", "ROOT": "DO_NOT_TRUST"}`, false},
		{"the longest rule wins", `{"ROOT/..": "DO_NOT_TRUST", "ROOT": "TRUST_FOLDER"}`, true},
		{"an unknown level is ignored", `{"ROOT": "YES"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newTrustCase(t, c.rules)
			got, _ := tc.load(t)
			if trusted := got == "workspace"; trusted != c.trusted {
				t.Errorf("rules %s: discoveryCommand = %q, want trusted=%v", c.rules, got, c.trusted)
			}
		})
	}
}

func TestTrustFromEnvironmentAndSettings(t *testing.T) {
	c := newTrustCase(t, `{"ROOT": "TRUST_FOLDER"}`)
	c.vars["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
	if got, err := c.load(t); got != "user" || err == nil || !strings.Contains(err.Error(), "GEMINI_CLI_TRUST_WORKSPACE=false") {
		t.Errorf("GEMINI_CLI_TRUST_WORKSPACE=false: %q, %v", got, err)
	}

	c = newTrustCase(t, "")
	c.vars["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if got, err := c.load(t); got != "workspace" || err != nil {
		t.Errorf("GEMINI_CLI_TRUST_WORKSPACE=true: %q, %v", got, err)
	}

	c = newTrustCase(t, "")
	writeSettings(t, c.home, `{"security": {"folderTrust": {"enabled": false}}}`)
	if got, err := c.load(t); got != "workspace" || err != nil {
		t.Errorf("folder trust disabled by the user: %q, %v", got, err)
	}

	// A workspace cannot turn folder trust off for itself.
	c = newTrustCase(t, "")
	writeSettings(t, c.root, `{"security": {"folderTrust": {"enabled": false}}, "tools": {"discoveryCommand": "workspace"}}`)
	if got, _ := c.load(t); got != "user" {
		t.Errorf("a workspace disabled its own folder trust: %q", got)
	}

	c = newTrustCase(t, "")
	c.vars["GEMINI_CLI_TRUSTED_FOLDERS_PATH"] = filepath.Join(c.root, "..", "elsewhere.json")
	os.WriteFile(c.vars["GEMINI_CLI_TRUSTED_FOLDERS_PATH"], []byte(`{`+strconv.Quote(c.root)+`: "TRUST_FOLDER"}`), 0o600)
	if got, err := c.load(t); got != "workspace" || err != nil {
		t.Errorf("GEMINI_CLI_TRUSTED_FOLDERS_PATH: %q, %v", got, err)
	}
}

func TestTrustFollowsSymlinks(t *testing.T) {
	c := newTrustCase(t, "")
	link := filepath.Join(t.TempDir(), "link")
	platformtest.Symlink(t, c.root, link)
	os.WriteFile(filepath.Join(c.home, ".gemini", "trustedFolders.json"), []byte(`{`+strconv.Quote(link)+`: "TRUST_FOLDER"}`), 0o600)
	if got, err := c.load(t); got != "workspace" {
		t.Errorf("a rule naming a link to the root: %q, %v", got, err)
	}
}

func TestBadTrustedFoldersFileTrustsNothing(t *testing.T) {
	c := newTrustCase(t, `{"ROOT": "TRUST_FOLDER"`)
	got, err := c.load(t)
	if got != "user" || err == nil || !strings.Contains(err.Error(), "trustedFolders.json:1:") {
		t.Errorf("got %q, %v; want the workspace untrusted and the bad file reported", got, err)
	}
}

// TestUndecidedFolders: only a folder no rule covers, with folder trust on
// and nothing in the environment deciding, is one to ask about; a rule of
// any level, the environment, folder trust off, or a trustedFolders.json
// that cannot be read (which nobody should be asked to overwrite) decide.
func TestUndecidedFolders(t *testing.T) {
	for _, c := range []struct {
		name, rules string
		vars        map[string]string
		settings    string
		undecided   bool
	}{
		{name: "no file", undecided: true},
		{name: "a rule for another folder", rules: `{"ROOT/child": "TRUST_FOLDER"}`, undecided: true},
		{name: "DO_NOT_TRUST", rules: `{"ROOT": "DO_NOT_TRUST"}`},
		{name: "TRUST_PARENT of a sibling", rules: `{"ROOT/../sibling": "TRUST_PARENT"}`},
		{name: "GEMINI_CLI_TRUST_WORKSPACE=false", vars: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}},
		{name: "folder trust off", settings: `{"security": {"folderTrust": {"enabled": false}}}`},
		{name: "a file that cannot be read", rules: `{"ROOT/child": "TRUST_FOLDER"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newTrustCase(t, c.rules)
			for k, v := range c.vars {
				tc.vars[k] = v
			}
			if c.settings != "" {
				writeSettings(t, tc.home, c.settings)
			}
			trust, _ := DecideTrust(env(tc.vars), []string{tc.root})
			if got := len(trust.Undecided()) == 1; got != c.undecided {
				t.Errorf("Undecided() = %q, want the root undecided: %v", trust.Undecided(), c.undecided)
			}
		})
	}
}
