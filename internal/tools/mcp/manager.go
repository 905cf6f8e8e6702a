package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// DefaultTimeout bounds each request to a server (start-up, listing, a
// call) when its settings give no timeout, as in Gemini CLI.
const DefaultTimeout = 10 * time.Minute

// Config says which servers to start and how.
type Config struct {
	Servers map[string]settings.MCPServer
	// Disabled are the servers of Servers the user turned off (/mcp
	// disable, Gemini CLI's enablement file), by alias: listed, never
	// started.
	Disabled map[string]bool
	// Dir is where stdio servers run when they name no cwd, and what a
	// relative cwd is resolved against: the workspace root.
	Dir string
	// Reserved are the names the registry's own tools already use.
	Reserved []string
	Logger   *zap.Logger
	// Version is gemini-ls's, sent in the MCP handshake.
	Version string
	// TokenFile is where OAuth tokens are kept (Gemini CLI's
	// ~/.gemini/mcp-oauth-tokens.json); "" keeps none, and no sign-in can
	// happen.
	TokenFile string
	// ShowAuthURL tells the user to open authURL to sign in to server; it
	// must not block. Without it the URL is logged as a warning.
	ShowAuthURL func(server, authURL string)
	// SignInTimeout bounds the wait for a user to sign in;
	// oauth.DefaultTimeout when 0.
	SignInTimeout time.Duration
	// Door starts the stdio servers: the session's, which runs them in
	// its sandbox where tools.sandboxHooksAndMCPServers asks; nil: no
	// sandbox.
	Door *spawn.Door
	// Redaction is security.environmentVariableRedaction: its allowed and
	// blocked names count for stdio servers, always redacted.
	Redaction envredact.Policy
	// Transport carries the requests to remote servers;
	// http.DefaultTransport (the environment's proxy) when nil.
	Transport http.RoundTripper
}

// Manager runs the configured servers and offers their tools. It is a
// tools.Source.
type Manager struct {
	cfg    Config
	tokens *oauth.Store // nil without Config.TokenFile
	log    *zap.Logger
	ctx    context.Context // ends every server
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per server goroutine
	ready  sync.WaitGroup // one per server still starting
	// reloading is held by Reload and restart, one at a time.
	reloading sync.Mutex

	mu sync.Mutex
	// servers and disabled are Config's, as the last Reload changed them.
	servers  map[string]settings.MCPServer
	disabled map[string]bool
	closed   bool            // no server starts any more
	names    map[string]bool // every tool name given, reserved ones included
	tools    []*tool         // the live servers' tools, in the order listed
	// live are the running servers' sessions, by alias, for their prompts.
	live map[string]live
	// running is each server's current incarnation, by alias.
	running map[string]*server
	// given are the names given, by alias and the server's tool name: a
	// server restarted after a sign-in gets its names back.
	given map[[2]string]string
	// status is each server's, by alias, for Servers.
	status  map[string]ServerStatus
	aliases []string // sorted

	// resourceTools are the tools over the servers' resources, offered
	// while a running server has any, as Gemini CLI 0.61 offers them.
	resourceTools []tools.Tool
}

// ServerState is where a server stands.
type ServerState string

const (
	StateStarting ServerState = "starting"
	StateReady    ServerState = "ready"
	// StateFailed: the server did not start, or did not list its tools,
	// or broke a bound (a remote server's message over maxMessage) and
	// was disconnected; its tools were withdrawn.
	StateFailed ServerState = "failed"
	// StateStopped: the server ran and died; its tools were withdrawn.
	StateStopped ServerState = "stopped"
	// StateUnauthenticated: the server requires a sign-in (/mcp auth).
	StateUnauthenticated ServerState = "unauthenticated"
	// StateDisabled: the user turned the server off; it is not started.
	StateDisabled ServerState = "disabled"
)

// ServerStatus is what a user is shown of a server.
type ServerStatus struct {
	Name  string
	State ServerState
	// Tools is how many tools it offers (ready), or offered.
	Tools int
	// Error says why a failed or stopped server is not running, with what
	// its process said.
	Error string
}

// Servers returns every configured server's status, by name.
func (m *Manager) Servers() []ServerStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ServerStatus, 0, len(m.aliases))
	for _, alias := range m.aliases {
		out = append(out, m.status[alias])
	}
	return out
}

