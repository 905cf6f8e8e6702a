package settings

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// A folder inside a trusted one, whose configuration a sandboxed command
// could have written, is not trusted until the user says so again: its
// settings are not read, it is asked about (Undecided, Changed), and the
// user's yes (RecordTrust) trusts it as it now is. GEMINI_CLI_TRUST_WORKSPACE=true,
// the user's yes for a run, is not second-guessed; "Don't trust" accepts
// nothing.
func TestAFolderASandboxCouldHaveConfiguredIsAskedAboutAgain(t *testing.T) {
	c := newTrustCase(t, `{"ROOT": "TRUST_FOLDER"}`)
	c.vars["XDG_STATE_HOME"] = ""
	app := filepath.Join(c.root, "packages", "app")
	time.Sleep(2500 * time.Millisecond) // the root's own files, made before the window and its slack
	window, err := SandboxTrail(env(c.vars)).Open([]string{c.root}, []string{c.root})
	if err != nil {
		t.Fatal(err)
	}
	writeSettings(t, app, `{"tools": {"discoveryCommand": "planted"}}`)
	if err := window.Close(); err != nil {
		t.Fatal(err)
	}

	trust, err := DecideTrust(env(c.vars), []string{c.root, app})
	if err != nil {
		t.Fatal(err)
	}
	if !trust.Trusted(c.root) {
		t.Errorf("the root itself, whose .gemini the sandbox kept read-only, is not trusted: %v", trust.Why(c.root))
	}
	if trust.Trusted(app) {
		t.Fatal("the folder a sandboxed command configured is trusted")
	}
	settingsFile := filepath.Join(app, ".gemini", "settings.json")
	if got := trust.Undecided(); len(got) != 1 || got[0] != app {
		t.Errorf("Undecided() = %q, want the folder asked about again", got)
	}
	if got := trust.Changed(app); !strings.Contains(got, settingsFile) || !strings.Contains(got, c.root) {
		t.Errorf("Changed() = %q, want the file and where the sandbox could write", got)
	}
	if why := trust.Why(app); why == nil || !strings.Contains(why.Error(), "gemini-ls trust "+osshell.Local().Quote(app)) {
		t.Errorf("Why() = %v, want how to trust it again", why)
	}
	s, _ := Load(env(c.vars), []string{app}, trust)
	if s.Tools.DiscoveryCommand == "planted" {
		t.Error("the planted settings were read")
	}

	c.vars["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if trust, _ := DecideTrust(env(c.vars), []string{app}); !trust.Trusted(app) {
		t.Errorf("GEMINI_CLI_TRUST_WORKSPACE=true does not trust it: %v", trust.Why(app))
	}
	c.vars["GEMINI_CLI_TRUST_WORKSPACE"] = ""

	ctx := context.Background()
	if err := RecordTrust(ctx, env(c.vars), app, DoNotTrust); err != nil {
		t.Fatal(err)
	}
	if found, err := SandboxTrail(env(c.vars)).Changed(ctx, app, nil); err != nil || len(found) == 0 {
		t.Errorf("after Don't trust, the planted files are no longer found: %v, %v", found, err)
	}
	// The user reads the question first: a yes within a tick of the
	// change does not cover it (sandboxtrail's tick).
	time.Sleep(50 * time.Millisecond)
	if err := RecordTrust(ctx, env(c.vars), app, TrustFolder); err != nil {
		t.Fatal(err)
	}
	trust, _ = DecideTrust(env(c.vars), []string{app})
	if !trust.Trusted(app) || trust.Changed(app) != "" {
		t.Errorf("trusted again, it is still not trusted: %v", trust.Why(app))
	}
	if s, _ := Load(env(c.vars), []string{app}, trust); s.Tools.DiscoveryCommand != "planted" {
		t.Errorf("trusted again, its settings are not read: discoveryCommand %q", s.Tools.DiscoveryCommand)
	}
}

