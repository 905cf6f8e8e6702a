package subagents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// maxAgentFile bounds a Markdown agent read: its body is a system prompt.
const maxAgentFile = 1 << 20

// maxAgentFiles bounds the files read of one directory.
const maxAgentFiles = 1000

// Options say where agents come from and what the settings change.
type Options struct {
	// UserDir is ~/.gemini (settings.UserDir): its agents/ are the
	// user's, its acknowledgments/agents.json the acknowledgments. ""
	// : neither.
	UserDir string
	// ProjectRoot is the project's root, whose .gemini/agents/ are the
	// project's agents, read only when Trusted (or when folder trust is
	// off, which the caller passes as Trusted). "" : none.
	ProjectRoot string
	Trusted     bool
	// Extensions are the active extensions' agents directories, in
	// their order.
	Extensions []ExtensionDir
	// Overrides is the merged settings' agents.overrides.
	Overrides map[string]settings.AgentOverride
	// BuiltIn is what the built-ins depend on.
	BuiltIn BuiltInContext
}

// ExtensionDir is one extension's agents directory ("agents" in its
// path, as 0.61's extension loader reads it, chunk-4GP6HFBO.js:65948).
type ExtensionDir struct {
	Extension string
	Dir       string
	// Hydrate fills the extension's variables into its agents' strings
	// (0.61's recursivelyHydrateStrings); none when nil.
	Hydrate func(string) string
}

// Entry is one agent as /agents shows it.
type Entry struct {
	// Definition is the agent, the settings' overrides applied.
	Definition Definition
	// Enabled: agents.overrides does not turn it off.
	Enabled bool
	// Acknowledged: not a project agent, or one the user acknowledged
	// at its present content. A project agent that is not is offered
	// to nobody until it is (Acknowledge).
	Acknowledged bool
	// Hash is what an acknowledgment records of it.
	Hash string
}

// DuplicateError is an agent left out because one of the same name
// came first (0.61's registerAgent warning, chunk-JDPZ4CE3.js:340960).
type DuplicateError struct {
	Name string
	Path string // the file left out
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("Duplicate agent name '%s' detected. The later definition will be ignored. Rename one of the agents to avoid this conflict.", e.Name)
}

// ErrUntrustedProject says a project's agents were not read: 0.61's
// notice (chunk-JDPZ4CE3.js:340884), for the user, not a failure.
var ErrUntrustedProject = errors.New("Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.")

// Catalog is the agents found. It is safe for concurrent use: Reload
// replaces them while sessions read them.
type Catalog struct {
	mu      sync.Mutex
	opts    Options
	entries []Entry // in discovery order, one per name
}

// Load finds the agents opts names, as 0.61's AgentRegistry.loadAgents
// does: the built-ins, then a trusted project's, then the user's, then
// the extensions'; the first of a name that is enabled wins, the later
// ones are reported (DuplicateError). The errors are each file that
// could not be used (LoadError), each agent left out, and
// ErrUntrustedProject; the catalog holds the rest.
func Load(ctx context.Context, opts Options) (*Catalog, []error) {
	c := &Catalog{opts: opts}
	return c, c.Reload(ctx)
}

// Reload finds the agents again (/agents reload).
func (c *Catalog) Reload(ctx context.Context) []error {
	c.mu.Lock()
	opts := c.opts
	c.mu.Unlock()
	entries, errs := discover(ctx, opts)
	c.mu.Lock()
	c.entries = entries
	c.mu.Unlock()
	return errs
}

// SetOverrides takes the settings' agents.overrides as they are now,
// for the next Reload (/agents reload reads the settings again).
func (c *Catalog) SetOverrides(o map[string]settings.AgentOverride) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.Overrides = o
}

// SetMainModel reloads the agents for a new main model, whose choice
// codebase_investigator's model follows, as 0.61 refreshes its local
// agents on ModelChanged.
func (c *Catalog) SetMainModel(ctx context.Context, model string) []error {
	c.mu.Lock()
	c.opts.BuiltIn.MainModel = model
	c.mu.Unlock()
	return c.Reload(ctx)
}

// Lookup is the agent invoke_agent may hire by name: enabled and, for a
// project's, acknowledged.
func (c *Catalog) Lookup(name string) (Definition, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.Definition.Name == name && e.Enabled && e.Acknowledged {
			return e.Definition, true
		}
	}
	return Definition{}, false
}

// Active are the agents invoke_agent may hire, in discovery order.
func (c *Catalog) Active() []Definition {
	c.mu.Lock() // read in place: every model request asks
	defer c.mu.Unlock()
	var out []Definition
	for _, e := range c.entries {
		if e.Enabled && e.Acknowledged {
			out = append(out, e.Definition)
		}
	}
	return out
}

