package tools

import (
	"encoding/json"
	"slices"
	"testing"

	"google.golang.org/genai"
)

func TestRegistry(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	reg := NewRegistry(Builtin(Options{Workspace: tw.ws})...)

	wantOrder := AlwaysNames()
	wantNames := slices.Sorted(slices.Values(wantOrder))
	if got := reg.Names(); !slices.Equal(got, wantNames) {
		t.Errorf("Names() = %v, want %v", got, wantNames)
	}

	var declared []string
	for _, d := range reg.Declarations() {
		declared = append(declared, d.Name)
	}
	if !slices.Equal(declared, wantOrder) {
		t.Errorf("Declarations() order = %v, want %v", declared, wantOrder)
	}

	for _, name := range wantNames {
		tool, ok := reg.Get(name)
		if !ok || tool.Name() != name {
			t.Errorf("Get(%q) = %v, %v", name, tool, ok)
		}
	}
	if _, ok := reg.Get("nope"); ok {
		t.Error(`Get("nope") found a tool`)
	}

	want := ToolNotFound("foo", wantOrder)
	if got := reg.UnknownToolError("foo", wantOrder); got != want {
		t.Errorf("UnknownToolError:\n%s\nwant:\n%s", got, want)
	}
}

// A call of a tool the model was not told of is answered in Gemini CLI
// 0.61's words, its suggestions the three nearest of the tools declared,
// ties in 0.61's order whatever order gemini-ls declares them in: what
// 0.61 answered for these tools and declarations (headless, in each
// mode: TestRunUndeclaredToolIsNotFoundAsInGeminiCLI runs both).
func TestToolNotFoundIsGeminiCLIs(t *testing.T) {
	defaultMode := []string{ListDirectoryName, ReadFileName, GlobName, GrepSearchName, WebSearchName, UpdateTopicName, EnterPlanModeName, InvokeAgentName}
	autoEdit := []string{ListDirectoryName, ReadFileName, WriteFileName, ReplaceName, GlobName, GrepSearchName, WebFetchName, WebSearchName, UpdateTopicName, EnterPlanModeName, InvokeAgentName}
	plan := []string{ListDirectoryName, ReadFileName, WriteFileName, ReplaceName, GlobName, GrepSearchName, WebSearchName, UpdateTopicName, ExitPlanModeName, InvokeAgentName}
	for _, c := range []struct {
		name     string
		declared []string
		want     string
	}{
		{ShellName, defaultMode, `Tool "run_shell_command" not found. Did you mean one of: "update_topic", "grep_search", "invoke_agent"?`},
		{ShellName, autoEdit, `Tool "run_shell_command" not found. Did you mean one of: "update_topic", "grep_search", "replace"?`},
		{WriteFileName, defaultMode, `Tool "write_file" not found. Did you mean one of: "read_file", "update_topic", "grep_search"?`},
		{EnterPlanModeName, plan, `Tool "enter_plan_mode" not found. Did you mean one of: "exit_plan_mode", "replace", "read_file"?`},
		{ShellName, []string{ReadFileName}, `Tool "run_shell_command" not found. Did you mean "read_file"?`},
		{ShellName, nil, `Tool "run_shell_command" not found.`},
	} {
		if got := ToolNotFound(c.name, c.declared); got != c.want {
			t.Errorf("ToolNotFound(%s, %q) =\n%s\nwant\n%s", c.name, c.declared, got, c.want)
		}
	}
}

// Every declaration must be a valid object schema whose required
// parameters are declared properties, and must survive JSON encoding.
func TestDeclarationsSchemas(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	for _, d := range NewRegistry(Builtin(Options{Workspace: tw.ws})...).Declarations() {
		if d.Description == "" {
			t.Errorf("%s: no description", d.Name)
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		var decoded struct {
			Schema struct {
				Type       string                    `json:"type"`
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			} `json:"parametersJsonSchema"`
		}
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		s := decoded.Schema
		// list_background_processes takes nothing, as in Gemini CLI.
		if s.Type != "object" || (len(s.Properties) == 0 || len(s.Required) == 0) && d.Name != ListBackgroundName {
			t.Errorf("%s: schema %s", d.Name, data)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", d.Name, r)
			}
		}
		for name, p := range s.Properties {
			// Gemini CLI describes ask_user's questions by their items only.
			undescribed := d.Name == AskUserName && name == "questions"
			if p["type"] == nil || p["description"] == nil && !undescribed {
				t.Errorf("%s.%s: property without type or description: %v", d.Name, name, p)
			}
		}
	}
}

func TestRegistryDuplicatePanics(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	tools := Builtin(Options{Workspace: tw.ws})
	defer func() {
		if recover() == nil {
			t.Error("NewRegistry with a duplicate name did not panic")
		}
	}()
	NewRegistry(append(tools, tools[0])...)
}

// namedTool is a tool that only has a name.
type namedTool struct{ name string }

