package tools

import (
	"maps"
	"reflect"
	"sync"

	"google.golang.org/genai"
)

// A built-in tool is declared once, as the MCP Go SDK's AddTool[In, Out]
// declares a server's tools: Define takes what the tool is (Spec: its
// name, its description, its nature, the names settings know it by), its
// parameter struct P and a builder of its calls from a P. Everything else
// follows from them: the schema the model is told (derived from P,
// schema.go), the renaming of arguments older calls named otherwise (P's
// was tags, and its fromOlder), the check of the arguments against the
// schema and their decoding into a P before the builder runs, and what
// the agent's scheduler, plan mode, the approval door, settings' filters
// and the subagents read of the tool (Annotations, Aliases). A tool
// added is its file and the line that registers it.

// Spec is what a tool says of itself.
type Spec struct {
	// Name is the function name the model calls.
	Name string
	// Description is what the model is told the tool does.
	Description string
	// Annotations are what its calls do.
	Annotations Annotations
	// Aliases are the other names settings' tools.core and tools.exclude
	// may give the tool, as Gemini CLI accepts them: its class name
	// (ReadFileTool) and the names it had before.
	Aliases []string
	// ParamDescriptions replace the descriptions of the parameters they
	// name, for words that depend on where the tool runs
	// (run_shell_command's shell).
	ParamDescriptions map[string]string
}

// olderArgs is a parameter struct whose older calls named their
// arguments in ways a was tag cannot say (read_file's 0-based offset and
// limit): fromOlder returns args as Gemini CLI 0.61 would have had them,
// without changing args, once the was names are renamed.
type olderArgs interface {
	fromOlder(args map[string]any) (map[string]any, error)
}

// prechecked is a parameter struct whose arguments are checked before
// the schema checks them, in the words of Gemini CLI's own checks, as
// gemini-ls always checked them (write_todos).
type prechecked interface {
	precheck(args map[string]any) error
}

// Defined is a tool declared by Define: a Tool, whose Build checks and
// decodes the arguments into a P for the builder it was given.
type Defined[P any] struct {
	spec  Spec
	build func(*SessionScope, P) (Call, error)

	declOnce sync.Once
	decl     *genai.FunctionDeclaration
}

// Define declares the tool spec says, whose parameters are P and whose
// calls build makes.
func Define[P any](spec Spec, build func(P) (Call, error)) *Defined[P] {
	return &Defined[P]{spec: spec, build: func(_ *SessionScope, p P) (Call, error) { return build(p) }}
}

// InSession is a tool declared by DefineInSession: a SessionTool.
type InSession[P any] struct{ *Defined[P] }

// DefineInSession is Define for a tool whose calls depend on the session
// that makes them (plan mode's tools: the session's plans directory).
// build gets the session's scope, or nil for a call built outside a
// session (a transcript's title).
func DefineInSession[P any](spec Spec, build func(*SessionScope, P) (Call, error)) InSession[P] {
	return InSession[P]{&Defined[P]{spec: spec, build: build}}
}

func (d *Defined[P]) Name() string { return d.spec.Name }

// params is the tool's parameter struct type.
func (d *Defined[P]) params() reflect.Type { return reflect.TypeFor[P]() }

// Declaration is the tool's declaration, made once: its schema is P's.
func (d *Defined[P]) Declaration() *genai.FunctionDeclaration {
	d.declOnce.Do(func() {
		schema := withDescriptions(declaredSchema(reflect.TypeFor[P](), nil), d.spec.ParamDescriptions)
		d.decl = &genai.FunctionDeclaration{Name: d.spec.Name, Description: d.spec.Description, ParametersJsonSchema: schema}
	})
	return d.decl
}

// withDescriptions is schema with its properties' descriptions replaced
// by those of descriptions. schema, which other tools share, is not
// changed: what changes is copied.
func withDescriptions(schema map[string]any, descriptions map[string]string) map[string]any {
	if len(descriptions) == 0 {
		return schema
	}
	props, _ := schema["properties"].(map[string]any)
	schema, props = maps.Clone(schema), maps.Clone(props)
	for name, description := range descriptions {
		prop, ok := props[name].(map[string]any)
		if !ok {
			panic("tools: a description for " + name + ", which is no parameter")
		}
		prop = maps.Clone(prop)
		prop["description"] = description
		props[name] = prop
	}
	schema["properties"] = props
	return schema
}

func (d *Defined[P]) Annotations() Annotations { return d.spec.Annotations }

func (d *Defined[P]) Aliases() []string { return d.spec.Aliases }

// NormalizeArgs is raw with what older calls named otherwise renamed: by
// P's was tags, then by P's fromOlder (olderArgs). raw is not changed.
func (d *Defined[P]) NormalizeArgs(raw map[string]any) (map[string]any, error) {
	args, err := renameOlder[P](raw)
	if err != nil {
		return nil, err
	}
	if o, ok := any(*new(P)).(olderArgs); ok {
		return o.fromOlder(args)
	}
	return args, nil
}

// Build builds the call of raw outside a session.
func (d *Defined[P]) Build(raw map[string]any) (Call, error) { return d.buildIn(nil, raw) }

// BuildIn builds the call of raw in the session s describes.
func (d InSession[P]) BuildIn(s SessionScope, raw map[string]any) (Call, error) {
	return d.buildIn(&s, raw)
}

// buildIn normalises raw, checks it and decodes it into a P for the
// builder; s is nil outside a session.
func (d *Defined[P]) buildIn(s *SessionScope, raw map[string]any) (Call, error) {
	args, err := d.NormalizeArgs(raw)
	if err != nil {
		return nil, err
	}
	var p P
	if c, ok := any(p).(prechecked); ok {
		if err := c.precheck(args); err != nil {
			return nil, err
		}
	}
	if err := decode(args, &p); err != nil {
		return nil, err
	}
	return d.build(s, p)
}

// Aliased is a tool settings may name otherwise (Spec.Aliases).
type Aliased interface {
	Aliases() []string
}

// AliasesOf are the other names settings may give t; none for a tool
// that has none.
func AliasesOf(t Tool) []string {
	if a, ok := t.(Aliased); ok {
		return a.Aliases()
	}
	return nil
}
