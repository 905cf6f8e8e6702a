package langclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const (
	// defaultIndexWait bounds the wait for a server to finish indexing
	// before a request (gopls loading a big module takes seconds).
	defaultIndexWait = 20 * time.Second
	// defaultProgressStale is how long work in progress the server says
	// nothing more of holds questions (server.waitIdle): long enough for a
	// silent load of a big project, short enough that a server which
	// never ends its work fails a minute of questions, not all of them.
	defaultProgressStale = time.Minute
	// defaultDiagnosticsWait bounds the wait for a server to publish the
	// diagnostics of a text it was just sent.
	defaultDiagnosticsWait = 10 * time.Second
	// startTimeout bounds a server's start and initialize handshake.
	startTimeout = 2 * time.Minute
	// closeTimeout bounds each server's shutdown at Close.
	closeTimeout = 3 * time.Second
	// maxSyncedFile caps a file sent to a server from the workspace.
	maxSyncedFile = 16 << 20
)

// Manager starts and asks the language servers of a session's workspace.
// It is a codeintel.Provider and a dialog.DiagnosticsReader; its servers
// live until Close.
type Manager struct {
	ws    *workspace.Workspace
	specs []serverSpec
	log   *zap.Logger
	// door starts the servers: in the session's sandbox, and only with
	// the user's yes where a server may run the workspace's code.
	door *spawn.Door

	// life ends the servers' processes: it ends at Close.
	life     context.Context
	stopLife context.CancelFunc

	// Bounds, lowered by tests.
	indexWait, progressStale, diagnosticsWait, closeWait time.Duration
	maxMessage                                           int

	availableOnce sync.Once
	available     bool

	mu      sync.Mutex
	closed  bool
	servers map[serverKey]*slot
}

type serverKey struct{ root, name string }

// slot is a (root, server)'s process: starting (ready open), started
// (srv) or failed to start (err).
type slot struct {
	starts int // how many times it was started: 2 is a restart
	ready  chan struct{}
	// stopStart ends the start's handshake, for Close.
	stopStart context.CancelFunc
	srv       *server
	err       error
}

// New is a Manager for ws's files, with the built-in servers as servers
// (the settings' codeIntelligence.servers, which may be nil) overrides and
// extends them, started through door (the session's). No server starts
// before a question needs it. log, which may be nil, receives the
// servers' stderr and messages.
func New(ws *workspace.Workspace, servers map[string]ServerConfig, door *spawn.Door, log *zap.Logger) *Manager {
	if log == nil {
		log = zap.NewNop()
	}
	life, stop := context.WithCancel(context.Background())
	return &Manager{
		ws:              ws,
		door:            door,
		specs:           mergeServers(servers),
		log:             log.Named("langclient"),
		life:            life,
		stopLife:        stop,
		indexWait:       defaultIndexWait,
		progressStale:   defaultProgressStale,
		diagnosticsWait: defaultDiagnosticsWait,
		closeWait:       closeTimeout,
		maxMessage:      defaultMaxMessage,
		servers:         make(map[serverKey]*slot),
	}
}

// Available reports whether a server whose command is on PATH serves a
// file the workspace holds (holdsServedFile), looked up once: whether the
// code-intelligence tools can be of use at all. A server on PATH for
// languages the workspace has none of would have both tools declared in
// every request, some 800 tokens, for nothing.
func (m *Manager) Available() bool {
	m.availableOnce.Do(func() {
		var onPath []serverSpec
		for _, s := range m.specs {
			if _, err := m.lookPath(s); err == nil {
				onPath = append(onPath, s)
			}
		}
		m.available = len(onPath) > 0 && holdsServedFile(m.ws.Roots(), onPath)
	})
	return m.available
}

// Ask answers req from the server for req's file, started at the first
// question about its root. It is codeintel.Provider's Ask.
func (m *Manager) Ask(ctx context.Context, req codeintel.Request) (codeintel.Answer, error) {
	if err := codeintel.CheckOp(req.Op); err != nil {
		return codeintel.Answer{}, err
	}
	if req.Op == codeintel.WorkspaceSymbols {
		return m.workspaceSymbols(ctx, req)
	}
	srv, languageID, err := m.serverFor(ctx, req.Path, req.LanguageID, req.Ask)
	if err != nil {
		return codeintel.Answer{}, err
	}
	caveat, err := srv.waitIdle(ctx, m.indexWait, m.progressStale)
	if err != nil {
		return codeintel.Answer{}, err
	}
	result, err := srv.answer(ctx, req, docSync{path: req.Path, languageID: languageID, text: req.Text})
	if err != nil {
		return codeintel.Answer{}, err
	}
	return codeintel.Answer{Result: result, Encoding: workspace.UTF16, Source: srv.spec.name, Caveat: caveat}, nil
}

// candidates are the servers for path's filetype, in the order tried, and
// that filetype; none when no server serves it.
func (m *Manager) candidates(path, hint string) (specs []serverSpec, filetype string, fts []string) {
	fts = filetypes(path, hint)
	for _, ft := range fts {
		for _, s := range m.specs {
			if slices.Contains(s.filetypes, ft) {
				specs = append(specs, s)
			}
		}
		if len(specs) > 0 {
			return specs, ft, fts
		}
	}
	return nil, "", fts
}