// setStatus records where s stands now.
func (m *Manager) setStatus(s *server, state ServerState, tools int, err string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status[s.alias] = ServerStatus{Name: s.alias, State: state, Tools: tools, Error: err}
}

// Start starts every server in the background and returns at once.
func Start(cfg Config) *Manager {
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{cfg: cfg, log: log, ctx: ctx, cancel: cancel, names: map[string]bool{}, status: map[string]ServerStatus{},
		live: map[string]live{}, running: map[string]*server{}, given: map[[2]string]string{}}
	if cfg.TokenFile != "" {
		m.tokens = oauth.NewStore(cfg.TokenFile)
	}
	m.resourceTools = []tools.Tool{listResources(m), readResource(m)}
	for _, name := range cfg.Reserved {
		m.names[name] = true
	}
	for _, alias := range m.configure(cfg.Servers, cfg.Disabled) {
		m.launch(alias, m.ready.Done)
	}
	return m
}

// configure makes servers and disabled the configuration, every server
// starting but the disabled ones, and returns those to start, counted in
// m.ready; the caller has ended those running before, and launches them.
func (m *Manager) configure(servers map[string]settings.MCPServer, disabled map[string]bool) []string {
	// Started in alias order, for readable logs. A contested name goes to
	// the server whose listing arrives first.
	aliases := slices.Sorted(maps.Keys(servers))
	var starting []string
	m.mu.Lock()
	m.servers, m.disabled, m.aliases = servers, disabled, aliases
	m.running = map[string]*server{}
	// Every status is there before any server's goroutine changes one.
	m.status = map[string]ServerStatus{}
	for _, alias := range aliases {
		state := StateStarting
		if disabled[alias] {
			state = StateDisabled
		} else {
			starting = append(starting, alias)
		}
		m.status[alias] = ServerStatus{Name: alias, State: state}
	}
	m.ready.Add(len(starting))
	m.mu.Unlock()
	return starting
}

// Reload ends every running server and starts servers anew, those of
// disabled left off, as Gemini CLI's /mcp reload restarts them all. It
// returns once each has listed its tools or failed, or when ctx ends
// (they go on starting). Tool names given before are kept: a server's
// tool comes back under its name.
func (m *Manager) Reload(ctx context.Context, servers map[string]settings.MCPServer, disabled map[string]bool) error {
	m.reloading.Lock()
	defer m.reloading.Unlock()
	m.mu.Lock()
	old := slices.Collect(maps.Values(m.running))
	m.mu.Unlock()
	for _, s := range old {
		s.stop()
		<-s.ended
	}
	starting := m.configure(servers, disabled)
	var pending sync.WaitGroup
	pending.Add(len(starting))
	for _, alias := range starting {
		m.launch(alias, func() {
			pending.Done()
			m.ready.Done()
		})
	}
	return wait(ctx, &pending)
}

// launch starts a new incarnation of the server alias; started is called
// once it has listed its tools or failed.
func (m *Manager) launch(alias string, started func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &server{alias: alias, cfg: serverConfig(m.servers[alias]), dir: m.cfg.Dir, version: m.cfg.Version, door: m.cfg.Door, redaction: m.cfg.Redaction,
		transport: cmp.Or[http.RoundTripper](m.cfg.Transport, http.DefaultTransport), tokens: m.tokens, signInTimeout: m.cfg.SignInTimeout, gone: make(chan struct{}), ended: make(chan struct{}),
		broken: make(chan struct{}), relisting: newRelisting(), resourcesChanged: make(chan struct{}, 1)}
	s.showAuthURL = func(authURL string) { m.showAuthURL(alias, authURL) }
	s.ctx, s.stop = context.WithCancel(m.ctx)
	if m.closed {
		s.stop()
		started()
		return
	}
	m.running[alias] = s
	m.wg.Add(1)
	go m.run(s, started)
}

// Authenticate signs in to the remote server alias (Config.ShowAuthURL
// tells the user where), then restarts the server with its new token, and
// returns once it has listed its tools (nil) or failed again (why).
func (m *Manager) Authenticate(ctx context.Context, alias string) error {
	m.mu.Lock()
	cfg, ok := m.servers[alias]
	disabled := m.disabled[alias]
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("MCP server '%s' not found", alias)
	}
	if disabled {
		return fmt.Errorf("MCP server '%s' is disabled: /mcp enable %s first", alias, alias)
	}
	s := &server{alias: alias, cfg: serverConfig(cfg), tokens: m.tokens, signInTimeout: m.cfg.SignInTimeout}
	if err := s.signIn(ctx, func(authURL string) { m.showAuthURL(alias, authURL) }); err != nil {
		return fmt.Errorf("signing in to MCP server %q: %w", alias, err)
	}
	return m.restart(ctx, alias)
}

