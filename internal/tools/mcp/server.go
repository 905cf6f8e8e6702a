package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// terminateWait is how long a stdio server gets to exit after its stdin
// closes, and again after SIGTERM, before it is killed.
const terminateWait = 500 * time.Millisecond

// stderrTail is how much of a stdio server's stderr is kept to explain its
// failure.
const stderrTail = 2048

// server is one configured MCP server.
type server struct {
	alias   string
	cfg     serverConfig
	dir     string
	version string
	door    *spawn.Door // starts stdio servers, sandboxed or not
	// redaction is security.environmentVariableRedaction.
	redaction envredact.Policy

	cmd    *spawn.Cmd // stdio servers only; set before the goroutines start
	stderr tail

	// Remote servers only.
	transport     http.RoundTripper // reaches them: Config.Transport
	tokens        *oauth.Store      // nil without a user directory
	signInTimeout time.Duration
	// showAuthURL tells the user where to sign in at start-up.
	showAuthURL func(authURL string)
	token       func(context.Context) (string, error) // nil: no token is sent
	// unauthorized: the server answered 401 to the latest connection.
	unauthorized atomic.Bool
	hadToken     atomic.Bool           // a stored token was sent
	refreshErr   atomic.Pointer[error] // why the stored token could not be refreshed
	// endConnection ends the context the connection was made under.
	endConnection context.CancelFunc
	// broken is closed once the server broke a bound (brokeWith says
	// how): it is failed and disconnected.
	broken    chan struct{}
	brokeOnce sync.Once
	brokeWith error

	// ctx ends this incarnation of the server: Close, or a restart.
	ctx  context.Context
	stop context.CancelFunc
	// ended is closed when its run has returned.
	ended chan struct{}

	// gone is closed once the connection has ended and the tools are
	// withdrawn; calls fail at once after that.
	gone     chan struct{}
	goneOnce sync.Once

	// relisting is its announcements that its tools changed, and the
	// listings since; resourcesChanged holds one wish to list its
	// resources again.
	relisting        *relisting
	resourcesChanged chan struct{}
}

// start connects to the server and lists its tools. A remote server that
// answers 401 is signed in to first when its oauth block is enabled, as in
// Gemini CLI; otherwise the user is told to run /mcp auth.
func (s *server) start(ctx context.Context) (*sdk.ClientSession, listing, error) {
	session, err := s.connect(ctx)
	if err != nil && s.unauthorized.Load() && s.cfg.OAuth != nil && s.cfg.OAuth.Enabled {
		if err := s.signIn(ctx, s.showAuthURL); err != nil {
			return nil, listing{}, &authError{fmt.Errorf("MCP server '%s' requires authentication, and signing in failed: %w", s.alias, err)}
		}
		s.refreshErr.Store(nil)
		session, err = s.connect(ctx)
	}
	if err != nil {
		if s.unauthorized.Load() {
			return nil, listing{}, &authError{s.errAuthRequired()}
		}
		return nil, listing{}, err
	}
	listed, err := s.listTools(ctx, session)
	if err != nil {
		_ = session.Close()
		return nil, listing{}, err
	}
	if err := s.breach(); err != nil {
		// On a stream the listing did not need.
		_ = session.Close()
		return nil, listing{}, err
	}
	return session, listed, nil
}

// minListingTTL is the least time a listing is kept before it is listed
// again, whatever ttlMs says: a server saying 1 ms is not listed again
// without pause.
const minListingTTL = time.Second

// listing is a server's tools as listed, and how long they hold: the
// least ttlMs of its pages (2026-07-28), within minListingTTL; 0 when a
// page gave none (a 2025-11-25 server), and the tools are listed again
// only when the server says they changed.
type listing struct {
	tools []*sdk.Tool
	ttl   time.Duration
}

