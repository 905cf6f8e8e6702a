package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// withAgents is the agent's tools with invoke_agent, offered while the
// catalogue has an agent.
type withAgents struct {
	inner   ToolSet // nil: none
	catalog AgentCatalog
	invoke  tools.Tool

	mu      sync.Mutex
	from    []*genai.FunctionDeclaration
	offered bool
	decls   []*genai.FunctionDeclaration
}

func newWithAgents(inner ToolSet, catalog AgentCatalog) *withAgents {
	w := &withAgents{inner: inner, catalog: catalog}
	w.invoke = tools.NewInvokeAgent(catalogNames{catalog})
	return w
}

// catalogNames is what invoke_agent asks of the catalogue.
type catalogNames struct{ c AgentCatalog }

func (n catalogNames) HasAgent(name string) bool {
	_, ok := n.c.Lookup(name)
	return ok
}

func (w *withAgents) hasAgents() bool { return len(w.catalog.Active()) > 0 }

func (w *withAgents) Get(name string) (tools.Tool, bool) {
	if name == tools.InvokeAgentName {
		return w.invoke, w.hasAgents()
	}
	if w.inner == nil {
		return nil, false
	}
	return w.inner.Get(name)
}

// Declarations are the inner ones, then invoke_agent's while an agent is
// enabled: the same slice while both stay the same.
func (w *withAgents) Declarations() []*genai.FunctionDeclaration {
	var base []*genai.FunctionDeclaration
	if w.inner != nil {
		base = w.inner.Declarations()
	}
	offered := w.hasAgents()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.decls != nil && sameSlice(base, w.from) && offered == w.offered {
		return w.decls
	}
	w.from, w.offered = base, offered
	w.decls = slices.Clip(base)
	if offered {
		w.decls = append(slices.Clone(base), w.invoke.Declaration())
	}
	if w.decls == nil {
		w.decls = []*genai.FunctionDeclaration{}
	}
	return w.decls
}

func (w *withAgents) UnknownToolError(name string, declared []string) string {
	if w.inner == nil {
		return fmt.Sprintf("Tool %q not found: no tools are available.", name)
	}
	return w.inner.UnknownToolError(name, declared)
}

// subagentTools are a subagent's tools: those its definition names of the
// main agent's, then complete_task. They are chosen when the run starts,
// as 0.61 fills the subagent's registry once.
type subagentTools struct {
	byName map[string]tools.Tool
	decls  []*genai.FunctionDeclaration
}

func (s *subagentTools) Get(name string) (tools.Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

func (s *subagentTools) Declarations() []*genai.FunctionDeclaration { return s.decls }

// UnknownToolError is 0.61's createUnauthorizedToolError (bundle
// chunk-JDPZ4CE3.js:348696).
func (s *subagentTools) UnknownToolError(name string, _ []string) string {
	return fmt.Sprintf(unauthorizedTool, name)
}

// pickTools is the main agent's tools that def may call, as 0.61's
// LocalAgentExecutor.create picks them (bundle chunk-JDPZ4CE3.js:348760-
// 348800): by name, "*" for all, "mcp_*" for every MCP tool, "mcp_SERVER_*"
// for a server's; none a subagent may not be given
// (tools.Annotations.ForSubagents: invoke_agent, no recursion, and
// update_topic). nil Tools: all of them. A name not among them may name
// one of Config.SubagentTools.
func (a *Agent) pickTools(def subagents.Definition, complete *tools.CompleteTask) *subagentTools {
	out := &subagentTools{byName: map[string]tools.Tool{}}
	add := func(t tools.Tool) {
		name := t.Name()
		if !tools.AnnotationsOf(t).ForSubagents() || out.byName[name] != nil {
			return
		}
		out.byName[name] = t
		out.decls = append(out.decls, t.Declaration())
	}
	var all []tools.Tool
	if a.cfg.Tools != nil {
		for _, d := range a.cfg.Tools.Declarations() {
			if t, ok := a.cfg.Tools.Get(d.Name); ok {
				all = append(all, t)
			}
		}
	}
	patterns := def.Tools
	if patterns == nil {
		patterns = []string{"*"}
	}
	for _, p := range patterns {
		switch {
		case p == "*":
			for _, t := range all {
				add(t)
			}
		case p == "mcp_*":
			for _, t := range all {
				if _, ok := t.(mcpTool); ok {
					add(t)
				}
			}
		case strings.HasPrefix(p, "mcp_") && strings.HasSuffix(p, "_*"):
			server := strings.TrimSuffix(strings.TrimPrefix(p, "mcp_"), "_*")
			for _, t := range all {
				if m, ok := t.(mcpTool); ok {
					if s, _ := m.MCPOrigin(); s == server {
						add(t)
					}
				}
			}
		default:
			if a.cfg.Tools != nil {
				if t, ok := a.cfg.Tools.Get(p); ok {
					add(t)
					continue
				}
			}
			for _, t := range a.cfg.SubagentTools {
				if t.Name() == p {
					add(t)
				}
			}
		}
	}
	out.byName[complete.Name()] = complete
	out.decls = append(out.decls, complete.Declaration())
	return out
}
