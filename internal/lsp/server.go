package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Error codes beyond JSON-RPC's own, from the LSP specification.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestFailed        jsonrpc2.Code = -32803
	codeRequestCancelled     jsonrpc2.Code = -32800
)

// Options configure a server.
type Options struct {
	Logger  *zap.Logger
	Version string
	// Getenv and LookupEnv read the environment (auth, GEMINI_MODEL);
	// os.Getenv and os.LookupEnv when nil. With Getenv set and LookupEnv
	// nil, an empty variable counts as unset.
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Retry is the model-call retry policy; the agent's default when zero.
	Retry dialog.RetryPolicy
	// StateDir is where gemini.prompt's transcripts and the diffs shown
	// to clients that can only ask go; $XDG_STATE_HOME/gemini-ls (or
	// ~/.local/state/gemini-ls) when empty.
	StateDir string
	// SignIn configures gemini/login: Google's endpoints when zero. Only
	// tests set it; the user directory and callback address come from
	// the environment.
	SignIn login.Config
	// ConfirmWait bounds how long an applied edit may take to show up in
	// the document before the outcome is read; 2s when zero.
	ConfirmWait time.Duration
	// StartedUp, when set, runs once in its own goroutine when the
	// client's initialized notification arrives: the editor has read the
	// initialize result, so work put off until start-up is over (the
	// command releasing start-up's code pages) no longer delays it.
	StartedUp func()
	// SandboxSupervisor runs a bubblewrap sandbox's persistent
	// supervisor (setup.Options): gemini-ls and its hidden subcommand;
	// nil, each sandboxed command gets a bwrap of its own.
	SandboxSupervisor []string
}

// Server is one client connection.
type Server struct {
	opts Options
	log  *zap.Logger
	conn jsonrpc2.Conn
	docs *workspace.Documents

	// exit carries the process exit status once `exit` arrives.
	exit chan int
	// methods are the methods the server handles; read-only.
	methods handledMethods

	// Each part of the state below has its own lock, held only to read or
	// change that part, never across a call out.
	lifecycle  lifecycle      // initialized, shut down (state.go)
	features   negotiated     // what the client can do (state.go)
	agentState agentState     // workspace, agent, its tools (state.go)
	asking     asking         // whether the client can ask the user (state.go)
	calls      calls          // requests being answered, for $/cancelRequest (lifetime.go)
	tunneled   tunneled       // gemini/request awaiting gemini/response (tunnel.go)
	progress   progressTokens // $/progress tokens, for workDoneProgress/cancel (progress.go)
	reports    reports        // gemini.prompt turns still reporting, for gemini.cancel (promptcommand.go)

	// life is the connection's lifetime context; every request's context
	// derives from it, never from jsonrpc2's pooled request context. It
	// ends with the connection, which cancels everything under way.
	life context.Context
	// backgroundPoll is how often a background agent's run is asked
	// about; 0 is background.DefaultPoll (tests ask faster).
	backgroundPoll time.Duration
	// handlers counts the requests being answered, so the end of the
	// connection can wait for them to stop.
	handlers inflight

	// edits keeps one workspace/applyEdit in flight per client; unsynced
	// are the edits it let go on the client's word, before their didChange;
	// landing the paths of the edits under way, whose didChanges are not
	// the user's edits.
	edits    editQueue
	unsynced unsyncedEdits
	landing  landingPaths

	// host runs the sessions' prompts, one at a time in each, and says
	// how each ended; its presenter (presenter.go) shows their events and
	// puts the agent's questions. It has its own lock.
	host *host

	// completion completes code and predicts next edits; initialize makes
	// it, before anything else is served. It has its own locks.
	completion *completion.Engine

	// conversations and transcripts serve gemini.prompt; each has its own
	// lock.
	conversations conversations
	transcripts   transcripts

	// fleet is the agents running in worktrees of their own, and
	// agentBuilds what each runs in (agents.go); each has its own lock.
	fleet       *fleet.Fleet
	agentBuilds agentBuilds

	// trustTurn lets one prompt at a time settle the folders' trust
	// (trust.go).
	trustTurn chan struct{}

	// startedUp runs Options.StartedUp once, at the first initialized.
	startedUp sync.Once
}

