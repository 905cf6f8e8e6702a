package settings

import (
	"slices"
	"strings"
	"testing"
)

// commands lists the commands of an event's hooks, in order.
func commands(defs []HookDefinition) []string {
	var out []string
	for _, d := range defs {
		for _, h := range d.Hooks {
			out = append(out, d.Matcher+" "+h.Command)
		}
	}
	return out
}

// TestHooksMergeAcrossLayers: the layers' hooks of an event are joined
// (Gemini CLI's concat), hooksConfig.disabled too (union); the old
// hooksConfig keys inside "hooks" are skipped; the last enabled wins.
func TestHooksMergeAcrossLayers(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{
		"hooks": {"enabled": true, "BeforeTool": [{"matcher": "write_.*", "hooks": [{"type": "command", "command": "user.sh", "timeout": 5000}]}]},
		"hooksConfig": {"disabled": ["a", "b"]}
	}`)
	writeSettings(t, root, `{
		"hooks": {"BeforeTool": [{"matcher": "replace", "sequential": true, "hooks": [{"type": "command", "command": "project.sh", "name": "p"}]}],
		          "SessionStart": [{"hooks": [{"type": "command", "command": "start.sh"}]}]},
		"hooksConfig": {"enabled": false, "disabled": ["b", "c"]}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := commands(s.Hooks["BeforeTool"]), []string{"write_.* user.sh", "replace project.sh"}; !slices.Equal(got, want) {
		t.Errorf("BeforeTool hooks = %q, want %q", got, want)
	}
	if got := s.Hooks["BeforeTool"]; got[0].Hooks[0].Timeout != 5000 || !got[1].Sequential || got[1].Hooks[0].Name != "p" {
		t.Errorf("BeforeTool hooks = %+v", got)
	}
	if got := commands(s.Hooks["SessionStart"]); !slices.Equal(got, []string{" start.sh"}) {
		t.Errorf("SessionStart hooks = %q", got)
	}
	if _, ok := s.Hooks["enabled"]; ok {
		t.Error(`"hooks.enabled" read as an event`)
	}
	if got := s.HooksConfig.Disabled; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("hooksConfig.disabled = %q", got)
	}
	if s.HooksConfig.HooksEnabled() {
		t.Error("hooksConfig.enabled false in the workspace did not win")
	}
}

// A trusted root's own hooks are told apart from the user's, for their
// announcement (hooks.NoteProjectHooks), and an editor's settings laid
// over them keep them; an untrusted root has none.
func TestProjectHooksAreTheTrustedRootsOwn(t *testing.T) {
	home, root, other := t.TempDir(), t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "user.sh"}]}]}}`)
	writeSettings(t, root, `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "name": "p", "command": "project.sh"}]}]}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root, other})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, s Settings) {
		t.Helper()
		got := s.ProjectHooks()
		if len(got) != 1 || got[0].Root != root || len(got[0].Hooks) != 1 || commands(got[0].Hooks["SessionStart"])[0] != " project.sh" {
			t.Errorf("%s: project hooks %+v, want the root's SessionStart hook alone", what, got)
		}
	}
	check("loaded", s)
	over, err := s.With(map[string]any{"model": "gemini-2.5-pro"})
	if err != nil {
		t.Fatal(err)
	}
	check("with an editor's settings", over)
	s, _ = load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": "false"}), []string{root})
	if got := s.ProjectHooks(); len(got) != 0 {
		t.Errorf("untrusted: project hooks %+v", got)
	}
}

// TestUntrustedWorkspaceHooksAreNotRead: a folder that is not trusted
// adds no hooks; the user's still run.
func TestUntrustedWorkspaceHooksAreNotRead(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "user.sh"}]}]}}`)
	writeSettings(t, root, `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "evil.sh"}]}]}}`)
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": "false"}), []string{root})
	if got := commands(s.Hooks["BeforeAgent"]); !slices.Equal(got, []string{" user.sh"}) {
		t.Errorf("BeforeAgent hooks = %q", got)
	}
}

// TestBadHooksBlameTheirFile: hooks of the wrong shape are an error that
// names the event.
func TestBadHooksBlameTheirFile(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"hooks": {"BeforeTool": {"command": "x"}}}`)
	_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err == nil || !strings.Contains(err.Error(), "hooks.BeforeTool must be an array") {
		t.Errorf("err = %v", err)
	}
}