// OAuthServers are the servers that sign in with OAuth, as Gemini CLI's
// /mcp auth lists them: those whose oauth block is enabled, and those that
// asked for a sign-in.
func (m *Manager) OAuthServers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, alias := range m.aliases {
		if c := m.servers[alias]; c.OAuth != nil && c.OAuth.Enabled || m.status[alias].State == StateUnauthenticated {
			out = append(out, alias)
		}
	}
	return out
}

// restart ends the server's current incarnation and starts a new one.
func (m *Manager) restart(ctx context.Context, alias string) error {
	m.reloading.Lock()
	defer m.reloading.Unlock()
	m.mu.Lock()
	old := m.running[alias]
	m.mu.Unlock()
	if old != nil {
		old.stop()
		<-old.ended
	}
	m.mu.Lock()
	m.status[alias] = ServerStatus{Name: alias, State: StateStarting}
	m.mu.Unlock()
	started := make(chan struct{})
	m.launch(alias, func() { close(started) })
	select {
	case <-started:
	case <-ctx.Done():
		return ctx.Err()
	}
	m.mu.Lock()
	st := m.status[alias]
	m.mu.Unlock()
	if st.State != StateReady {
		return fmt.Errorf("MCP server %q did not start after signing in: %s", alias, st.Error)
	}
	return nil
}

// showAuthURL tells the user where to sign in to server.
func (m *Manager) showAuthURL(server, authURL string) {
	if m.cfg.ShowAuthURL != nil {
		m.cfg.ShowAuthURL(server, authURL)
		return
	}
	m.log.Warn("MCP server "+server+" requires authentication: open this URL in your browser to sign in: "+authURL,
		zap.String("server", server))
}

// Tools returns the tools of the servers running now, and those over
// their resources while they have any.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]tools.Tool, len(m.tools), len(m.tools)+len(m.resourceTools))
	for i, t := range m.tools {
		out[i] = t
	}
	for _, l := range m.live {
		if len(l.resources) > 0 {
			return append(out, m.resourceTools...)
		}
	}
	return out
}

// Wait returns once every server has listed its tools or failed, or when
// ctx ends.
func (m *Manager) Wait(ctx context.Context) error { return wait(ctx, &m.ready) }

// wait returns once wg's count is zero, or when ctx ends.
func wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends every server and waits until their processes are gone.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
}

// run is one server's life: connect, list, serve until it dies or the
// manager closes.
func (m *Manager) run(s *server, started func()) {
	defer m.wg.Done()
	defer close(s.ended)
	once := sync.OnceFunc(started)
	defer once()
	defer s.kill() // whatever happened, no process of it outlives this

	session, listed, err := s.start(s.ctx)
	if err != nil {
		if s.ctx.Err() == nil {
			state := StateFailed
			if errors.As(err, new(*authError)) {
				state = StateUnauthenticated
			}
			m.setStatus(s, state, 0, s.explain(err))
			m.log.Warn("MCP server "+s.alias+" failed to start; its tools are unavailable",
				zap.String("server", s.alias), zap.String("error", s.explain(err)), zap.Bool(dialog.UserNoticeKey, true))
		}
		return
	}
	resources, err := s.resources(s.ctx, session)
	if err != nil {
		m.log.Warn("MCP server "+s.alias+"'s resources could not be listed; its tools are offered", zap.String("server", s.alias), zap.String("error", s.explain(err)))
	}
	m.add(s, session, listed.tools, resources)
	once()
	stop := make(chan struct{})
	defer close(stop)
	m.wg.Add(2)
	go m.relist(s, session, listed.ttl, stop)
	go m.relistResources(s, session, s.resourcesChanged, stop)

	// The session ends when the server dies, or when Close (or a restart)
	// cancels s.ctx, or when the server breaks a bound: the SDK may carry
	// on after that (a call whose stream was cut is only that call's
	// failure), so the session is ended here.
	stopped := make(chan error, 1)
	go func() { stopped <- session.Wait() }()
	select {
	case <-s.ctx.Done():
		_ = session.Close()
		<-stopped
		m.withdraw(s, StateStopped, "")
	case <-s.broken:
		// Withdrawn before the session is closed: a call that failed
		// waits for the withdrawal, and a server that broke a bound may
		// take its time over the close.
		m.lose(s, StateFailed, s.breach())
		_ = session.Close()
		<-stopped
	case err := <-stopped:
		_ = session.Close() // reaps the process, for explain's exit status
		if err == nil {
			err = errors.New("the connection closed")
		}
		state := StateStopped
		if s.breach() != nil {
			state = StateFailed
		}
		m.lose(s, state, err)
	}
}

