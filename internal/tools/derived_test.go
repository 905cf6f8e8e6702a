package tools

import (
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// builtinParams is each built-in tool's parameter struct, by its name:
// every built-in tool is declared by Define.
func builtinParams(t *testing.T, all []Tool) map[string]reflect.Type {
	t.Helper()
	params := map[string]reflect.Type{}
	for _, tool := range all {
		d, ok := tool.(interface{ params() reflect.Type })
		if !ok {
			t.Errorf("%s is not declared by Define", tool.Name())
			continue
		}
		params[tool.Name()] = d.params()
	}
	return params
}

// Every built-in tool's parameters are what jsonschema-go derives from
// its parameter struct (with activate_skill's skill names as the enabled
// skills make them), and a schema jsonschema-go resolves: none is written
// out by hand. A tool added to Builtin not by Define fails here.
func TestBuiltinSchemasAreDerived(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	catalog, _ := skillCatalog(t, map[string]string{"deploy/SKILL.md": "---\nname: deploy\ndescription: ships\n---\n"})
	// bash's shell: the Windows shells' command description is written
	// over the struct's (shellDescriptions).
	bash := ShellOptions{Shell: osshell.Shell{Kind: osshell.Bash, Executable: "bash", Args: []string{"-c"}}}
	all := Builtin(Options{Workspace: tw.ws, Plan: PlanOptions{Enabled: true}, Skills: catalog, Diagnostics: &shownDiagnostics{}, Shell: bash})
	params := builtinParams(t, all)
	for _, tool := range all {
		p, ok := params[tool.Name()]
		if !ok {
			continue
		}
		var opts *jsonschema.ForOptions
		if tool.Name() == ActivateSkillName {
			opts = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[skillName](): skillNameSchema([]string{"deploy"})}}
		}
		if got, want := tool.Declaration().ParametersJsonSchema, declaredSchema(p, opts); !reflect.DeepEqual(got, want) {
			t.Errorf("%s declares\n%v\nnot what jsonschema-go derives from %s:\n%v", tool.Name(), got, p, want)
		}
		if _, err := derive(p, opts).Resolve(nil); err != nil {
			t.Errorf("%s: jsonschema-go does not resolve its schema: %v", tool.Name(), err)
		}
	}
}