// Serve speaks LSP on rwc until the client sends exit or goes away: its
// input ends, or a write to it fails. It returns the process exit status: 0 after shutdown+exit, 1
// otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Getenv == nil {
		opts.Getenv, opts.LookupEnv = os.Getenv, os.LookupEnv
	}
	if opts.ConfirmWait == 0 {
		opts.ConfirmWait = 2 * time.Second
	}
	s := &Server{
		opts:    opts,
		docs:    workspace.NewDocuments(),
		exit:    make(chan int, 1),
		methods: newHandledMethods(),
		edits:   newEditQueue(),

		trustTurn: make(chan struct{}, 1),
	}
	st := newStream(rwc, func(err error) { s.log.Warn("malformed message", zap.Error(err)) })
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithCodec(payloadCodec{}))
	s.log = opts.Logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return mirrorWarnings(c, s.conn) }))
	s.host = conversation.NewHost[struct{}](conversation.Config{
		Getenv:    opts.Getenv,
		LookupEnv: opts.LookupEnv,
		Version:   opts.Version,
		Logger:    s.log, // the agent's warnings reach the editor too
		Retry:     opts.Retry,
		Cancel:    cancelHow,

		SandboxSupervisor: opts.SandboxSupervisor,
	})
	s.fleet = fleet.New(fleet.Config{Changed: s.agentChanged})

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.life = ctx
	s.conn.Go(ctx, s.handle)

	var code int
	select {
	case code = <-s.exit:
	case <-ctx.Done():
		code = 1
	case <-st.ended:
		// The editor went away (its input ended, its end of our output
		// closed, or it broke the framing): nobody is left to answer a
		// question or read an answer.
		code = s.lifecycle.exitStatus()
		s.log.Info("the client went away", zap.Error(st.endErr))
	}
	// Everything at once: model calls, questions to the user, edits
	// awaiting review and shell commands (whose process groups are
	// killed). Then wait for the handlers, so that the process does not
	// exit before a killed group is reaped.
	cancel()
	drain, stopDrain := context.WithTimeout(context.Background(), drainTimeout)
	defer stopDrain()
	if !s.handlers.wait(drain) {
		s.log.Warn("requests still running at exit", zap.Duration("waited", drainTimeout))
	}
	s.agentState.setup().Close() // no MCP server process outlives gemini-ls
	s.agentBuilds.closeAll()
	// Close closes the stream once idle, but a read blocked on a pipe
	// like stdin does not wake up for that; the process is about to exit,
	// so give it a moment and go.
	closed := make(chan struct{})
	go func() {
		_ = s.conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(100 * time.Millisecond):
		s.log.Debug("connection still draining at exit")
	}
	return code
}

// handle dispatches one message by the method table (methods.go). It runs
// on the read loop, so notifications are handled in wire order; requests
// that call back into the client release the loop with jsonrpc2.Async
// first (method.async).
//
// jsonrpc2 pools the request context rq and recycles it when handle
// returns; a stdlib context derived from it can touch it after that (and
// panic), so work runs under a context of the server's own, cancelled by
// $/cancelRequest or when the handler returns.
func (s *Server) handle(rq context.Context, req *jsonrpc2.Request) (any, error) {
	name := req.Method()
	if err := s.checkParamsSize(req); err != nil {
		return nil, err
	}
	if !req.IsCall() {
		// A notification's error would end the connection: log instead.
		// It runs on the read loop: its params, borrowed from the frame,
		// stay valid until it returns.
		if err := s.notification(name, req.Params()); err != nil {
			s.log.Warn("notification failed", zap.String("method", name), zap.Error(err))
		}
		return nil, nil
	}
	id := req.ID()
	s.handlers.start()
	defer s.handlers.finish()
	ctx, cancel := context.WithCancel(s.life)
	s.calls.add(id, cancel)
	defer func() {
		s.calls.remove(id)
		cancel()
	}()
	result, err := s.request(ctx, rq, req)
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			err = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
		}
		// req.Method(), not name: after jsonrpc2.Async that is its
		// clone, and name, which borrows the frame, would keep a whole
		// prompt's frame alive until the prompt ends.
		s.log.Debug("request failed", zap.String("method", req.Method()), zap.Error(err))
	}
	return result, err
}