// serverFor is the server for path, started when not running (asking
// through ask where the door says the user decides), and the file's
// language id; a *codeintel.NoServerError when none is on PATH.
func (m *Manager) serverFor(ctx context.Context, path, hint string, ask spawn.Ask) (*server, string, error) {
	specs, ft, fts := m.candidates(path, hint)
	var hints []string
	for _, s := range specs {
		cmdPath, err := m.lookPath(s)
		if err != nil {
			hints = append(hints, s.installHint())
			continue
		}
		root := findRoot(path, m.ws.RootOf(path), s.rootMarkers)
		srv, err := m.server(ctx, s, cmdPath, root, ask)
		return srv, ft, err
	}
	return nil, "", &codeintel.NoServerError{Language: languageName(path, fts), Install: strings.Join(hints, " or ")}
}

// running is the server already running for path, nil when none is.
func (m *Manager) running(path string) (*server, string) {
	specs, ft, _ := m.candidates(path, "")
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range specs {
		root := findRoot(path, m.ws.RootOf(path), s.rootMarkers)
		if sl := m.servers[serverKey{root, s.name}]; sl != nil && sl.alive() {
			return sl.srv, ft
		}
	}
	return nil, ""
}

// live is key's server when it started and still runs; nil when not.
func (m *Manager) live(key serverKey) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sl := m.servers[key]; sl != nil && sl.alive() {
		return sl.srv
	}
	return nil
}

// lookPath finds s's command as the door starts it: on PATH without the
// workspace's directories, so that an activated project's own server
// (node_modules/.bin on PATH) is not taken for the user's.
func (m *Manager) lookPath(s serverSpec) (string, error) { return m.door.LookPath(s.cmd[0]) }

// alive reports whether sl's server started and still runs.
func (sl *slot) alive() bool {
	select {
	case <-sl.ready:
		return sl.err == nil && !sl.srv.dead()
	default:
		return false
	}
}

// server is spec's server for root, started (once more after it died,
// not twice) when not running, once the door allows it.
func (m *Manager) server(ctx context.Context, spec serverSpec, cmdPath, root string, ask spawn.Ask) (*server, error) {
	if srv := m.live(serverKey{root, spec.name}); srv != nil {
		return srv, nil
	}
	how := spec.launchOf(cmdPath, m.door)
	if err := m.door.Allow(ctx, how.why, ask); err != nil {
		return nil, err
	}
	key := serverKey{root, spec.name}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("the language servers were shut down")
	}
	sl := m.servers[key]
	if sl != nil {
		select {
		case <-sl.ready:
			if sl.err == nil && !sl.srv.dead() {
				m.mu.Unlock()
				return sl.srv, nil
			}
			if sl.starts >= 2 {
				m.mu.Unlock()
				return nil, fmt.Errorf("%s stopped again after a restart (%w); it is not started a third time this session", spec.name, sl.failure())
			}
			m.log.Info("restarting a language server that stopped", zap.String("server", spec.name), zap.Error(sl.failure()))
			sl = nil
		default:
		}
	}
	if sl == nil {
		starts := 1
		if old := m.servers[key]; old != nil {
			starts = old.starts + 1
		}
		initCtx, stopStart := context.WithTimeout(m.life, startTimeout)
		sl = &slot{starts: starts, ready: make(chan struct{}), stopStart: stopStart}
		m.servers[key] = sl
		go m.start(initCtx, sl, spec, how, cmdPath, root)
	}
	m.mu.Unlock()
	select {
	case <-sl.ready:
		return sl.srv, sl.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// start starts sl's server, apart from any question's ctx: a question
// given up on leaves the server starting for the next.
func (m *Manager) start(initCtx context.Context, sl *slot, spec serverSpec, how launch, cmdPath, root string) {
	defer sl.stopStart()
	sl.srv, sl.err = startServer(m.life, initCtx, m.door, spec, how, cmdPath, root, m.maxMessage, m.log)
	close(sl.ready)
}

// failure is why sl's server is not running.
func (sl *slot) failure() error {
	if sl.err != nil {
		return sl.err
	}
	return sl.srv.conn.failure()
}

// runningIn are the servers running for roots at or below dir ("" for
// anywhere), for languageID ("" for all).
func (m *Manager) runningIn(dir, languageID string) []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var srvs []*server
	for key, sl := range m.servers {
		if dir != "" && !workspace.Within(dir, key.root) || !sl.alive() {
			continue
		}
		if languageID != "" && !slices.Contains(sl.srv.spec.filetypes, languageID) {
			continue
		}
		srvs = append(srvs, sl.srv)
	}
	slices.SortFunc(srvs, func(a, b *server) int { return strings.Compare(a.root+"\x00"+a.spec.name, b.root+"\x00"+b.spec.name) })
	return srvs
}

// Close shuts every server down, each within a few seconds, then kills
// what is left of their process groups. Questions asked after fail.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	slots := make([]*slot, 0, len(m.servers))
	for _, sl := range m.servers {
		slots = append(slots, sl)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(slots))
	for i, sl := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.closeSlot(ctx, sl)
		}()
	}
	wg.Wait()
	m.stopLife()
	return errors.Join(errs...)
}

func (m *Manager) closeSlot(ctx context.Context, sl *slot) error {
	// One still starting is not waited for: its handshake ends, and
	// with it the process.
	sl.stopStart()
	<-sl.ready
	if sl.err != nil {
		return nil
	}
	shutdownCtx, cancel := context.WithTimeout(ctx, m.closeWait)
	defer cancel()
	if err := sl.srv.shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("stopping %s: %w", sl.srv.spec.name, err)
	}
	return nil
}