func (t namedTool) Name() string { return t.name }
func (t namedTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: t.name}
}
func (t namedTool) Build(map[string]any) (Call, error) { return nil, nil }

// changingSource offers whatever tools it holds at the moment.
type changingSource struct{ tools []Tool }

func (s *changingSource) Tools() []Tool { return s.tools }

// A source's tools are looked up and declared as they are at each call,
// after the registered ones, never hiding a registered name.
func TestRegistrySourceIsReadAtEveryLookup(t *testing.T) {
	src := &changingSource{}
	reg := NewRegistry(namedTool{"read_file"})
	reg.AddSource(src)
	declared := func() []string {
		var names []string
		for _, d := range reg.Declarations() {
			names = append(names, d.Name)
		}
		return names
	}
	if got := declared(); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("declared before the source has tools: %v", got)
	}
	src.tools = []Tool{namedTool{"echo"}, namedTool{"read_file"}, namedTool{"echo"}}
	if got := declared(); !slices.Equal(got, []string{"read_file", "echo"}) {
		t.Errorf("declared = %v, want read_file, echo", got)
	}
	if got := reg.Names(); !slices.Equal(got, []string{"echo", "read_file"}) {
		t.Errorf("Names = %v", got)
	}
	if tool, ok := reg.Get("echo"); !ok || tool.Name() != "echo" {
		t.Errorf("Get(echo) = %v, %v", tool, ok)
	}
	src.tools = nil // the server died
	if _, ok := reg.Get("echo"); ok {
		t.Error("a withdrawn tool is still found")
	}
	if got := declared(); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("declared after the source withdrew its tools: %v", got)
	}
}

// countingTool counts how often its declaration is made.
type countingTool struct {
	name string
	made *int
	Tool // unused: Build is never called
}

func (c countingTool) Name() string { return c.name }
func (c countingTool) Declaration() *genai.FunctionDeclaration {
	*c.made++
	return &genai.FunctionDeclaration{Name: c.name, Description: "counts"}
}

// toolSource is a Source whose tools the test sets.
type toolSource struct{ tools []Tool }

func (s *toolSource) Tools() []Tool { return s.tools }

// stableTool is a source's tool, whose declaration is made once.
type stableTool struct {
	Tool
	decl *genai.FunctionDeclaration
}

func newStableTool(name string) *stableTool {
	return &stableTool{decl: &genai.FunctionDeclaration{Name: name, Description: "from a source"}}
}

func (s *stableTool) Name() string                            { return s.decl.Name }
func (s *stableTool) Declaration() *genai.FunctionDeclaration { return s.decl }

func declaredNames(decls []*genai.FunctionDeclaration) []string {
	var names []string
	for _, d := range decls {
		names = append(names, d.Name)
	}
	return names
}

// A registered tool's declaration is made once, and Declarations hands
// out the same slice until a source's tool comes or goes: then a new one,
// leaving the one handed out before as it was.
func TestDeclarationsMadeOnceAndRenewedWhenToolsChange(t *testing.T) {
	made := 0
	src := &toolSource{}
	reg := NewRegistry(countingTool{name: "static", made: &made})
	reg.AddSource(src)

	first := reg.Declarations()
	if again := reg.Declarations(); &again[0] != &first[0] || len(again) != 1 {
		t.Errorf("unchanged tools: a new slice %v", declaredNames(again))
	}
	if made != 1 {
		t.Errorf("the registered tool's declaration was made %d times, want once", made)
	}

	mcpTool := newStableTool("mcp_tool")
	src.tools = []Tool{mcpTool}
	grown := reg.Declarations()
	if got := declaredNames(grown); !slices.Equal(got, []string{"static", "mcp_tool"}) {
		t.Errorf("after a source's tool came: %v", got)
	}
	if &grown[0] == &first[0] {
		t.Error("a tool came, and the slice handed out before was reused")
	}
	if got := declaredNames(first); !slices.Equal(got, []string{"static"}) {
		t.Errorf("the slice handed out before changed to %v", got)
	}
	if again := reg.Declarations(); &again[0] != &grown[0] {
		t.Error("unchanged again, but a new slice")
	}

	src.tools = []Tool{newStableTool("mcp_tool")} // relisted: a new tool of the same name
	relisted := reg.Declarations()
	if &relisted[0] == &grown[0] || relisted[1] != src.tools[0].Declaration() {
		t.Error("a relisted tool's declaration was not taken")
	}

	src.tools = nil
	shrunk := reg.Declarations()
	if got := declaredNames(shrunk); !slices.Equal(got, []string{"static"}) {
		t.Errorf("after the source's tool went: %v", got)
	}
	if &shrunk[0] == &relisted[0] {
		t.Error("a tool went, and the slice handed out before was reused")
	}
	if made != 1 {
		t.Errorf("the registered tool's declaration was made %d times, want once", made)
	}
}
