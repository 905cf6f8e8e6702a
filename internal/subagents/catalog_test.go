package subagents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func writeAgent(t *testing.T, dir, file, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func agentMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nprompt of " + desc + "\n"
}

// fixture is a home (~/.gemini) and a project.
type fixture struct{ userDir, project string }

func newFixture(t *testing.T) fixture {
	return fixture{userDir: filepath.Join(t.TempDir(), ".gemini"), project: t.TempDir()}
}

func (f fixture) userAgents() string    { return filepath.Join(f.userDir, "agents") }
func (f fixture) projectAgents() string { return filepath.Join(f.project, ".gemini", "agents") }

func names(defs []Definition) string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name+"("+string(d.Source)+")")
	}
	return strings.Join(out, ",")
}

// A directory's *.md files load, but for those starting with "_", other
// extensions and directories; a bad file is an error naming it and loses
// no other agent.
func TestLoadReadsADirectory(t *testing.T) {
	f := newFixture(t)
	writeAgent(t, f.userAgents(), "a.md", agentMD("a", "first"))
	writeAgent(t, f.userAgents(), "_draft.md", agentMD("draft", "no"))
	writeAgent(t, f.userAgents(), "notes.txt", agentMD("txt", "no"))
	bad := writeAgent(t, f.userAgents(), "bad.md", "---\nname: Bad Name\ndescription: x\n---\n")
	writeAgent(t, f.userAgents(), "z.md", agentMD("z", "last"))
	if err := os.MkdirAll(filepath.Join(f.userAgents(), "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, errs := Load(context.Background(), Options{UserDir: f.userDir})
	if got := names(c.Active()); got != "codebase_investigator(built-in),cli_help(built-in),generalist(built-in),a(user),z(user)" {
		t.Errorf("active = %s", got)
	}
	if len(errs) != 1 {
		t.Fatalf("errs = %v, want one", errs)
	}
	var le *LoadError
	if !errors.As(errs[0], &le) || le.Path != bad || !strings.Contains(le.Error(), "name: Name must be a valid slug") {
		t.Errorf("err = %v", errs[0])
	}
	if d, ok := c.Lookup("a"); !ok || d.SystemPrompt != "prompt of first" || d.Path != filepath.Join(f.userAgents(), "a.md") {
		t.Errorf("Lookup(a) = %+v, %v", d, ok)
	}
}

// Precedence, as 0.61's registry: built-ins, then the project's, then
// the user's, then extensions'; the first enabled of a name wins and
// each later one is reported.
func TestLoadPrecedence(t *testing.T) {
	f := newFixture(t)
	ext := t.TempDir()
	writeAgent(t, f.projectAgents(), "p.md", agentMD("shared", "project's"))
	writeAgent(t, f.projectAgents(), "ci.md", agentMD("codebase_investigator", "project's investigator"))
	writeAgent(t, f.userAgents(), "u.md", agentMD("shared", "user's"))
	writeAgent(t, f.userAgents(), "only.md", agentMD("user_only", "user's"))
	writeAgent(t, ext, "e.md", agentMD("user_only", "extension's"))
	writeAgent(t, ext, "e2.md", agentMD("ext_only", "extension's"))
	acknowledgeAll(t, f)
	c, errs := Load(context.Background(), Options{UserDir: f.userDir, ProjectRoot: f.project, Trusted: true,
		Extensions: []ExtensionDir{{Extension: "myext", Dir: ext}}})
	for name, want := range map[string]string{"shared": "project's", "user_only": "user's", "ext_only": "extension's"} {
		if d, ok := c.Lookup(name); !ok || d.Description != want {
			t.Errorf("%s = %q, want the %s", name, d.Description, want)
		}
	}
	if d, _ := c.Lookup("codebase_investigator"); d.Source != BuiltIn {
		t.Errorf("codebase_investigator is the %s one, want the built-in", d.Source)
	}
	if d, _ := c.Lookup("ext_only"); d.Source != Extension || d.Extension != "myext" {
		t.Errorf("ext_only source %q extension %q", d.Source, d.Extension)
	}
	var dups []string
	for _, err := range errs {
		var de *DuplicateError
		if errors.As(err, &de) {
			dups = append(dups, de.Name)
		} else {
			t.Errorf("unexpected error %v", err)
		}
	}
	if strings.Join(dups, ",") != "codebase_investigator,shared,user_only" {
		t.Errorf("duplicates reported = %v", dups)
	}
}

// acknowledgeAll acknowledges the project's agents as they are now.
func acknowledgeAll(t *testing.T, f fixture) {
	t.Helper()
	c, _ := Load(context.Background(), Options{UserDir: f.userDir, ProjectRoot: f.project, Trusted: true})
	for _, e := range c.Unacknowledged() {
		if _, err := c.Acknowledge(context.Background(), e.Definition.Name); err != nil {
			t.Fatal(err)
		}
	}
}

// An untrusted project's agents are never read, and the user is told.
func TestLoadUntrustedProject(t *testing.T) {
	f := newFixture(t)
	writeAgent(t, f.projectAgents(), "p.md", agentMD("proj", "project's"))
	acknowledgeAll(t, f)
	c, errs := Load(context.Background(), Options{UserDir: f.userDir, ProjectRoot: f.project, Trusted: false})
	if _, ok := c.Lookup("proj"); ok {
		t.Error("an untrusted project's agent loaded")
	}
	for _, e := range c.List() {
		if e.Definition.Source == Project {
			t.Errorf("listed %+v", e)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrUntrustedProject) {
		t.Errorf("errs = %v", errs)
	}
}

// An extension's agents have its variables filled in.
func TestLoadExtensionAgentsHydrated(t *testing.T) {
	ext := t.TempDir()
	writeAgent(t, ext, "e.md", "---\nname: e\ndescription: from ${extensionPath}\n---\nRead ${extensionPath}/data for ${query}.\n")
	h := func(s string) string { return strings.ReplaceAll(s, "${extensionPath}", "/ext") }
	c, errs := Load(context.Background(), Options{Extensions: []ExtensionDir{{Extension: "x", Dir: ext, Hydrate: h}}})
	d, ok := c.Lookup("e")
	if len(errs) != 0 || !ok || d.Description != "from /ext" || d.SystemPrompt != "Read /ext/data for ${query}." || d.Query != "${query}" {
		t.Errorf("e = %+v, %v, errs %v", d, ok, errs)
	}
}

// agents.overrides: enabled turns an agent off (a later one of its name
// then takes it, as 0.61's registry has it), runConfig and modelConfig go
// over a local agent's own, tools replace its tools.
func TestLoadOverrides(t *testing.T) {
	f := newFixture(t)
	writeAgent(t, f.userAgents(), "r.md", "---\nname: rem\nagent_card_url: http://a/card\n---\n")
	off, turns, mins, temp, budget := false, 3, 1.5, 0.7, int32(99)
	c, _ := Load(context.Background(), Options{UserDir: f.userDir, Overrides: map[string]settings.AgentOverride{
		"generalist": {Enabled: &off},
		"rem":        {Enabled: &off},
		"codebase_investigator": {
			RunConfig: &settings.AgentRunConfig{MaxTurns: &turns, MaxTimeMinutes: &mins},
			ModelConfig: &settings.AgentModelConfig{Model: "gemini-2.5-flash", GenerateContentConfig: &settings.AgentGenerationConfig{
				Temperature: &temp, ThinkingConfig: &settings.AgentThinkingConfig{ThinkingBudget: &budget}}},
			Tools: []string{"glob"},
		},
	}})
	for _, name := range []string{"generalist", "rem"} {
		if _, ok := c.Lookup(name); ok {
			t.Errorf("%s is offered though disabled", name)
		}
	}
	listed := map[string]bool{}
	for _, e := range c.List() {
		listed[e.Definition.Name] = e.Enabled
	}
	if en, ok := listed["generalist"]; !ok || en {
		t.Errorf("generalist listed %v enabled %v, want listed disabled", ok, en)
	}
	d, _ := c.Lookup("codebase_investigator")
	if d.MaxTurns != 3 || d.Timeout != 90*time.Second || d.Model != "gemini-2.5-flash" || *d.Temperature != 0.7 || *d.TopP != 0.95 ||
		*d.Thinking.Budget != 99 || !d.Thinking.IncludeThoughts || strings.Join(d.Tools, ",") != "glob" {
		t.Errorf("overridden investigator = %+v thinking %+v", d, d.Thinking)
	}
	// A disabled agent's name is free for a later one.
	writeAgent(t, f.userAgents(), "g.md", agentMD("generalist", "mine"))
	c, errs := Load(context.Background(), Options{UserDir: f.userDir, Overrides: map[string]settings.AgentOverride{"generalist": {Enabled: &off}}})
	if _, ok := c.Lookup("generalist"); ok || len(errs) != 0 {
		t.Errorf("generalist offered, or errs %v", errs)
	}
	for _, e := range c.List() {
		if e.Definition.Name == "generalist" && e.Definition.Source != User {
			t.Errorf("the listed generalist is the %s one, want the user's (0.61's allDefinitions keeps the last)", e.Definition.Source)
		}
	}
}

// A file that defines several remote agents gives each.
func TestLoadRemoteList(t *testing.T) {
	f := newFixture(t)
	writeAgent(t, f.userAgents(), "remotes.md", "---\n- name: r1\n  agent_card_url: http://a/1\n- name: r2\n  agent_card_url: http://a/2\n---\n")
	c, errs := Load(context.Background(), Options{UserDir: f.userDir})
	if _, ok := c.Lookup("r2"); !ok || len(errs) != 0 {
		t.Errorf("r2 not found, errs %v", errs)
	}
}

// An extension's agents are its directory's agents/, its variables
// filled in.
func TestExtensionAgents(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, filepath.Join(dir, "agents"), "e.md", "---\nname: e\ndescription: in ${extensionPath}\n---\n")
	exts := ExtensionAgents([]extensions.Extension{{Name: "x", Path: dir, Variables: extensions.Variables{"extensionPath": dir}}})
	c, errs := Load(context.Background(), Options{Extensions: exts})
	if d, ok := c.Lookup("e"); !ok || d.Description != "in "+dir || d.Extension != "x" || len(errs) != 0 {
		t.Errorf("e = %+v, %v, %v", d, ok, errs)
	}
}
