package tools

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// declared is one function as a declaration set names it: its parameters
// and which are required, sorted.
type declared struct {
	Parameters []string `json:"parameters"`
	Required   []string `json:"required"`
}

// notYet is what Gemini CLI 0.61 declares that gemini-ls does not,
// deliberately: each entry says why. A tool or parameter missing from
// gemini-ls and not listed here fails the test, as does one listed here
// that gemini-ls has come to declare (the entry is then stale).
var notYet = map[string][]string{
	// Subagents: not in gemini-ls yet.
	"invoke_agent": nil,
}

// beyond are gemini-ls's tools 0.61 does not declare in that setup (it
// registers them only in other settings, or has none like them).
var beyond = []string{"ask_user", "exit_plan_mode", "write_todos"}

// Every built-in tool is declared with Gemini CLI 0.61's name, parameter
// names and required list, as 0.61 declared them to each model family
// (testdata/declarations-0.61-*.json, made by
// bench/compare-0.61/declarations.sh), but for notYet.
func TestDeclarationsAsGeminiCLI061(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	catalog, _ := skills.Discover(skills.Config{UserDir: t.TempDir()})
	ours := map[string]declared{}
	for _, tool := range Builtin(Options{Workspace: tw.ws, Plan: PlanOptions{Enabled: true}, Skills: catalog}) {
		schema := schemaOf(t, tool)
		ours[tool.Name()] = schema
	}
	for _, model := range []string{"gemini-2.5-pro", "gemini-3-pro-preview"} {
		data, err := os.ReadFile("testdata/declarations-0.61-" + model + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var theirs map[string]declared
		if err := json.Unmarshal(data, &theirs); err != nil {
			t.Fatal(err)
		}
		for name, want := range theirs {
			skip, deliberate := notYet[name]
			got, ok := ours[name]
			switch {
			case !ok && deliberate && skip == nil:
				continue
			case !ok:
				t.Errorf("%s: 0.61 declares %s; gemini-ls does not", model, name)
				continue
			case deliberate && skip == nil:
				t.Errorf("%s: gemini-ls declares %s, listed as not yet", model, name)
			}
			wantParams := slices.DeleteFunc(slices.Clone(want.Parameters), func(p string) bool { return slices.Contains(skip, p) })
			for _, p := range skip {
				if slices.Contains(got.Parameters, p) {
					t.Errorf("%s: %s declares %s, listed as not yet", model, name, p)
				}
			}
			if !slices.Equal(got.Parameters, wantParams) {
				t.Errorf("%s: %s declares parameters %v; 0.61 %v (less those not yet: %v)", model, name, got.Parameters, want.Parameters, skip)
			}
			if !slices.Equal(got.Required, want.Required) {
				t.Errorf("%s: %s requires %v; 0.61 %v", model, name, got.Required, want.Required)
			}
		}
		for name := range ours {
			if _, ok := theirs[name]; !ok && !slices.Contains(beyond, name) {
				t.Errorf("%s: gemini-ls declares %s, which 0.61 does not", model, name)
			}
		}
	}
}

// schemaOf is tool's declared parameters and required list, sorted.
func schemaOf(t *testing.T, tool Tool) declared {
	t.Helper()
	d := tool.Declaration()
	if d.Name != tool.Name() {
		t.Errorf("%s is declared as %s", tool.Name(), d.Name)
	}
	schema, ok := d.ParametersJsonSchema.(map[string]any)
	if !ok {
		t.Fatalf("%s: parameters are %T", tool.Name(), d.ParametersJsonSchema)
	}
	var out declared
	props, _ := schema["properties"].(map[string]any)
	for p := range props {
		out.Parameters = append(out.Parameters, p)
	}
	switch r := schema["required"].(type) {
	case []string:
		out.Required = slices.Clone(r)
	case []any:
		for _, p := range r {
			out.Required = append(out.Required, p.(string))
		}
	}
	slices.Sort(out.Parameters)
	slices.Sort(out.Required)
	if out.Parameters == nil {
		out.Parameters = []string{}
	}
	if out.Required == nil {
		out.Required = []string{}
	}
	return out
}
