package acp

import (
	"context"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
	"io"
	"os"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/bounded"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Options configure a server.
type Options struct {
	Logger  *zap.Logger
	Version string
	// Getenv and LookupEnv read the environment (auth, GEMINI_MODEL);
	// os.Getenv and os.LookupEnv when nil.
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Retry is the model-call retry policy; the agent's default when zero.
	Retry dialog.RetryPolicy
	// SignIn configures the sign-in authenticate runs for oauth-personal:
	// Google's endpoints when zero. Only tests set it.
	SignIn login.Config
	// SandboxSupervisor runs a bubblewrap sandbox's persistent
	// supervisor (setup.Options): gemini-ls and its hidden subcommand;
	// nil, each sandboxed command gets a bwrap of its own.
	SandboxSupervisor []string
	// Responses are where the model's answers come from or go besides
	// the model (--fake-responses, --record-responses): each session
	// replays its file from the start, as each of Gemini CLI's does.
	Responses conversation.Responses
}

// server is one client connection; it implements the SDK's Agent.
type server struct {
	opts Options
	log  *zap.Logger
	conn *sdk.AgentSideConnection
	// wire reads the client's lines and carries gemini-ls's requests to
	// the client (calls.go); the SDK's connection serves the client's.
	wire *wire
	// out is the client's end, where both write; it says when a write
	// failed.
	out *lockedWriter
	// life ends when the connection does; sessions' builds and prompts
	// derive from it, never from a request's context.
	life context.Context

	// mu guards what initialize and authenticate set.
	mu     sync.Mutex
	client sdk.ClientCapabilities
	// clientSession is clientCapabilities.session, which the SDK's
	// types lack (notices, compaction).
	clientSession clientSessionCapabilities
	authType      string // the method the client authenticated with; "" for settings'
	apiKey        string // the key the client passed in authenticate's _meta
	// loggedOut: logout was answered and authenticate not since
	// (logout.go).
	loggedOut bool

	// host holds the live sessions, builds their agents and runs their
	// prompts, one per session, each through its turn's view. It has its
	// own lock.
	host *conversation.Host[*session]
	// told is what the user has been told of once for all the sessions
	// (settings keys nothing reads); it has its own lock.
	told conversation.Told
	// writes are the write locks every session's workspace takes, so
	// that two sessions in one folder do not undo each other's writes.
	writes *workspace.WriteLocks

	// parkMu guards the parked sessions, the sessions' holds and uses,
	// and orders parking and opening again (park.go).
	parkMu sync.Mutex
	parked *bounded.Map[string, parked] // at most MaxParkedSessions
	uses   uint64
}

// Serve speaks ACP on in and out until the client goes away (in ends, or
// a write to out fails) or ctx is cancelled; then every prompt is
// cancelled and every session's MCP servers and terminals end before it
// returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.LookupEnv == nil && opts.Getenv != nil {
		getenv := opts.Getenv
		opts.LookupEnv = func(name string) (string, bool) {
			v := getenv(name)
			return v, v != ""
		}
	}
	life, stop := context.WithCancel(ctx)
	defer stop()
	s := newServer(life, opts)
	closeSDK := s.connect(in, out)
	select {
	case <-s.conn.Done():
	case <-s.out.failed:
		s.log.Info("the client went away", zap.Error(s.out.failure()))
	case <-ctx.Done():
	}
	stop()
	closeSDK()
	s.host.CloseAll()
	return nil
}

// newServer is a server of a connection that lasts as long as life,
// its host presenting through it.
func newServer(life context.Context, opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	s := &server{opts: opts, log: opts.Logger, life: life, parked: bounded.New[string, parked](MaxParkedSessions), writes: workspace.NewWriteLocks()}
	s.host = conversation.NewHost[*session](conversation.Config{
		Getenv:    opts.Getenv,
		LookupEnv: opts.LookupEnv,
		Version:   opts.Version,
		Logger:    opts.Logger,
		Retry:     opts.Retry,
		Told:      &s.told,
		Cancel:    "session/cancel",

		SandboxSupervisor: opts.SandboxSupervisor,
		Responses:         opts.Responses,
	})
	return s
}

// connect speaks ACP on in and out: wire reads in, and the SDK's
// connection serves the client's requests. The returned function ends
// the SDK's connection.
func (s *server) connect(in io.Reader, out io.Writer) (closeSDK func()) {
	s.out = newLockedWriter(out)
	pr, pw := io.Pipe()
	s.wire = newWire(s.out, s.log)
	s.wire.own = s.ownMethods()
	s.conn = sdk.NewAgentSideConnection(s, s.out, pr)
	s.conn.SetLogger(slogFor(s.log))
	go s.wire.serve(in, pw)
	return func() { _ = pr.Close() }
}

// capabilities is what the client declared in initialize.
func (s *server) capabilities() sdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// invalidParams is the JSON-RPC error for a request whose params cannot be
// used, saying why.
func invalidParams(why string) error {
	return sdk.NewInvalidParams(map[string]any{"error": why})
}
