package subagents

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func builtIn(t *testing.T, c BuiltInContext, name string) Definition {
	t.Helper()
	for _, d := range BuiltIns(c) {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no built-in %s", name)
	return Definition{}
}

// The three built-ins, in 0.61's order, with its limits, tools and inputs.
func TestBuiltInsAre061s(t *testing.T) {
	var names []string
	for _, d := range BuiltIns(BuiltInContext{}) {
		names = append(names, d.Name)
		if d.Kind != Local || d.Source != BuiltIn || d.Description == "" || d.DisplayName == "" {
			t.Errorf("%s: kind %q source %q", d.Name, d.Kind, d.Source)
		}
		if d.Output == nil || !json.Valid(d.Output.Schema) {
			t.Errorf("%s: output schema %v", d.Name, d.Output)
		}
	}
	if strings.Join(names, ",") != "codebase_investigator,cli_help,generalist" {
		t.Errorf("built-ins = %v", names)
	}
	ci := builtIn(t, BuiltInContext{}, CodebaseInvestigator)
	if ci.Input.Name != "objective" || ci.Output.Name != "report" || ci.MaxTurns != 50 || ci.Timeout != 10*time.Minute ||
		*ci.Temperature != 0.1 || *ci.TopP != 0.95 || strings.Join(ci.Tools, ",") != "list_directory,read_file,glob,grep_search,navigate_code" ||
		!strings.Contains(ci.Query, "<objective>\n${objective}\n</objective>") || !strings.HasPrefix(ci.SystemPrompt, "You are **Codebase Investigator**") {
		t.Errorf("codebase_investigator = %+v", ci)
	}
	help := builtIn(t, BuiltInContext{}, CLIHelp)
	if help.Input.Name != "question" || help.Model != "flash" || help.MaxTurns != 10 || help.Timeout != 3*time.Minute ||
		strings.Join(help.Tools, ",") != "get_internal_docs" || help.Thinking == nil || *help.Thinking.Budget != -1 ||
		!strings.Contains(help.SystemPrompt, "${cliVersion}") || !strings.Contains(help.SystemPrompt, "${activeModel}") ||
		!strings.Contains(help.SystemPrompt, "${today}") || !strings.Contains(help.Description, "gemini-ls") {
		t.Errorf("cli_help = %+v", help)
	}
	g := builtIn(t, BuiltInContext{}, Generalist)
	if g.Input.Name != "request" || g.Output.Name != "result" || g.Model != Inherit || g.Tools != nil || !g.InheritSystemPrompt ||
		g.Query != "${request}" || g.MaxTurns != 20 || g.Timeout != 10*time.Minute {
		t.Errorf("generalist = %+v", g)
	}
}

// codebase_investigator runs on Gemini 3 Flash, thinking HIGH, when the
// main model has modern features; else on 2.5 Pro with a budget of 8192.
func TestInvestigatorModelFollowsTheMainModel(t *testing.T) {
	for _, tc := range []struct {
		main, want string
		level      string
		budget     int32
	}{
		{"auto", "gemini-3-flash-preview", "HIGH", 0},
		{"gemini-3-pro-preview", "gemini-3-flash-preview", "HIGH", 0},
		{"pro", "gemini-3-flash-preview", "HIGH", 0},
		{"my-own-model", "gemini-3-flash-preview", "HIGH", 0},
		{"gemini-2.5-flash", "gemini-2.5-pro", "", 8192},
		{"auto-gemini-2.5", "gemini-2.5-pro", "", 8192},
	} {
		d := builtIn(t, BuiltInContext{MainModel: tc.main}, CodebaseInvestigator)
		if d.Model != tc.want || d.Thinking.Level != tc.level || (tc.budget != 0) != (d.Thinking.Budget != nil) ||
			d.Thinking.Budget != nil && *d.Thinking.Budget != tc.budget || !d.Thinking.IncludeThoughts {
			t.Errorf("main %s: model %s thinking %+v", tc.main, d.Model, d.Thinking)
		}
	}
}

func TestInvestigatorNamesThePlatformsListing(t *testing.T) {
	if d := builtIn(t, BuiltInContext{GOOS: "windows"}, CodebaseInvestigator); !strings.Contains(d.SystemPrompt, "Used `dir /s` (CMD) or `Get-ChildItem -Recurse` (PowerShell) to look") {
		t.Error("windows prompt lacks dir /s")
	}
	d := builtIn(t, BuiltInContext{GOOS: "linux"}, CodebaseInvestigator)
	if !strings.Contains(d.SystemPrompt, "Used `ls -R` to look") || strings.Contains(d.SystemPrompt, "${") {
		t.Error("linux prompt lacks ls -R, or keeps a placeholder")
	}
}

// Output.Format is each agent's processOutput.
func TestOutputFormats(t *testing.T) {
	ci := builtIn(t, BuiltInContext{}, CodebaseInvestigator)
	raw := json.RawMessage(`{"SummaryOfFindings":"a <b>","ExplorationTrace":[],"RelevantLocations":[{"FilePath":"x"}]}`)
	want := "{\n  \"SummaryOfFindings\": \"a <b>\",\n  \"ExplorationTrace\": [],\n  \"RelevantLocations\": [\n    {\n      \"FilePath\": \"x\"\n    }\n  ]\n}"
	if got := ci.Output.Format(raw); got != want {
		t.Errorf("investigator report =\n%s\nwant\n%s", got, want)
	}
	if got := ci.Output.Format(map[string]any{"a": "<&>"}); got != "{\n  \"a\": \"<&>\"\n}" {
		t.Errorf("investigator map report = %q", got)
	}
	help := builtIn(t, BuiltInContext{}, CLIHelp)
	for _, tc := range []struct {
		report any
		want   string
	}{
		{map[string]any{"answer": " It is so. ", "sources": []any{"a.md", " a.md ", "", "b.md"}}, "It is so.\n\n**Sources:**\n- a.md\n- b.md"},
		{map[string]any{"answer": "No sources.", "sources": []any{}}, "No sources."},
		{json.RawMessage(`{"answer":"x","sources":["c.md"]}`), "x\n\n**Sources:**\n- c.md"},
		{nil, ""},
	} {
		if got := help.Output.Format(tc.report); got != tc.want {
			t.Errorf("cli_help report of %v = %q, want %q", tc.report, got, tc.want)
		}
	}
}

func TestGeneralistDescriptionFollowsPlanMode(t *testing.T) {
	g := builtIn(t, BuiltInContext{}, Generalist)
	if !strings.HasSuffix(Describe(g, true), "large-scale investigation and batch planning across multiple files.") ||
		!strings.HasSuffix(Describe(g, false), "speculative investigations.") || Describe(g, false) != g.Description {
		t.Errorf("descriptions: %q / %q", Describe(g, true), Describe(g, false))
	}
	other := Definition{Name: Generalist, Source: User, Description: "mine"}
	if Describe(other, true) != "mine" {
		t.Error("a user's agent named generalist got the built-in's description")
	}
}

// A new main model re-chooses codebase_investigator's model.
func TestSetMainModelRechoosesTheInvestigatorsModel(t *testing.T) {
	c, _ := Load(context.Background(), Options{BuiltIn: BuiltInContext{MainModel: "gemini-2.5-flash"}})
	if d, _ := c.Lookup(CodebaseInvestigator); d.Model != "gemini-2.5-pro" {
		t.Fatalf("model = %s", d.Model)
	}
	c.SetMainModel(context.Background(), "gemini-3-pro-preview")
	if d, _ := c.Lookup(CodebaseInvestigator); d.Model != "gemini-3-flash-preview" {
		t.Errorf("after SetMainModel, model = %s", d.Model)
	}
}