// A trail that cannot be read trusts nothing it would have checked, and
// says why; it is not taken as empty.
func TestATrailThatCannotBeReadTrustsNoFolderItCovers(t *testing.T) {
	c := newTrustCase(t, `{"ROOT": "TRUST_FOLDER"}`)
	trail := filepath.Join(StateDir(env(c.vars)), "sandbox-trail")
	if err := os.MkdirAll(trail, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trail, "closed.jsonl"), []byte("damaged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trust, _ := DecideTrust(env(c.vars), []string{c.root})
	if why := trust.Why(c.root); why == nil || !strings.Contains(why.Error(), filepath.Join(trail, "closed.jsonl")) {
		t.Errorf("Why() = %v, want the trail named", why)
	}
}

// What a sandboxed command changes in a folder's configuration after the
// check of its trust, while it is being read, is found when the trail is
// read again (Recheck), as is a .env that was read and is gone by then;
// the folder is then distrusted and asked about (Distrusting), and not
// checked again.
func TestRecheckFindsWhatChangedWhileItWasRead(t *testing.T) {
	c := newTrustCase(t, `{"ROOT": "TRUST_FOLDER"}`)
	c.vars["XDG_STATE_HOME"] = ""
	app := filepath.Join(c.root, "packages", "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	window, err := SandboxTrail(env(c.vars)).Open([]string{c.root}, []string{c.root})
	if err != nil {
		t.Fatal(err)
	}
	defer window.Close()
	trust, err := DecideTrust(env(c.vars), []string{app})
	if err != nil || !trust.Trusted(app) {
		t.Fatalf("the folder, unchanged, is not trusted: %v, %v", trust.Why(app), err)
	}
	if got := trust.Recheck(""); got != nil {
		t.Errorf("Recheck with nothing changed = %q", got)
	}
	dotenv := filepath.Join(app, ".env")
	if got := trust.Recheck(dotenv)[app]; !strings.Contains(got, dotenv) || !strings.Contains(got, "removed") {
		t.Errorf("Recheck of a .env read and gone = %q, want it named, removed", got)
	}
	writeSettings(t, app, `{"tools": {"discoveryCommand": "planted"}}`)
	changed := trust.Recheck("")
	if got := changed[app]; !strings.Contains(got, filepath.Join(app, ".gemini")) {
		t.Fatalf("Recheck after the settings were planted = %q, want them named", changed)
	}
	distrusted := trust.Distrusting(changed)
	if distrusted.Trusted(app) || distrusted.Changed(app) != changed[app] {
		t.Errorf("distrusted: trusted %v, Changed %q", distrusted.Trusted(app), distrusted.Changed(app))
	}
	if got := distrusted.Undecided(); len(got) != 1 || got[0] != app {
		t.Errorf("distrusted: Undecided() = %q, want the folder asked about", got)
	}
	if !trust.Trusted(app) {
		t.Error("Distrusting changed the Trust it was called on")
	}
	if got := distrusted.Recheck(""); got != nil {
		t.Errorf("a distrusted folder is checked again: %q", got)
	}
}

// The editor's trust (VS Code's workspace trust) is a standing decision
// about the folder, as a rule is, not the user's yes for a run: a root it
// trusts whose configuration a sandboxed command could have changed is
// not trusted, and is asked about, until the user says so again; with no
// such change it is trusted though no rule covers it. The editor's
// "false" trusts nothing and asks about nothing, folder trust off or not.
func TestTheEditorsTrustIsCheckedAgainstTheTrailAsARuleIs(t *testing.T) {
	c := newTrustCase(t, "")
	c.vars["XDG_STATE_HOME"] = ""
	c.vars[EditorTrustVariable] = "true"
	app := filepath.Join(c.root, "packages", "app")
	time.Sleep(2500 * time.Millisecond) // the root's own files, made before the window and its slack
	if trust, _ := DecideTrust(env(c.vars), []string{c.root}); !trust.Trusted(c.root) {
		t.Fatalf("trusted by the editor, no rule, nothing changed: not trusted: %v", trust.Why(c.root))
	}
	window, err := SandboxTrail(env(c.vars)).Open([]string{c.root}, []string{c.root})
	if err != nil {
		t.Fatal(err)
	}
	writeSettings(t, app, `{"tools": {"discoveryCommand": "planted"}}`)
	if err := window.Close(); err != nil {
		t.Fatal(err)
	}

	trust, _ := DecideTrust(env(c.vars), []string{app})
	if trust.Trusted(app) {
		t.Fatal("the editor's trust vouches for a folder a sandboxed command configured")
	}
	if got := trust.Undecided(); len(got) != 1 || got[0] != app {
		t.Errorf("Undecided() = %q, want the folder asked about again", got)
	}
	if got := trust.Changed(app); !strings.Contains(got, filepath.Join(app, ".gemini", "settings.json")) {
		t.Errorf("Changed() = %q, want the changed file", got)
	}
	if s, _ := Load(env(c.vars), []string{app}, trust); s.Tools.DiscoveryCommand == "planted" {
		t.Error("the planted settings were read")
	}

	time.Sleep(50 * time.Millisecond) // a yes a clock tick after the change at least
	if err := RecordTrust(context.Background(), env(c.vars), app, TrustFolder); err != nil {
		t.Fatal(err)
	}
	if trust, _ := DecideTrust(env(c.vars), []string{app}); !trust.Trusted(app) {
		t.Errorf("confirmed again, it is still not trusted: %v", trust.Why(app))
	}

	c.vars[EditorTrustVariable] = "false"
	c.vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = filepath.Join(c.home, "system.json")
	if err := os.WriteFile(c.vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], []byte(`{"security": {"folderTrust": {"enabled": false}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	trust, _ = DecideTrust(env(c.vars), []string{app})
	if trust.Trusted(app) || len(trust.Undecided()) != 0 {
		t.Errorf("the editor's false: Trusted %v, Undecided %q; want untrusted and not asked about", trust.Trusted(app), trust.Undecided())
	}
	if why := trust.Why(app); why == nil || !strings.Contains(why.Error(), "Manage Workspace Trust") {
		t.Errorf("Why() = %v, want how to trust it in the editor", why)
	}
}

// "Don't trust", answered when the editor's trust is asked about again
// (a sandboxed command could have changed the folder's configuration),
// records DO_NOT_TRUST for that folder, and that outranks the editor's
// trust: the folder stays restricted at every start and is not asked
// about again, as the answer says, until /permissions trust (a yes,
// RecordTrust) trusts it. A DO_NOT_TRUST of a folder above the root is
// less specific than the editor's trust of the root itself, which
// outranks it.
func TestDontTrustOfTheFolderItselfOutranksTheEditorsTrust(t *testing.T) {
	c := newTrustCase(t, "")
	app := filepath.Join(c.root, "packages", "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	// The root (above app) distrusted, as a trustedFolders.json rule.
	above := strings.Trim(strconv.Quote(c.root), `"`)
	if err := os.WriteFile(filepath.Join(c.home, ".gemini", "trustedFolders.json"), []byte(`{"`+above+`": "DO_NOT_TRUST"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.vars["XDG_STATE_HOME"] = ""
	c.vars[EditorTrustVariable] = "true"
	time.Sleep(2500 * time.Millisecond) // the root's own files, made before the window and its slack
	if trust, _ := DecideTrust(env(c.vars), []string{app}); !trust.Trusted(app) {
		t.Fatalf("trusted by the editor, distrusted only above: not trusted: %v", trust.Why(app))
	}
	window, err := SandboxTrail(env(c.vars)).Open([]string{c.root}, []string{c.root})
	if err != nil {
		t.Fatal(err)
	}
	writeSettings(t, app, `{"tools": {"discoveryCommand": "planted"}}`)
	if err := window.Close(); err != nil {
		t.Fatal(err)
	}
	if trust, _ := DecideTrust(env(c.vars), []string{app}); len(trust.Undecided()) != 1 {
		t.Fatalf("the editor's trust of a folder a sandboxed command configured: Undecided() = %q, want it asked about", trust.Undecided())
	}

	if err := RecordTrust(context.Background(), env(c.vars), app, DoNotTrust); err != nil {
		t.Fatal(err)
	}
	trust, _ := DecideTrust(env(c.vars), []string{app})
	if trust.Trusted(app) || len(trust.Undecided()) != 0 {
		t.Errorf("after Don't trust, with the editor's trust: Trusted %v, Undecided %q; want restricted and not asked again", trust.Trusted(app), trust.Undecided())
	}
	if why := trust.Why(app); why == nil || !strings.Contains(why.Error(), "DO_NOT_TRUST; /permissions trust changes that") {
		t.Errorf("Why() = %v, want the rule and how to change it", why)
	}

	time.Sleep(50 * time.Millisecond) // a yes a clock tick after the change at least
	if err := RecordTrust(context.Background(), env(c.vars), app, TrustFolder); err != nil {
		t.Fatal(err)
	}
	if trust, _ := DecideTrust(env(c.vars), []string{app}); !trust.Trusted(app) {
		t.Errorf("trusted again with /permissions trust, it is not trusted: %v", trust.Why(app))
	}
}
