package tools

import (
	"fmt"
	"slices"
	"strings"

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
}

// Source offers tools whose set changes at run time. Tools returns the
// tools available now; a name the registry already holds is ignored.
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
	return nil, false
}

// Declarations returns every tool's declaration in registration order.
func (r *Registry) Declarations() []*genai.FunctionDeclaration {
	tools := r.all()
	decls := make([]*genai.FunctionDeclaration, len(tools))
	for i, t := range tools {
		decls[i] = t.Declaration()
	}
	return decls
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
	return fmt.Sprintf("Tool %q not found in registry. Available tools: %s", name, strings.Join(r.Names(), ", "))
}
