package toolset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/discovered"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/enablement"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
)

// Config is what a session's tools are made of.
type Config struct {
	// Tools configures the built-in tools; Build adds what the settings
	// decide (DisableLLMCorrection).
	Tools    tools.Options
	Settings settings.Settings
	// Getenv finds the user's directory: the MCP servers' tokens and
	// enablement file.
	Getenv  settings.Getenv
	Version string
	// Logger receives the MCP servers' warnings (which the LSP mirrors to
	// the editor).
	Logger *zap.Logger
	// Warn tells the user that part of the tools could not be set up.
	Warn func(what string, err error)
	// ShowAuthURL is mcp.Config's.
	ShowAuthURL func(server, authURL string)
	// NotTrusted is why the workspace is not a trusted folder
	// (settings.Trust), nil when it is. While it is set, as in Gemini CLI,
	// no MCP server starts, whichever settings name it.
	NotTrusted error
	// MCPSessionDisabled are the MCP servers turned off for the session
	// (/mcp disable --session) by the set this one replaces.
	MCPSessionDisabled []string
}

// Set is a session's tools and what runs behind some of them.
type Set struct {
	Registry *tools.Registry
	fetcher  *web.Fetcher // web_fetch's, closed with the set
	// keep is what tools.core and tools.exclude keep (Offers).
	keep      filter
	discovery *discovery   // nil without a discovery command
	mcp       *mcp.Manager // nil in an untrusted folder
	redact    func(string) string
	// notTrusted is Config.NotTrusted.
	notTrusted error
	// enablement is the user's MCP enablement file; "" without a user
	// directory.
	enablement enablement.File
	warn       func(what string, err error)

	mu sync.Mutex
	// sessionDisabled are the servers turned off for this session (/mcp
	// disable --session), by normalized name.
	sessionDisabled map[string]bool
}

// Build makes the tools: the built-in ones tools.core keeps, the discovered
// ones and the MCP servers', less those tools.exclude names (filter.go).
// Neither of the last two holds Build up: the discovery command
// runs once, in the first root, in the background, and the first lookup of
// the tools waits for it; the MCP servers start in the background and join
// the registry as each lists its tools (only in a trusted folder,
// Config.NotTrusted). ctx's values are kept, not its end:
// what Build starts lasts until Close.
func Build(ctx context.Context, c Config) *Set {
	opts := c.Tools
	opts.DisableLLMCorrection = c.Settings.Tools.DisableLLMCorrection
	// Detected once: the shell tool runs its commands in it, and
	// tools.core's restriction reads them in its language.
	opts.Shell.Shell = opts.Shell.Shell.OrLocal()
	root := opts.Workspace.Roots()[0]
	// The set's own: closed with it, so that a closed session's
	// connections to the web do not outlive it.
	opts.Fetcher = web.NewFetcher(opts.Web)
	all := tools.Builtin(opts)
	var builtin []string // reserved for the built-in tools, even those left out
	for _, t := range all {
		builtin = append(builtin, t.Name())
	}
	keep := newFilter(c.Settings.Tools, opts.Shell.Shell.Kind)
	for _, name := range leftOutBy(c.Settings) {
		keep.exclude[name] = true
	}
	set := &Set{Registry: tools.NewRegistry(keep.builtin(all)...), fetcher: opts.Fetcher, keep: keep, redact: c.Settings.Redact, notTrusted: c.NotTrusted, sessionDisabled: map[string]bool{}}
	// What the settings' variables held stays out of every message.
	warn := func(what string, err error) {
		if c.Warn != nil {
			c.Warn(what, errors.New(c.Settings.Redact(err.Error())))
		}
	}
	set.warn = warn
	for _, name := range c.MCPSessionDisabled {
		set.sessionDisabled[enablement.Normalize(name)] = true
	}
	if c.Settings.Tools.DiscoveryCommand != "" {
		set.discovery = startDiscovery(ctx, discovered.Config{
			DiscoveryCommand: c.Settings.Tools.DiscoveryCommand,
			CallCommand:      c.Settings.Tools.CallCommand,
			Dir:              root,
			Door:             c.Tools.Shell.Door,
			Redaction:        c.Tools.Shell.Redaction,
		}, warn)
		set.Registry.AddSource(filteredSource{Source: set.discovery, filter: keep, discovered: true})
	}
	switch {
	case len(c.Settings.MCPServers) > 0 && c.NotTrusted != nil:
		warn("untrusted folder", fmt.Errorf("no MCP server was started: as in Gemini CLI, MCP servers connect only in a trusted folder: %w", c.NotTrusted))
	case c.NotTrusted == nil:
		// Started without servers too: /mcp reload may bring some.
		logger := c.Logger
		if logger == nil {
			logger = zap.NewNop()
		}
		logger = logger.WithOptions(zap.WrapCore(func(core zapcore.Core) zapcore.Core { return redactingCore{core, c.Settings.Redact} }))
		var tokenFile string
		if dir := settings.UserDir(c.Getenv); dir != "" {
			tokenFile = filepath.Join(dir, oauth.FileName)
			set.enablement = enablement.In(dir)
		}
		set.mcp = mcp.Start(mcp.Config{Servers: c.Settings.MCPServers, Disabled: set.disabled(c.Settings.MCPServers),
			Dir: root, Reserved: builtin, Logger: logger, Version: c.Version, TokenFile: tokenFile, ShowAuthURL: c.ShowAuthURL,
			Door: c.Tools.Shell.Door, Redaction: c.Tools.Shell.Redaction})
		set.Registry.AddSource(filteredSource{Source: set.mcp, filter: keep})
	}
	return set
}

