package extensions

import (
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func TestApplySettingsWinAndDisabledGiveNothing(t *testing.T) {
	l := Loaded{All: []Extension{
		{Name: "a", Enabled: true, ExcludeTools: []string{"web_fetch", "run_shell_command(rm -rf)"},
			MCPServers: map[string]settings.MCPServer{"mine": {Command: "ext-mine"}, "shared": {Command: "a-shared"}, "only-a": {Command: "a"}}},
		{Name: "b", Enabled: true, MCPServers: map[string]settings.MCPServer{"shared": {Command: "b-shared"}}},
		{Name: "off", Enabled: false, ExcludeTools: []string{"glob"}, MCPServers: map[string]settings.MCPServer{"off-srv": {Command: "off"}}},
	}}
	set := settings.Settings{MCPServers: map[string]settings.MCPServer{"mine": {Command: "user-mine"}}}
	set.Tools.Exclude = []string{"grep_search"}
	got, notes := l.Apply(set)
	want := map[string]string{"mine": "user-mine", "shared": "a-shared", "only-a": "a"}
	if len(got.MCPServers) != len(want) {
		t.Errorf("servers = %v, want %v", got.MCPServers, want)
	}
	for name, cmd := range want {
		if got.MCPServers[name].Command != cmd {
			t.Errorf("server %s = %q, want %q", name, got.MCPServers[name].Command, cmd)
		}
	}
	if w := []string{"grep_search", "web_fetch"}; !slices.Equal(got.Tools.Exclude, w) {
		t.Errorf("exclude = %v, want %v", got.Tools.Exclude, w)
	}
	if len(set.MCPServers) != 1 || len(set.Tools.Exclude) != 1 {
		t.Error("Apply changed the settings it was given")
	}
	text := ""
	for _, n := range notes {
		text += n.Error() + "\n"
	}
	for _, w := range []string{`extension a: its MCP server "mine" is not used`, `extension b: its MCP server "shared" is skipped: extension a`, `excludeTools "run_shell_command(rm -rf)" is not applied`} {
		if !strings.Contains(text, w) {
			t.Errorf("notes lack %q:\n%s", w, text)
		}
	}
	if owner := l.ServerOwner("only-a", got.MCPServers["only-a"]); owner != "a" {
		t.Errorf("ServerOwner(only-a) = %q, want a", owner)
	}
	if owner := l.ServerOwner("mine", got.MCPServers["mine"]); owner != "" {
		t.Errorf("ServerOwner(mine) = %q, want none: the settings' server is in use", owner)
	}
	if owner := l.ServerOwner("off-srv", settings.MCPServer{Command: "off"}); owner != "" {
		t.Errorf("ServerOwner(off-srv) = %q, want none: its extension is disabled", owner)
	}
	if len(notes) != 3 {
		t.Errorf("%d notes, want 3:\n%s", len(notes), text)
	}
}

// What an extension's variables and settings hold never shows in a
// message about the settings, as the settings' own variables' values.
func TestApplyRedacts(t *testing.T) {
	l := Loaded{All: []Extension{{Name: "a", Enabled: true,
		Redacted:    map[string]string{"https://user:hunter22@example.com": "SERVER_URL"},
		SettingsEnv: map[string]string{"API_KEY": "sk-secret-value", "SHORT": "ab"}}}}
	got, _ := l.Apply(settings.Settings{})
	msg := got.Redact("failed https://user:hunter22@example.com with sk-secret-value ab")
	if want := "failed $SERVER_URL with $API_KEY ab"; msg != want {
		t.Errorf("Redact = %q, want %q", msg, want)
	}
}
