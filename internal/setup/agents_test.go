package setup

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const reviewerAgent = "---\nname: reviewer\ndescription: Reviews diffs.\ntools: [read_file, grep_search]\n---\nYou review.\n"

// buildIn builds an agent for root with home's settings and agents, and
// returns what it warned of.
func buildIn(t *testing.T, home, root string, overlay map[string]any) (*Built, []string) {
	t.Helper()
	return buildWith(t, home, root, overlay, nil, nil)
}

// buildWith is buildIn with more environment variables, and the process's
// Told (nil: a new one).
func buildWith(t *testing.T, home, root string, overlay map[string]any, more map[string]string, told *Told) (*Built, []string) {
	t.Helper()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	maps.Copy(env, more)
	var warnings []string
	b, err := Build(context.Background(), Options{
		Workspace: ws,
		Getenv:    func(k string) string { return env[k] },
		Warn:      func(what string, err error) { warnings = append(warnings, what+": "+err.Error()) },
		Overlay:   overlay,
		Told:      told,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b, warnings
}

func agentNames(b *Built) []string {
	var names []string
	for _, e := range b.AgentCatalog().List() {
		if e.Enabled && e.Acknowledged {
			names = append(names, e.Definition.Name)
		}
	}
	return names
}

// A build finds the built-in agents and the user's; an untrusted
// project's agents are not read, and the user is told so because the
// project has some; experimental.enableAgents false turns them all off.
func TestBuildFindsTheAgents(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "agents", "reviewer.md"), reviewerAgent)
	writeFile(t, filepath.Join(root, ".gemini", "agents", "intruder.md"), strings.ReplaceAll(reviewerAgent, "reviewer", "intruder"))

	b, warnings := buildIn(t, home, root, nil)
	got := agentNames(b)
	for _, want := range []string{"codebase_investigator", "cli_help", "generalist", "reviewer"} {
		if !slices.Contains(got, want) {
			t.Errorf("agents %v lack %s", got, want)
		}
	}
	if slices.Contains(got, "intruder") {
		t.Errorf("an untrusted project's agent was loaded: %v", got)
	}
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, UntrustedProject) && strings.Contains(w, "(agents)") }) {
		t.Errorf("warnings %q do not say the project's agents were skipped", warnings)
	}

	off, _ := buildIn(t, home, root, map[string]any{"experimental": map[string]any{"enableAgents": false}})
	if off.Agents != nil || off.AgentCatalog() != nil {
		t.Errorf("experimental.enableAgents false still found agents")
	}
}

// In an untrusted folder without agents, nothing is said of them.
func TestUntrustedFolderWithoutAgentsSaysNothing(t *testing.T) {
	_, warnings := buildIn(t, t.TempDir(), t.TempDir(), nil)
	if slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "agents") }) {
		t.Errorf("warnings = %q", warnings)
	}
}

// /agents disable writes the user's settings (no trusted workspace), and
// reload reads agents.overrides again: the agent is off.
func TestAgentCatalogDisableAndReload(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "agents", "reviewer.md"), reviewerAgent)
	b, _ := buildIn(t, home, root, nil)
	c := b.AgentCatalog()
	text, err := c.Disable(context.Background(), "reviewer")
	if err != nil || !strings.Contains(text, `Agent "reviewer" disabled`) {
		t.Fatalf("Disable = %q, %v", text, err)
	}
	data, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err != nil || !strings.Contains(string(data), `"enabled": false`) {
		t.Errorf("the user's settings: %s, %v", data, err)
	}
	if problems := c.Reload(context.Background()); len(problems) != 0 {
		t.Errorf("Reload: %v", problems)
	}
	if slices.Contains(agentNames(b), "reviewer") {
		t.Errorf("reviewer still enabled after disable and reload: %v", agentNames(b))
	}
}
