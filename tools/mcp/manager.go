package mcp

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
)

// DefaultTimeout bounds each request to a server (start-up, listing, a
// call) when its settings give no timeout, as in Gemini CLI.
const DefaultTimeout = 10 * time.Minute

// Config says which servers to start and how.
type Config struct {
	Servers map[string]settings.MCPServer
	// Dir is where stdio servers run when they name no cwd, and what a
	// relative cwd is resolved against: the workspace root.
	Dir string
	// Reserved are the names the registry's own tools already use.
	Reserved []string
	Logger   *zap.Logger
	// Version is gemini-ls's, sent in the MCP handshake.
	Version string
}

// Manager runs the configured servers and offers their tools. It is a
// tools.Source.
type Manager struct {
	log    *zap.Logger
	ctx    context.Context // ends every server
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per server goroutine
	ready  sync.WaitGroup // one per server still starting

	mu    sync.Mutex
	names map[string]bool // every tool name given, reserved ones included
	tools []*tool         // the live servers' tools, in the order listed
	// live are the running servers' sessions, by alias, for their prompts.
	live map[string]live
	// status is each server's, by alias, for Servers.
	status  map[string]ServerStatus
	aliases []string // sorted
}

// ServerState is where a server stands.
type ServerState string

const (
	StateStarting ServerState = "starting"
	StateReady    ServerState = "ready"
	// StateFailed: the server did not start, or did not list its tools.
	StateFailed ServerState = "failed"
	// StateStopped: the server ran and died; its tools were withdrawn.
	StateStopped ServerState = "stopped"
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
	m := &Manager{log: log, ctx: ctx, cancel: cancel, names: map[string]bool{}, status: map[string]ServerStatus{}, live: map[string]live{}}
	for _, name := range cfg.Reserved {
		m.names[name] = true
	}
	// Started in alias order, for readable logs. A contested name goes to
	// the server whose listing arrives first.
	aliases := make([]string, 0, len(cfg.Servers))
	for alias := range cfg.Servers {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases)
	m.aliases = aliases
	// Every status is there before any server's goroutine changes one.
	for _, alias := range aliases {
		m.status[alias] = ServerStatus{Name: alias, State: StateStarting}
	}
	for _, alias := range aliases {
		s := &server{alias: alias, cfg: serverConfig(cfg.Servers[alias]), dir: cfg.Dir, version: cfg.Version, gone: make(chan struct{})}
		m.wg.Add(1)
		m.ready.Add(1)
		go m.run(s)
	}
	return m
}

// Tools returns the tools of the servers running now.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]tools.Tool, len(m.tools))
	for i, t := range m.tools {
		out[i] = t
	}
	return out
}

// Wait returns once every server has listed its tools or failed, or when
// ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		m.ready.Wait()
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
	m.cancel()
	m.wg.Wait()
}

// run is one server's life: connect, list, serve until it dies or the
// manager closes.
func (m *Manager) run(s *server) {
	defer m.wg.Done()
	started := false
	defer func() {
		if !started {
			m.ready.Done()
		}
	}()
	defer s.kill() // whatever happened, no process of it outlives this

	session, listed, err := s.start(m.ctx)
	if err != nil {
		if m.ctx.Err() == nil {
			m.setStatus(s, StateFailed, 0, s.explain(err))
			m.log.Warn("MCP server failed to start; its tools are unavailable",
				zap.String("server", s.alias), zap.String("error", s.explain(err)))
		}
		return
	}
	m.add(s, session, listed)
	started = true
	m.ready.Done()

	// The session ends when the server dies, or when Close cancels m.ctx.
	stopped := make(chan error, 1)
	go func() { stopped <- session.Wait() }()
	select {
	case <-m.ctx.Done():
		_ = session.Close()
		<-stopped
		m.withdraw(s, "")
	case err := <-stopped:
		_ = session.Close() // reaps the process, for explain's exit status
		if err == nil {
			err = errors.New("the connection closed")
		}
		why := s.explain(err)
		if m.ctx.Err() == nil {
			// Before withdrawing: a call that failed with the server
			// waits for the withdrawal, and the user should have the
			// warning by the time the model hears of the failure.
			m.log.Warn("MCP server stopped; its tools were withdrawn",
				zap.String("server", s.alias), zap.String("error", why))
		}
		m.withdraw(s, why)
	}
}

// add names and offers the tools s listed.
func (m *Manager) add(s *server, session *sdk.ClientSession, listed []*sdk.Tool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	count := 0
	for _, remote := range listed {
		if !s.cfg.enabled(remote.Name) {
			continue
		}
		name := validName(remote.Name)
		if m.names[name] {
			name = validName(s.alias + "__" + remote.Name)
		}
		if m.names[name] {
			m.log.Warn("MCP tool skipped: its name is taken",
				zap.String("server", s.alias), zap.String("tool", remote.Name), zap.String("name", name))
			continue
		}
		m.names[name] = true
		m.tools = append(m.tools, &tool{server: s, session: session, name: name, remote: remote})
		count++
	}
	m.status[s.alias] = ServerStatus{Name: s.alias, State: StateReady, Tools: count}
	m.live[s.alias] = live{server: s, session: session}
	m.log.Info("MCP server ready", zap.String("server", s.alias), zap.Int("tools", count))
}

// withdraw removes the tools of s. Their names stay taken, so that a name
// never comes to mean another server's tool in the same run. why, unless
// "" (the manager is closing), says why s stopped.
func (m *Manager) withdraw(s *server, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = slices.DeleteFunc(m.tools, func(t *tool) bool { return t.server == s })
	delete(m.live, s.alias)
	if why != "" {
		m.status[s.alias] = ServerStatus{Name: s.alias, State: StateStopped, Tools: m.status[s.alias].Tools, Error: why}
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