// leftOutBy are the built-in tools Gemini CLI 0.61 does not offer with
// settings s: update_topic without narration, write_todos when
// useWriteTodos is false or the task tracker, which replaces it, is on
// (0.61's Config: useWriteTodos).
func leftOutBy(s settings.Settings) []string {
	var out []string
	if !s.TopicNarration() {
		out = append(out, tools.UpdateTopicName)
	}
	if use := s.UseWriteTodos; use != nil && !*use || s.Experimental.TaskTracker {
		out = append(out, tools.WriteTodosName)
	}
	return out
}

// Offers reports whether tools.core and tools.exclude keep t, a built-in
// tool made outside the registry (invoke_agent, which the agent adds
// while subagents are on), as Gemini CLI 0.61 registers and excludes it
// by the same settings. It is safe on a nil Set.
func (s *Set) Offers(t tools.Tool) bool {
	return s == nil || len(s.keep.builtin([]tools.Tool{t})) > 0
}

// WaitForServers waits until the discovery command has ended and every
// MCP server has listed its tools or failed (each bounded by its timeout),
// or ctx ends: for a single headless prompt, which should see them all, as
// in Gemini CLI.
func (s *Set) WaitForServers(ctx context.Context) error {
	if s.discovery != nil {
		select {
		case <-s.discovery.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.mcp == nil {
		return nil
	}
	return s.mcp.Wait(ctx)
}

// MCPServers is the status of each MCP server, by name; none without
// servers. It is safe on a nil Set.
func (s *Set) MCPServers() []mcp.ServerStatus {
	if s == nil || s.mcp == nil {
		return nil
	}
	servers := s.mcp.Servers()
	if len(servers) == 0 {
		return nil
	}
	for i := range servers {
		servers[i].Error = s.redact(servers[i].Error)
	}
	return servers
}

// ReloadMCP ends the MCP servers and starts servers anew, as Gemini CLI's
// /mcp reload restarts them, less those the user's enablement file and
// this session turn off; it returns once each has listed its tools or
// failed, or when ctx ends. The next model request offers their tools.
// In an untrusted folder it starts none and says why.
func (s *Set) ReloadMCP(ctx context.Context, servers map[string]settings.MCPServer) error {
	if s == nil {
		return errors.New("the MCP servers cannot be reloaded: the agent was not built")
	}
	if s.mcp == nil {
		return fmt.Errorf("no MCP server was started: as in Gemini CLI, MCP servers connect only in a trusted folder: %w", s.notTrusted)
	}
	return s.mcp.Reload(ctx, servers, s.disabled(servers))
}

// MCPEnablement is the user's MCP enablement file, and whether there is
// one (there is no user directory otherwise).
func (s *Set) MCPEnablement() (enablement.File, bool) {
	if s == nil || s.enablement.Path() == "" {
		return enablement.File{}, false
	}
	return s.enablement, true
}

// SetMCPSessionDisabled turns the MCP server name off, or back on, for
// this session alone (/mcp disable --session); ReloadMCP applies it.
func (s *Set) SetMCPSessionDisabled(name string, disabled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if disabled {
		s.sessionDisabled[enablement.Normalize(name)] = true
	} else {
		delete(s.sessionDisabled, enablement.Normalize(name))
	}
}

// MCPSessionDisabled reports whether the MCP server name is turned off
// for this session. It is safe on a nil Set.
func (s *Set) MCPSessionDisabled(name string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionDisabled[enablement.Normalize(name)]
}

// MCPSessionDisabledNames are the MCP servers turned off for this
// session, normalized, for the set that replaces this one. It is safe on
// a nil Set.
func (s *Set) MCPSessionDisabledNames() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.sessionDisabled))
}

