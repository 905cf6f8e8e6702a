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
	t, ok := r.index[name]
	return t, ok
}

// Declarations returns every tool's declaration in registration order.
func (r *Registry) Declarations() []*genai.FunctionDeclaration {
	decls := make([]*genai.FunctionDeclaration, len(r.tools))
	for i, t := range r.tools {
		decls[i] = t.Declaration()
	}
	return decls
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
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
