package tools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

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

// UnknownToolError is the error message the model gets when it calls a
// tool it was not told of (declared, the names its request declared):
// one the registry does not hold, or one it holds but the session does
// not offer now (ToolNotFound).
func (r *Registry) UnknownToolError(name string, declared []string) string {
	if _, held := r.Get(name); name == GetDiagnosticsName && !held {
		// gemini-ls's own tool, which a model may know of from another
		// session: told why it is not here, not that it does not exist.
		return fmt.Sprintf("Tool %q is not available here: it asks the user's editor for the diagnostics it shows, which only an editor connected over LSP that offers them can answer (not ACP clients, not headless runs). Available tools: %s", name, strings.Join(declared, ", "))
	}
	return ToolNotFound(name, declared)
}

// ToolNotFound is Gemini CLI 0.61's answer to a call of a tool it has
// not (its Scheduler's tool_not_registered error, bundle chunk-JDPZ4CE3.js
// _createToolNotFoundErroredToolCall and getToolSuggestion), word for
// word: `Tool "NAME" not found.` and the three of declared nearest to
// name by edit distance (of UTF-16 code units, as fast-levenshtein
// counts), ties in 0.61's order of its tools (geminiCLIOrder), which
// scripts and Gemini CLI's own tests match.
func ToolNotFound(name string, declared []string) string {
	msg := fmt.Sprintf("Tool %q not found.", name)
	nearest := nearestNames(name, declared, 3)
	switch len(nearest) {
	case 0:
		return msg
	case 1:
		return msg + ` Did you mean "` + nearest[0] + `"?`
	}
	return msg + ` Did you mean one of: "` + strings.Join(nearest, `", "`) + `"?`
}

// nearestNames are the n of names nearest to name by edit distance,
// ties in 0.61's order.
func nearestNames(name string, names []string, n int) []string {
	type candidate struct {
		name           string
		distance, rank int
	}
	target := utf16.Encode([]rune(name))
	cands := make([]candidate, len(names))
	for i, other := range names {
		o := utf16.Encode([]rune(other))
		d, _ := levenshtein(target, o, len(target)+len(o))
		cands[i] = candidate{name: other, distance: d, rank: geminiCLIRank(other, i)}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.distance, b.distance), cmp.Compare(a.rank, b.rank))
	})
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

// geminiCLIOrder is the order 0.61's registry holds its built-in tools
// in (Config.createToolRegistry, bundle chunk-JDPZ4CE3.js:380938-380986),
// activate_skill last: 0.61 registers it again once the skills are
// loaded. Its suggestions list tied names in this order.
var geminiCLIOrder = [...]string{
	UpdateTopicName, ListDirectoryName, ReadFileName, GrepSearchName, GlobName, ReplaceName, WriteFileName,
	WebFetchName, ReadResourceName, ListResourcesName, ShellName, ListBackgroundName, ReadBackgroundName,
	WebSearchName, AskUserName, WriteTodosName, ExitPlanModeName, EnterPlanModeName,
	TrackerCreateTaskName, TrackerUpdateTaskName, TrackerGetTaskName, TrackerListTasksName,
	TrackerAddDependencyName, TrackerVisualizeName, InvokeAgentName, ActivateSkillName,
}

// geminiCLIRank is where 0.61 holds tool name among its tools, the i-th
// declared: a built-in by geminiCLIOrder, any other (gemini-ls's own,
// discovered and MCP tools, which 0.61 sorts after its built-ins) after
// them in the order declared.
func geminiCLIRank(name string, i int) int {
	if r := slices.Index(geminiCLIOrder[:], name); r >= 0 {
		return r
	}
	return len(geminiCLIOrder) + i
}