// listTools lists the server's tools, bounded by its timeout, as Gemini
// CLI 0.61's discoverTools does: none from a server that declares no
// tools capability (it is not asked) or does not know tools/list.
func (s *server) listTools(ctx context.Context, session *sdk.ClientSession) (listing, error) {
	if declared(session).Tools == nil {
		return listing{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var ttl time.Duration
	first := true
	listed, err := listAll(ctx, "tools", func(ctx context.Context, cursor string) ([]*sdk.Tool, string, error) {
		res, err := session.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		if page := time.Duration(res.TTLMs) * time.Millisecond; first || page < ttl {
			ttl, first = page, false
		}
		return res.Tools, res.NextCursor, nil
	})
	switch {
	case methodNotFound(err):
		return listing{}, nil
	case err != nil:
		return listing{}, fmt.Errorf("listing tools: %w", err)
	}
	if ttl > 0 {
		ttl = max(ttl, minListingTTL)
	}
	return listing{tools: slices.DeleteFunc(listed, func(t *sdk.Tool) bool { return t == nil }), ttl: ttl}, nil
}

// declared is what the server said at initialize it offers (none if it
// said nothing): it is asked for those listings only.
func declared(session *sdk.ClientSession) *sdk.ServerCapabilities {
	if r := session.InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	return &sdk.ServerCapabilities{}
}

// methodNotFound reports whether err is the server's "Method not found":
// it does not know the listing asked for, which Gemini CLI 0.61 takes as
// nothing to list, not a failure.
func methodNotFound(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound
}

// broke records that the server broke a bound; the first such fails it.
func (s *server) broke(err error) {
	s.brokeOnce.Do(func() {
		s.brokeWith = err
		close(s.broken)
	})
}

// breach is the bound the server broke, nil while it keeps them.
func (s *server) breach() error {
	select {
	case <-s.broken:
		return s.brokeWith
	default:
		return nil
	}
}

// authError is a server that wants a sign-in.
type authError struct{ error }

func (e *authError) Unwrap() error { return e.error }

// connect opens the session, bounded by the server's timeout. The context
// of the connection lives as long as ctx: an SSE transport's stream is
// read under it.
func (s *server) connect(ctx context.Context) (*sdk.ClientSession, error) {
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(s.cfg.timeout(), cancel)
	session, err := s.handshake(ctx)
	if !timer.Stop() {
		cancel()
		if session != nil {
			_ = session.Close()
		}
		return nil, fmt.Errorf("connecting: %w after %s", context.DeadlineExceeded, s.cfg.timeout())
	}
	if err != nil {
		cancel()
		return nil, err
	}
	s.endConnection = cancel
	return session, nil
}

// handshake connects and initializes the session under ctx.
func (s *server) handshake(ctx context.Context) (*sdk.ClientSession, error) {
	s.unauthorized.Store(false)
	// Roots as the SDK declares them by default, as gemini-ls always has;
	// the feature is deprecated from 2026-07-28, not gone.
	//lint:ignore SA1019 the SDK's default, kept while the revision keeps roots
	caps := &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true}}
	caps.AddExtension(tasksExtension, map[string]any{})
	client := sdk.NewClient(&sdk.Implementation{Name: "gemini-ls", Version: s.version}, &sdk.ClientOptions{
		// The SDK's defaults, and the tasks extension: 2026-07-28's
		// per-request capabilities carry them, with elicitation (the
		// handler's); initialize (2025-11-25) carries what 0.61 declares
		// (legacyCapabilities).
		Capabilities:       caps,
		ElicitationHandler: s.elicitHandler,
		// As Gemini CLI 0.61 listens: the tools and resources are listed
		// again (Manager.relist); prompts are listed whenever asked for.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { s.relisting.want() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			select {
			case s.resourcesChanged <- struct{}{}:
			default:
			}
		},
	})
	client.AddSendingMiddleware(legacyCapabilities)
	addTaskMethods(client)
	if s.cfg.Command != "" {
		transport, err := s.stdioTransport()
		if err != nil {
			return nil, err
		}
		session, err := client.Connect(ctx, watchingTransport{transport, s.relisting}, nil)
		if name, cause, ok := spawn.NotStarted(err); ok {
			return nil, fmt.Errorf("connecting: cannot start %s: %w", name, cause)
		}
		if err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
		return session, nil
	}
	if url, _ := s.cfg.remoteURL(); url == "" {
		return nil, errors.New("no command, httpUrl or url is configured")
	}
	if t := s.cfg.Type; t != "" && t != settings.MCPTypeHTTP && t != settings.MCPTypeSSE {
		return nil, fmt.Errorf(`its "type" is %q: it must be "http" (streamable HTTP) or "sse"`, t)
	}
	if err := s.checkHeaders(); err != nil {
		return nil, err
	}
	if s.token == nil {
		token, err := s.tokenSource()
		if err != nil {
			return nil, err
		}
		s.token = token
	}
	session, err := s.connectRemote(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	return session, nil
}

