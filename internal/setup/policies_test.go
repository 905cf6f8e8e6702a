package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// The administrator's policies directory is read only when nobody but
// its owner, root, may write it, as Gemini CLI checks it; one that does
// not exist holds nothing and is fine.
func TestSecureDir(t *testing.T) {
	platformtest.Unix(t, "file modes or owners")
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := secureDir(dir); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Errorf("a directory anyone may write: %v, want it refused", err)
	}
	if err := secureDir(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := secureDir(dir)
	switch {
	case os.Geteuid() == 0 && err != nil:
		t.Errorf("a root-owned 0755 directory: %v, want it read", err)
	case os.Geteuid() != 0 && (err == nil || !strings.Contains(err.Error(), "not owned by root")):
		t.Errorf("a directory of user %d: %v, want it refused", os.Geteuid(), err)
	}
}

// Windows keeps no Unix modes nor a root: an existing directory is read,
// guarded by its ACLs, not refused for the 0o777 Go reports for it.
func TestSecureDirOnWindows(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("Windows's rule; TestSecureDir checks the Unix one")
	}
	if err := secureDir(t.TempDir()); err != nil {
		t.Errorf("a directory on Windows: %v, want it read", err)
	}
}

// settings' policyPaths replace ~/.gemini/policies in the user tier, and
// the system settings' adminPolicyPaths add the administrator's tier, as
// Gemini CLI's getPolicyDirectories has them.
func TestPolicyPathsFromSettings(t *testing.T) {
	tomls, _ := filepath.Glob(filepath.Join(systemPoliciesDir(), "*.toml"))
	centralPolicy := len(tomls) > 0 // which turns adminPolicyPaths off
	a := newAttack(t)
	a.env["GEMINI_API_KEY"] = "k"
	custom, admin := t.TempDir(), t.TempDir()
	rule := func(tool string) string {
		return "[[rule]]\ntoolName = \"" + tool + "\"\ndecision = \"deny\"\npriority = 10\n"
	}
	writeFile(t, filepath.Join(a.home, ".gemini", "policies", "home.toml"), rule("home_tool"))
	writeFile(t, filepath.Join(custom, "custom.toml"), rule("custom_tool"))
	writeFile(t, filepath.Join(admin, "admin.toml"), rule("admin_tool"))
	writeFile(t, filepath.Join(a.home, ".gemini", "settings.json"), `{"policyPaths": [`+strconv.Quote(custom)+`]}`)
	writeFile(t, a.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], `{"adminPolicyPaths": [`+strconv.Quote(admin)+`]}`)
	b := a.build(t, "")
	priorities := map[string]float64{}
	for _, r := range b.Policy.Rules() {
		priorities[r.ToolName] = r.Priority
	}
	if _, ok := priorities["home_tool"]; ok {
		t.Error("~/.gemini/policies was read although policyPaths replaces it")
	}
	if p := priorities["custom_tool"]; p != 4.01 {
		t.Errorf("the policyPaths rule has priority %v, want the user tier's 4.01 (rules %v)", p, priorities)
	}
	if p := priorities["admin_tool"]; p != 5.01 && !centralPolicy {
		t.Errorf("the adminPolicyPaths rule has priority %v, want the admin tier's 5.01 (rules %v)", p, priorities)
	}
}

// adminPolicyPaths are skipped, and the user told, when the system
// directory holds policies: a central policy is not overridden.
func TestAdminPolicyPathsYieldToTheSystemPolicies(t *testing.T) {
	a := newAttack(t)
	var warned []string
	b := &Built{opts: Options{Warn: func(what string, err error) { warned = append(warned, what+": "+err.Error()) }}}
	b.Getenv = func(k string) string { return a.env[k] }
	system := t.TempDir()
	set := settings.Settings{AdminPolicyPaths: []string{"/admin"}}
	if got := b.adminPolicySources(set, system); len(got) != 1 || got[0].Path != filepath.Clean("/admin") || got[0].Tier != policy.TierAdmin {
		t.Errorf("with no system policies: %+v", got)
	}
	writeFile(t, filepath.Join(system, "central.toml"), "")
	if got := b.adminPolicySources(set, system); got != nil {
		t.Errorf("with system policies: %+v, want none", got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "Ignoring adminPolicyPaths because system policies are already defined in "+system) {
		t.Errorf("warned %q", warned)
	}
}
