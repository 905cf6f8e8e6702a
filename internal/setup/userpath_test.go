package setup

import (
	"path/filepath"
	"testing"
)

// A path the user wrote starts at the home as 0.61's resolvePath and
// resolvePathFromEnv have it: GEMINI_CLI_HOME before the system's home;
// a relative one is in the first root.
func TestUserPathsStartAtTheHome(t *testing.T) {
	root, home, geminiHome := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "USERPROFILE": home}
	b := &Built{Getenv: func(k string) string { return env[k] }, projectRoots: []string{root}}
	for p, want := range map[string]string{
		"~":                              home,
		"~/policies":                     filepath.Join(home, "policies"),
		"%USERPROFILE%/policies":         filepath.Join(home, "policies"),
		"policies":                       filepath.Join(root, "policies"),
		filepath.Join(root, "x/..", "y"): filepath.Join(root, "y"),
	} {
		if got := b.UserPath(p); got != want {
			t.Errorf("UserPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got, ok := resolvePathVar("~/system.md", b.Getenv, root, ""); !ok || got != filepath.Join(home, "system.md") {
		t.Errorf("resolvePathVar(~/system.md) = %q, %v; want %q", got, ok, filepath.Join(home, "system.md"))
	}

	env["GEMINI_CLI_HOME"] = geminiHome
	if got, want := b.UserPath("~/policies"), filepath.Join(geminiHome, "policies"); got != want {
		t.Errorf("with GEMINI_CLI_HOME, UserPath(~/policies) = %q, want %q", got, want)
	}

	clear(env)
	if got, ok := resolvePathVar("~/system.md", b.Getenv, root, ""); ok {
		t.Errorf("without a home, resolvePathVar(~/system.md) = %q, on; want off, as 0.61", got)
	}
}