// request answers a call, or refuses it as the connection's phase
// requires; an unknown method is refused the same way before initialize
// and after shutdown.
//
// The params are decoded once, from req.Params() and no copy of ours
// (a prompt's are up to MaxPromptParams): on the read loop they borrow
// the frame, valid until the handler returns; an async handler reads
// them after jsonrpc2.Async, which has cloned them for it, so that the
// frame is no longer needed by then.
func (s *Server) request(ctx, rq context.Context, req *jsonrpc2.Request) (any, error) {
	name := req.Method()
	now := s.lifecycle.phase()
	m := s.methods.lookup(requestKind, name)
	if m == nil || !m.handledIn(now) {
		return nil, refusal(m, name, now)
	}
	if m.pin {
		ctx = s.pinDocument(ctx, json.RawMessage(req.Params()))
	}
	if m.async {
		jsonrpc2.Async(rq)
	}
	return m.sig.serve(s, ctx, json.RawMessage(req.Params()), m.params)
}

// refusal is the error for a request the server does not handle now.
func refusal(m *method, name string, now phase) error {
	switch {
	case now == uninitialized:
		return jsonrpc2.Errorf(codeServerNotInitialized, "server not initialized: send initialize before %s", name)
	case m != nil && m.handledIn(uninitialized):
		// Handled only before initialize: initialize itself.
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, name+" was already called")
	case now == shutDown:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "server is shutting down: %s refused", name)
	}
	return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", name)
}

// notification handles a notification; outside the session (LSP: before
// initialize and after shutdown) only exit counts, and an unknown one is
// logged and dropped.
func (s *Server) notification(name string, params []byte) error {
	now := s.lifecycle.phase()
	m := s.methods.lookup(notificationKind, name)
	switch {
	case m != nil && m.handledIn(now):
		_, err := m.sig.serve(s, s.life, params, m.params)
		return err
	case now != serving:
		s.log.Info("dropping notification outside the session", zap.String("method", name))
	default:
		s.log.Info("dropping unknown notification", zap.String("method", name))
	}
	return nil
}

// shutdown answers shutdown: every prompt is cancelled, and from now on
// only exit counts.
func (s *Server) shutdown(context.Context, noParams) (nothing, error) {
	s.lifecycle.markShutdown()
	s.host.CancelAll()
	return nil, nil
}

// exitNotification ends Serve with the exit status, in any phase.
func (s *Server) exitNotification(noParams) error {
	s.exit <- s.lifecycle.exitStatus()
	return nil
}

// cancelParams are $/cancelRequest's params.
type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

func (s *Server) cancelRequest(p cancelParams) error {
	var id jsonrpc2.ID
	var n int64
	var str string
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(p.ID, &str) == nil:
		id = jsonrpc2.NewStringID(str)
	default:
		return fmt.Errorf("$/cancelRequest: id must be a number or a string, not %s", p.ID)
	}
	s.calls.cancel(id)
	return nil
}

// state returns what the prompt handlers need, or an error when the
// server cannot run prompts.
func (s *Server) state() (*conversation.Build, clientFeatures, error) {
	built, err := s.agentState.runner()
	return built, s.features.get(), err
}

// stateFor is state for prompt text: a built-in that needs no model runs
// without credentials too, as Gemini CLI's /help and /tools do.
func (s *Server) stateFor(ctx context.Context, text string) (*conversation.Build, clientFeatures, error) {
	built, f, err := s.state()
	if err != nil {
		if b := s.agentState.withoutModel(); b != nil && conversation.Local(ctx, b, text) {
			return b, f, nil
		}
	}
	return built, f, err
}

func (s *Server) getenv(key string) string { return s.opts.Getenv(key) }

// call sends a request to the client. When ctx ends first, the client is
// told with $/cancelRequest, so it can close a preview or a question that
// nobody waits for any more.
func (s *Server) call(ctx context.Context, method string, params, result any) error {
	id, err := s.conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil && id.IsValid() {
		var wire any = id
		if n, ok := id.Number(); ok {
			wire = n
		} else if str, ok := id.StringValue(); ok {
			wire = str
		}
		s.notifyClient("$/cancelRequest", cancelParams{ID: mustJSON(wire)})
	}
	return err
}
