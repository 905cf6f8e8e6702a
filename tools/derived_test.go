package tools

import (
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// builtinParams is each built-in tool's parameter struct.
var builtinParams = map[string]reflect.Type{
	ListDirectoryName:  reflect.TypeFor[listDirectoryParams](),
	ReadFileName:       reflect.TypeFor[readFileParams](),
	WriteFileName:      reflect.TypeFor[writeFileParams](),
	ReplaceName:        reflect.TypeFor[replaceParams](),
	GlobName:           reflect.TypeFor[globParams](),
	GrepSearchName:     reflect.TypeFor[grepParams](),
	ShellName:          reflect.TypeFor[shellParams](),
	ReadManyFilesName:  reflect.TypeFor[readManyFilesParams](),
	WebFetchName:       reflect.TypeFor[webFetchParams](),
	WebSearchName:      reflect.TypeFor[webSearchParams](),
	MemoryName:         reflect.TypeFor[saveMemoryParams](),
	WriteTodosName:     reflect.TypeFor[writeTodosParams](),
	AskUserName:        reflect.TypeFor[askUserParams](),
	UpdateTopicName:    reflect.TypeFor[updateTopicParams](),
	ListBackgroundName: reflect.TypeFor[listBackgroundParams](),
	ReadBackgroundName: reflect.TypeFor[readBackgroundParams](),
	EnterPlanModeName:  reflect.TypeFor[enterPlanModeParams](),
	ExitPlanModeName:   reflect.TypeFor[exitPlanModeParams](),
	ActivateSkillName:  reflect.TypeFor[activateSkillParams](),
	GetDiagnosticsName: reflect.TypeFor[getDiagnosticsParams](),
}

// Every built-in tool's parameters are what jsonschema-go derives from
// its parameter struct (with activate_skill's skill names as the enabled
// skills make them), and a schema jsonschema-go resolves: none is written
// out by hand. A tool added to Builtin fails here until its parameter
// struct is named in builtinParams.
func TestBuiltinSchemasAreDerived(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	catalog, _ := skillCatalog(t, map[string]string{"deploy/SKILL.md": "---\nname: deploy\ndescription: ships\n---\n"})
	all := Builtin(Options{Workspace: tw.ws, Plan: PlanOptions{Enabled: true}, Skills: catalog, Diagnostics: &shownDiagnostics{}})
	if len(all) != len(builtinParams) {
		t.Errorf("%d built-in tools, %d parameter structs named", len(all), len(builtinParams))
	}
	for _, tool := range all {
		p, ok := builtinParams[tool.Name()]
		if !ok {
			t.Errorf("%s: no parameter struct named in builtinParams", tool.Name())
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