// List is every agent found, in discovery order: the one of each name
// that is offered (or would be, were it enabled), and the project's
// agents waiting for acknowledgment.
func (c *Catalog) List() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.entries)
}

// Unacknowledged are the project's agents waiting for the user's
// acknowledgment (0.61's AgentsDiscovered event).
func (c *Catalog) Unacknowledged() []Entry {
	var out []Entry
	for _, e := range c.List() {
		if !e.Acknowledged {
			out = append(out, e)
		}
	}
	return out
}

// Acknowledge records the user's acceptance of the project's agent name
// as it is now, in the file Gemini CLI shares, and offers it.
func (c *Catalog) Acknowledge(ctx context.Context, name string) ([]error, error) {
	c.mu.Lock()
	opts := c.opts
	var found *Entry
	for i := range c.entries {
		if e := &c.entries[i]; e.Definition.Name == name && !e.Acknowledged {
			found = e
			break
		}
	}
	c.mu.Unlock()
	if found == nil {
		return nil, fmt.Errorf("no project agent %q waits for acknowledgment", name)
	}
	if opts.UserDir == "" {
		return nil, errors.New("there is no home directory to record the acknowledgment in")
	}
	root, err := projectKey(opts.ProjectRoot)
	if err != nil {
		return nil, err
	}
	if err := acknowledge(ctx, AcknowledgmentsPath(opts.UserDir), root, name, found.Hash); err != nil {
		return nil, err
	}
	return c.Reload(ctx), nil
}

// projectKey is the project's root as 0.61 records it: path.resolve of
// its target directory.
func projectKey(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("finding the project's root: %w", err)
	}
	return abs, nil
}

// discovery is one Reload's state: the entries by name, and what went
// wrong.
type discovery struct {
	opts    Options
	entries []Entry
	errs    []error
}

func discover(ctx context.Context, opts Options) ([]Entry, []error) {
	d := &discovery{opts: opts}
	for _, def := range BuiltIns(opts.BuiltIn) {
		d.add(def, "", true)
	}
	if opts.ProjectRoot != "" {
		if opts.Trusted {
			d.addProject(ctx)
		} else {
			d.errs = append(d.errs, ErrUntrustedProject)
		}
	}
	if opts.UserDir != "" {
		for _, p := range d.readDir(ctx, filepath.Join(opts.UserDir, "agents")) {
			d.add(withSource(p.def, User, ""), hashOf(p), true)
		}
	}
	for _, ext := range opts.Extensions {
		for _, p := range d.readDir(ctx, ext.Dir) {
			def := withSource(p.def, Extension, ext.Extension)
			if ext.Hydrate != nil {
				def = hydrate(def, ext.Hydrate)
			}
			// 0.61 hashes no extension's remote agent by its card.
			d.add(def, p.hash, true)
		}
	}
	return d.entries, d.errs
}

func (d *discovery) addProject(ctx context.Context) {
	found := d.readDir(ctx, configfiles.In(d.opts.ProjectRoot, "agents"))
	if len(found) == 0 {
		return
	}
	var acks map[string]string
	if d.opts.UserDir != "" {
		all, err := readAcks(AcknowledgmentsPath(d.opts.UserDir))
		if err != nil {
			d.errs = append(d.errs, err)
		}
		if root, err := projectKey(d.opts.ProjectRoot); err == nil {
			acks = all[root]
		}
	}
	for _, p := range found {
		hash := hashOf(p)
		d.add(withSource(p.def, Project, ""), hash, acks[p.def.Name] == hash)
	}
}

func withSource(def Definition, s Source, ext string) Definition {
	def.Source, def.Extension = s, ext
	return def
}

// hashOf is an agent's hash for acknowledgment: its file's, or for a
// remote agent its card's.
func hashOf(p parsed) string {
	if p.def.Kind == Remote {
		return remoteHash(p.def)
	}
	return p.hash
}

