package commands

import (
	"context"
	"path/filepath"
	"testing"
)

// Extension commands have the lowest precedence: one whose name a
// built-in, a user's or project's command or an earlier extension has is
// renamed "<extension>.<name>", as Gemini CLI's extensions reference says.
func TestLoadExtensionsConflictNaming(t *testing.T) {
	base := t.TempDir()
	gcp, other := filepath.Join(base, "gcp", "commands"), filepath.Join(base, "other", "commands")
	write(t, gcp, map[string]string{
		"deploy.toml":   `prompt = "gcp deploy"`,
		"help.toml":     `prompt = "gcp help"`,
		"gcs/sync.toml": "prompt = \"sync\"\ndescription = \"Sync a bucket\"",
		"build.toml":    `prompt = "gcp build"`,
	})
	write(t, other, map[string]string{
		"build.toml":  `prompt = "other build"`,
		"deploy.toml": `prompt = "other deploy"`,
	})
	user := []Custom{{Name: "deploy", Source: User}, {Name: "other.deploy", Source: User}}
	isBuiltin := func(name string) bool { return name == "help" }
	dirs := []ExtensionDir{{Name: "gcp", Dir: gcp}, {Name: "other", Dir: other}}
	got, errs := LoadExtensions(context.Background(), dirs, user, isBuiltin, true)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := map[string]string{
		"gcp.deploy":    "gcp deploy",   // the user's /deploy wins
		"gcp.help":      "gcp help",     // a built-in keeps its name
		"gcs:sync":      "sync",         // no conflict: its own name
		"build":         "gcp build",    // the first extension's
		"other.build":   "other build",  // the later one's renamed
		"other.deploy1": "other deploy", // other.deploy is the user's
	}
	byName := names(got)
	if len(byName) != len(want) {
		t.Errorf("got %d commands, want %d: %v", len(byName), len(want), byName)
	}
	for name, prompt := range want {
		c, ok := byName[name]
		if !ok || c.Prompt != prompt || c.Source != Extension {
			t.Errorf("/%s = %+v, want the extension command prompting %q", name, c, prompt)
		}
	}
	if d := byName["gcs:sync"].Description; d != "[gcp] Sync a bucket" {
		t.Errorf("description = %q", d)
	}
	if d := byName["build"].Description; d != "[gcp] Custom command from build.toml" {
		t.Errorf("description = %q", d)
	}
	if got, _ := LoadExtensions(context.Background(), dirs, nil, nil, false); len(got) != 0 {
		t.Errorf("an untrusted root loaded extension commands: %v", got)
	}
}