// stdioTransport runs the server's command, speaking on its stdin and
// stdout.
func (s *server) stdioTransport() (sdk.Transport, error) {
	cmd := s.door.Command(context.Background(), spawn.Configured{Setting: "mcpServers." + s.alias, Kind: spawn.MCPServer}, s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.dir
	if s.cfg.Cwd != "" {
		cmd.Dir = s.cfg.Cwd
		if !filepath.IsAbs(s.cfg.Cwd) && s.dir != "" {
			cmd.Dir = filepath.Join(s.dir, s.cfg.Cwd)
		}
	}
	cmd.Env = serverEnv(os.Environ(), s.cfg.Env, s.redaction)
	cmd.Stderr = &s.stderr
	// The pipes' copying must not wait for a child that kept them.
	cmd.WaitDelay = terminateWait
	ready, err := cmd.Ready()
	if err != nil {
		return nil, err
	}
	s.cmd = cmd
	return treeTransport{&sdk.CommandTransport{Command: ready, TerminateDuration: terminateWait}, cmd}, nil
}

// treeTransport is a server's CommandTransport whose connection, closed,
// ends what the server started too, where no process group reaches it
// (holdDescendants).
type treeTransport struct {
	*sdk.CommandTransport
	cmd *spawn.Cmd
}

func (t treeTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return treeConnection{conn, t.cmd}, nil
}

type treeConnection struct {
	sdk.Connection
	cmd *spawn.Cmd
}

// Close holds what the server started before the SDK's close ends the
// server (closing its stdin, then killing it), and ends those once it has.
func (c treeConnection) Close() error {
	started := c.cmd.HoldDescendants()
	err := c.Connection.Close()
	started.Kill()
	return err
}

// kill ends whatever is left of the server's connection and process group.
func (s *server) kill() {
	if s.endConnection != nil {
		s.endConnection()
	}
	if s.cmd != nil {
		_ = s.cmd.Kill()
	}
}

func (s *server) markDead() {
	s.goneOnce.Do(func() { close(s.gone) })
}

func (s *server) isDead() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

// explain is err with what the process said and how it ended. A bound
// the server broke is what it says instead of err: whatever failed then
// failed for that.
func (s *server) explain(err error) string {
	if b := s.breach(); b != nil {
		err = b
	}
	msg := err.Error()
	if s.cmd != nil {
		if st := s.cmd.ProcessState; st != nil && !st.Success() {
			msg += "; the process " + st.String()
		}
		if out := strings.TrimSpace(s.stderr.String()); out != "" {
			msg += "; its stderr ended with: " + out
		}
	}
	return msg
}

// tail keeps the last stderrTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// legacyCapabilities makes initialize, sent to a server that does not
// speak 2026-07-28, declare what Gemini CLI 0.61 declares: no elicitation
// (a 2025-11-25 server's elicitation/create comes outside any call, and
// gemini-ls asks its user only for a call) and no extensions (tasks are
// 2026-07-28's).
func legacyCapabilities(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if p, ok := req.GetParams().(*sdk.InitializeParams); ok && p.Capabilities != nil {
			p.Capabilities.Elicitation = nil
			p.Capabilities.Extensions = nil
		}
		return next(ctx, method, req)
	}
}