// add registers def as 0.61's registerAgent does: a name an enabled,
// acknowledged agent holds already keeps it, and the later one is
// reported; one only disabled is taken by the later, as 0.61's
// allDefinitions is. A project's agent waiting for acknowledgment takes
// nothing from anyone, and is kept beside.
func (d *discovery) add(def Definition, hash string, acknowledged bool) {
	override, hasOverride := d.opts.Overrides[def.Name]
	entry := Entry{
		Definition:   applyOverrides(def, override, hasOverride),
		Enabled:      !hasOverride || override.Enabled == nil || *override.Enabled,
		Acknowledged: acknowledged,
		Hash:         hash,
	}
	if !acknowledged {
		d.entries = append(d.entries, entry)
		return
	}
	replace := -1
	for i, e := range d.entries {
		switch {
		case e.Definition.Name != def.Name:
		case e.Enabled && e.Acknowledged:
			d.errs = append(d.errs, &DuplicateError{Name: def.Name, Path: def.Path})
			return
		case e.Acknowledged:
			replace = i
		}
	}
	if replace >= 0 {
		d.entries[replace] = entry
		return
	}
	d.entries = append(d.entries, entry)
}

// readDir reads the Markdown agents of dir as 0.61's
// loadAgentsFromDirectory does: each regular *.md file not starting with
// "_", in name order; a file that fails is reported and loses no other.
func (d *discovery) readDir(ctx context.Context, dir string) []parsed {
	entries, err := safefile.ReadDir(dir, maxAgentFiles)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		d.errs = append(d.errs, &LoadError{dir, "Could not list directory: " + err.Error()})
		return nil
	}
	var out []parsed
	for _, e := range entries {
		if ctx.Err() != nil {
			d.errs = append(d.errs, fmt.Errorf("reading the agents of %s: %w", dir, ctx.Err()))
			return out
		}
		name := e.Name()
		if !e.Type().IsRegular() || name[0] == '_' || filepath.Ext(name) != ".md" {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := safefile.Read(path, maxAgentFile)
		if err != nil {
			d.errs = append(d.errs, &LoadError{path, "Could not read file: " + err.Error()})
			continue
		}
		ps, err := parseMarkdown(path, string(data))
		if err != nil {
			d.errs = append(d.errs, err)
			continue
		}
		out = append(out, ps...)
	}
	return out
}

// applyOverrides is 0.61's applyOverrides (chunk-JDPZ4CE3.js:341120):
// for a local agent, runConfig and modelConfig go over its own, tools
// replace its tools; a remote agent takes only enabled.
func applyOverrides(def Definition, o settings.AgentOverride, has bool) Definition {
	if !has || def.Kind != Local {
		return def
	}
	if r := o.RunConfig; r != nil {
		if r.MaxTurns != nil {
			def.MaxTurns = *r.MaxTurns
		}
		if r.MaxTimeMinutes != nil {
			def.Timeout = time.Duration(*r.MaxTimeMinutes * float64(time.Minute))
		}
	}
	if m := o.ModelConfig; m != nil {
		if m.Model != "" {
			def.Model = m.Model
		}
		if g := m.GenerateContentConfig; g != nil {
			if g.Temperature != nil {
				def.Temperature = ptr(*g.Temperature)
			}
			if g.TopP != nil {
				def.TopP = ptr(*g.TopP)
			}
			if t := g.ThinkingConfig; t != nil {
				// A deep merge: what the override leaves unset stays.
				th := Thinking{}
				if def.Thinking != nil {
					th = *def.Thinking
				}
				if t.IncludeThoughts != nil {
					th.IncludeThoughts = *t.IncludeThoughts
				}
				if t.ThinkingBudget != nil {
					th.Budget = ptr(*t.ThinkingBudget)
				}
				if t.ThinkingLevel != "" {
					th.Level = t.ThinkingLevel
				}
				def.Thinking = &th
			}
		}
	}
	if o.Tools != nil {
		def.Tools = slices.Clone(o.Tools)
	}
	return def
}

// hydrate fills an extension's variables into def's strings.
func hydrate(def Definition, h func(string) string) Definition {
	for _, s := range []*string{&def.Name, &def.DisplayName, &def.Description, &def.SystemPrompt, &def.Query, &def.Model, &def.CardURL, &def.CardJSON} {
		*s = h(*s)
	}
	def.Input.Name, def.Input.Description = h(def.Input.Name), h(def.Input.Description)
	if def.Tools != nil {
		tools := make([]string, len(def.Tools))
		for i, t := range def.Tools {
			tools[i] = h(t)
		}
		def.Tools = tools
	}
	if def.Auth != nil {
		a := *def.Auth
		for _, s := range []*string{&a.Type, &a.Key, &a.Name, &a.Scheme, &a.Token, &a.Username, &a.Password, &a.Value} {
			*s = h(*s)
		}
		a.Scopes = slices.Clone(a.Scopes)
		for i := range a.Scopes {
			a.Scopes[i] = h(a.Scopes[i])
		}
		def.Auth = &a
	}
	return def
}
