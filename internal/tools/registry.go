package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"
)

// Registry holds the tools offered to the model, looked up by name.
type Registry struct {
	tools []Tool // in registration order, which Declarations keeps
	index map[string]Tool
	// sources offer tools that come and go while the agent runs (MCP
	// servers start in the background and may die); they are asked at
	// every lookup, so each model request declares what is there now.
	sources []Source

	// mu guards what Declarations keeps between model requests, each of
	// which asks for them: making them every time (a schema derived from
	// a struct by reflection per tool) was a good part of a request's
	// cost.
	mu sync.Mutex
	// made is each registered tool's declaration, made on first use
	// (nil until then); Redeclaring tools are asked every time instead.
	made []*genai.FunctionDeclaration
	// decls is what Declarations returned last.
	decls []*genai.FunctionDeclaration
}

// Redeclaring is a tool whose declaration changes while it is registered
// (activate_skill's names the skills enabled now). The registry asks it
// for its declaration at every request, where it asks the other
// registered tools once.
type Redeclaring interface {
	Tool
	// Redeclares marks the tool; its Declaration returns the same
	// declaration, not a copy, while the declaration has not changed.
	Redeclares()
}

// Source offers tools whose set changes at run time. Tools returns the
// tools available now; a name the registry already holds is ignored. Its
// tools' Declaration is asked at every request and returns the same
// declaration, not a copy, every time.
type Source interface {
	Tools() []Tool
}

// AddSource adds the tools of src after the registered ones. Call it before
// the registry is shared.
func (r *Registry) AddSource(src Source) {
	r.sources = append(r.sources, src)
}

// all is every tool available now, registered ones first, each name once.
func (r *Registry) all() []Tool {
	if len(r.sources) == 0 {
		return r.tools
	}
	all := slices.Clip(r.tools)
	seen := make(map[string]bool)
	for _, src := range r.sources {
		for _, t := range src.Tools() {
			name := t.Name()
			if _, static := r.index[name]; static || seen[name] {
				continue
			}
			seen[name] = true
			all = append(all, t)
		}
	}
	return all
}

// NewRegistry returns a registry of tools. Tool names must be unique: a
// duplicate is a programming error and panics.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{index: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		name := t.Name()
		if _, dup := r.index[name]; dup {
			panic(fmt.Sprintf("tools: duplicate tool name %q", name))
		}
		r.index[name] = t
		r.tools = append(r.tools, t)
	}
	return r
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	if t, ok := r.index[name]; ok {
		return t, true
	}
	for _, src := range r.sources {
		for _, t := range src.Tools() {
			if t.Name() == name {
				return t, true
			}
		}
	}
	// A call by a name the tool had before (a saved session's, a model's
	// that read one) still reaches it, when no tool has it now.
	for _, src := range r.sources {
		for _, t := range src.Tools() {
			if o, ok := t.(Renamed); ok && slices.Contains(o.OlderNames(), name) {
				return t, true
			}
		}
	}
	return nil, false
}

// Renamed is a tool that had other names before (an MCP tool, before
// gemini-ls named them as Gemini CLI 0.61 does): calls by those still
// reach it, while no other tool has the name.
type Renamed interface {
	OlderNames() []string
}

// Declarations returns every tool's declaration in registration order.
// The slice is the same one, and so are its declarations, until a tool
// comes, goes or changes its declaration; then it is a new slice. They
// are shared: nobody may change them (copy a declaration to change it).
func (r *Registry) Declarations() []*genai.FunctionDeclaration {
	tools := r.all()
	r.mu.Lock()
	defer r.mu.Unlock()
	var fresh []*genai.FunctionDeclaration // nil while each is the last one's
	for i, t := range tools {
		d := r.declaration(i, t)
		if fresh == nil && (i >= len(r.decls) || r.decls[i] != d) {
			fresh = make([]*genai.FunctionDeclaration, i, len(tools))
			copy(fresh, r.decls)
		}
		if fresh != nil {
			fresh = append(fresh, d)
		}
	}
	switch {
	case fresh != nil:
		r.decls = fresh
	case len(tools) < len(r.decls): // the last ones went
		r.decls = slices.Clone(r.decls[:len(tools)])
	}
	return r.decls
}

// declaration is the declaration of t, the i-th of r.all(); r.mu is held.
func (r *Registry) declaration(i int, t Tool) *genai.FunctionDeclaration {
	if _, changes := t.(Redeclaring); changes || i >= len(r.tools) {
		return t.Declaration()
	}
	if r.made == nil {
		r.made = make([]*genai.FunctionDeclaration, len(r.tools))
	}
	if r.made[i] == nil {
		r.made[i] = t.Declaration()
	}
	return r.made[i]
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	tools := r.all()
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	slices.Sort(names)
	return names
}

// UnknownToolError is the error message the model gets when it calls a tool
// the registry does not hold.
func (r *Registry) UnknownToolError(name string) string {
	available := strings.Join(r.Names(), ", ")
	if name == GetDiagnosticsName {
		// gemini-ls's own tool, which a model may know of from another
		// session: told why it is not here, not that it does not exist.
		return fmt.Sprintf("Tool %q is not available here: it asks the user's editor for the diagnostics it shows, which only an editor connected over LSP that offers them can answer (not ACP clients, not headless runs). Available tools: %s", name, available)
	}
	return fmt.Sprintf("Tool %q not found in registry. Available tools: %s", name, available)
}