// lose reports why s ended in state (unless the manager is closing) and
// withdraws its tools. The warning comes first: a call that failed with
// the server waits for the withdrawal, and the user should have the
// warning by the time the model hears of the failure.
func (m *Manager) lose(s *server, state ServerState, err error) {
	why := s.explain(err)
	if m.ctx.Err() == nil {
		m.log.Warn("MCP server "+s.alias+" "+string(state)+"; its tools were withdrawn",
			zap.String("server", s.alias), zap.String("error", why))
	}
	m.withdraw(s, state, why)
}

// add names and offers the tools s listed, and keeps its resources.
func (m *Manager) add(s *server, session *sdk.ClientSession, listed []*sdk.Tool, resources []Resource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	count := m.offer(s, session, listed)
	m.status[s.alias] = ServerStatus{Name: s.alias, State: StateReady, Tools: count}
	m.live[s.alias] = live{server: s, session: session, resources: resources}
	m.log.Info("MCP server ready", zap.String("server", s.alias), zap.Int("tools", count))
}

// replace offers the tools s listed again in place of those it offered,
// unless s has ended meanwhile.
func (m *Manager) replace(s *server, session *sdk.ClientSession, listed []*sdk.Tool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.live[s.alias]; !ok || l.server != s {
		return
	}
	m.tools = slices.DeleteFunc(m.tools, func(t *tool) bool { return t.server == s })
	count := m.offer(s, session, listed)
	m.status[s.alias] = ServerStatus{Name: s.alias, State: StateReady, Tools: count}
	m.log.Info("MCP server's tools listed again, as it said they changed or their listing ran out", zap.String("server", s.alias), zap.Int("tools", count))
}

// offer names and offers the tools s listed, and returns how many; m.mu
// is held.
func (m *Manager) offer(s *server, session *sdk.ClientSession, listed []*sdk.Tool) int {
	count := 0
	for _, remote := range listed {
		if !s.cfg.enabled(remote.Name) {
			continue
		}
		key := [2]string{s.alias, remote.Name}
		name, ok := m.given[key]
		if !ok {
			name = qualifiedName(s.alias, remote.Name)
			if m.names[name] {
				m.log.Warn("MCP tool "+remote.Name+" of server "+s.alias+" skipped: its name "+name+" is taken",
					zap.String("server", s.alias), zap.String("tool", remote.Name), zap.String("name", name))
				continue
			}
			m.names[name] = true
			m.given[key] = name
		}
		m.tools = append(m.tools, newTool(s, session, name, remote))
		count++
	}
	return count
}

// withdraw removes the tools of s. Their names stay taken, so that a name
// never comes to mean another server's tool in the same run. why, unless
// "" (the manager is closing), says why s is now in state.
func (m *Manager) withdraw(s *server, state ServerState, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = slices.DeleteFunc(m.tools, func(t *tool) bool { return t.server == s })
	delete(m.live, s.alias)
	if why != "" {
		m.status[s.alias] = ServerStatus{Name: s.alias, State: state, Tools: m.status[s.alias].Tools, Error: why}
	}
	s.markDead()
}

// timeout is the bound of each request to the server.
func (c serverConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout) * time.Millisecond
	}
	return DefaultTimeout
}

// serverConfig adds behaviour to the settings entry.
type serverConfig settings.MCPServer

// enabled applies includeTools and excludeTools as Gemini CLI does:
// exclusion wins; an include entry is the name or "name(...)".
func (c serverConfig) enabled(name string) bool {
	if slices.Contains(c.ExcludeTools, name) {
		return false
	}
	if c.IncludeTools == nil {
		return true
	}
	return slices.ContainsFunc(c.IncludeTools, func(inc string) bool {
		return inc == name || len(inc) > len(name) && inc[:len(name)+1] == name+"("
	})
}