// disabled are the servers of servers turned off, by alias: in the
// enablement file (one that cannot be read is told, and turns none off)
// or for this session.
func (s *Set) disabled(servers map[string]settings.MCPServer) map[string]bool {
	var inFile map[string]bool
	if s.enablement.Path() != "" {
		var err error
		if inFile, err = s.enablement.Disabled(); err != nil {
			s.warn("no MCP server is disabled", err)
		}
	}
	out := map[string]bool{}
	for alias := range servers {
		if n := enablement.Normalize(alias); inFile[n] || s.MCPSessionDisabled(alias) {
			out[alias] = true
		}
	}
	return out
}

// MCPOAuthServers are the MCP servers that sign in with OAuth; none
// without servers. It is safe on a nil Set.
func (s *Set) MCPOAuthServers() []string {
	if s == nil || s.mcp == nil {
		return nil
	}
	return s.mcp.OAuthServers()
}

// AuthenticateMCP signs in to the MCP server name and restarts it.
func (s *Set) AuthenticateMCP(ctx context.Context, name string) error {
	if s == nil || s.mcp == nil {
		return fmt.Errorf("MCP server '%s' not found", name)
	}
	if err := s.mcp.Authenticate(ctx, name); err != nil {
		return errors.New(s.redact(err.Error()))
	}
	return nil
}

// MCPPrompts lists the prompts of the MCP servers running now; none
// without servers. It is safe on a nil Set.
func (s *Set) MCPPrompts(ctx context.Context) ([]mcp.Prompt, []error) {
	if s == nil || s.mcp == nil {
		return nil, nil
	}
	return s.mcp.Prompts(ctx)
}

// MCPPrompt has an MCP server fill in its prompt name with args.
func (s *Set) MCPPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	if s == nil || s.mcp == nil {
		return "", fmt.Errorf("MCP server %s is not running", server)
	}
	return s.mcp.GetPrompt(ctx, server, name, args)
}

// FindResource is the MCP resource identifier names, SERVER:URI, among
// those the running servers list; ok false for none. It is safe on a nil
// Set.
func (s *Set) FindResource(identifier string) (mcp.Resource, bool) {
	if s == nil || s.mcp == nil {
		return mcp.Resource{}, false
	}
	return s.mcp.FindResource(identifier)
}

// ReadResource reads the MCP resource identifier names, SERVER:URI, from
// its server (mcp.Manager.ReadResource).
func (s *Set) ReadResource(ctx context.Context, identifier string) (mcp.Resource, []mcp.ResourceContent, error) {
	if s == nil || s.mcp == nil {
		return mcp.Resource{}, nil, mcp.ErrNoResource
	}
	found, contents, err := s.mcp.ReadResource(ctx, identifier)
	if err != nil && !errors.Is(err, mcp.ErrNoResource) {
		err = errors.New(s.redact(err.Error()))
	}
	return found, contents, err
}

// Close ends the discovery command, if still running, and every MCP server
// process, and lets go of web_fetch's connections. It is safe on a nil
// Set.
func (s *Set) Close() {
	if s == nil {
		return
	}
	s.fetcher.Close()
	if s.discovery != nil {
		s.discovery.cancel()
	}
	if s.mcp != nil {
		s.mcp.Close()
	}
}

// discovery runs the discovery command in the background, so that
// initialize does not wait for it. Its tools are offered once it has ended:
// the first lookup waits (within the command's own time bound), so the
// first prompt's request declares them, as Gemini CLI's does.
type discovery struct {
	done   chan struct{} // closed when the command has ended
	found  []tools.Tool  // written before done is closed
	cancel context.CancelFunc
}

func startDiscovery(ctx context.Context, cfg discovered.Config, warn func(string, error)) *discovery {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d := &discovery{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(d.done)
		found, err := discovered.Discover(ctx, cfg)
		if err != nil && warn != nil {
			warn("tool discovery failed", err)
		}
		d.found = found
	}()
	return d
}

// Tools waits for the command to end, then offers what it found.
func (d *discovery) Tools() []tools.Tool {
	<-d.done
	return d.found
}

// redactingCore is a log core that hides what the settings' variables
// held (settings.Settings.Redact) in messages and in string and error
// fields: the MCP servers' logs name their commands, URLs and what the
// servers said.
type redactingCore struct {
	zapcore.Core
	redact func(string) string
}

func (c redactingCore) With(fields []zapcore.Field) zapcore.Core {
	return redactingCore{c.Core.With(c.fields(fields)), c.redact}
}

func (c redactingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c redactingCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	e.Message = c.redact(e.Message)
	return c.Core.Write(e, c.fields(fields))
}

func (c redactingCore) fields(fields []zapcore.Field) []zapcore.Field {
	out := make([]zapcore.Field, len(fields))
	for i, f := range fields {
		switch f.Type {
		case zapcore.StringType:
			f.String = c.redact(f.String)
		case zapcore.ErrorType:
			if err, ok := f.Interface.(error); ok {
				f = zap.String(f.Key, c.redact(err.Error()))
			}
		}
		out[i] = f
	}
	return out
}
