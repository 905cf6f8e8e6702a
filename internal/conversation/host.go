package conversation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Config is what every agent a host builds shares: the process's side of
// setup.Options.
type Config struct {
	Getenv    settings.Getenv
	LookupEnv settings.LookupEnv
	Version   string
	Logger    *zap.Logger
	Retry     dialog.RetryPolicy
	// Unattended: nobody is there to ask (headless), and no person typed
	// the prompt: it came from a pipe or the command line, so a built-in
	// that changes what the agent may do (builtin.Builtin.Changes) is
	// refused.
	Unattended bool
	// Cancel is how the front end's user cancels a running prompt, which
	// the busy error names ("session/cancel").
	Cancel string
	// Told is shared by every build, so the user is told a thing once
	// per process however many agents the host builds.
	Told *Told
	// SandboxSupervisor is setup.Options'.
	SandboxSupervisor []string
	// Responses are where every build's model answers come from or go
	// besides the model (setup.Options): each build replays its file
	// from the start, as each of Gemini CLI's sessions does.
	Responses Responses
}

// Responses are setup.Responses, for the front ends' options.
type Responses = setup.Responses

// Place is where one agent is built and what the front end chose for it:
// the build's side of setup.Options.
type Place struct {
	Workspace *workspace.Workspace
	// Getenv and LookupEnv, when set, are the environment this build
	// sees instead of the host's (ACP's key from authenticate).
	Getenv    settings.Getenv
	LookupEnv settings.LookupEnv
	Overlay   map[string]any
	// Model and ApprovalMode are the front end's explicit choices.
	Model        string
	ApprovalMode dialog.ApprovalMode
	// IncludeDirectories are more roots; PolicyPaths and AdminPolicyPaths
	// replace the settings' (see setup.Options).
	IncludeDirectories            []string
	PolicyPaths, AdminPolicyPaths []string
	// Warn and ShowAuthURL tell the user of what the build found (see
	// setup.Options); ShellRunner runs shell commands, nil: here;
	// Diagnostics asks the editor for its diagnostics, nil: it cannot;
	// CodeIntel asks the editor's language servers, nil: it cannot.
	Warn        func(what string, err error)
	ShowAuthURL func(server, authURL string)
	ShellRunner dialog.CommandRunner
	Diagnostics dialog.DiagnosticsReader
	CodeIntel   codeintel.Provider
	// AllowedTools, AllowedMCPServers and Extensions are the command
	// line's choices (see setup.Options).
	AllowedTools, AllowedMCPServers, Extensions []string
	// WithoutCredentials builds the whole agent without credentials too
	// (see setup.Options).
	WithoutCredentials bool
	// Sandbox is -s/--sandbox, nil when not given (see setup.Options).
	Sandbox *bool
	// ClientPrompt is the system prompt the client gave the session
	// (see setup.Options).
	ClientPrompt dialog.ClientPrompt
	// Logger, when set, is this build's logger instead of the host's
	// (ACP's session, which shows the records marked for the user).
	Logger *zap.Logger
}

// Host owns a front end's live sessions end to end: it builds their
// agents, looks them up, resumes and lists them, runs one prompt or
// command at a time in each, and says how each ended as an Outcome. S is
// what the front end keeps of a session for its wire (nothing: struct{}).
type Host[S any] struct {
	cfg   Config
	turns Turns
	// transports are the model transports the host's builds share, one
	// per credential, so that a front end building an agent per session
	// (ACP) opens one set of model connections, not one per session.
	transports *auth.Transports
	// running holds a token for each claim (Begin) until it ends: at most
	// dialog.MaxRunningSessions.
	running chan struct{}

	// mu guards live, asked and waiting.
	mu   sync.Mutex
	live map[string]*Live[S]
	// waiting counts the claims waiting for a token of running.
	waiting int
	// asked are the folders the trust question was put about (trust.go).
	asked map[string]bool
}

// Live is a live session: its agent session, the build it runs in, and
// the front end's state of it.
type Live[S any] struct {
	// session is the agent's; a front end reaches it only through the
	// host and Live's methods.
	session *agent.Session
	// build is the front end's handle, and built the agent of it the
	// session runs in: the handle's current one, or one it replaced
	// (Host.Rebuild) until the session's next turn moves it.
	build *Build
	built *setup.Built
	State S
	// owns: the session's build is its own, closed with it.
	owns bool
	// pending are the pins (agent.Session.Pin) Resume took for the
	// prompts on their way to the session, each released as one of them
	// claims it (Begin), or as the session leaves the host; guarded by
	// the host's mu.
	pending []func()
}

// ID is the session's id, the agent session's.
func (l *Live[S]) ID() string { return l.session.ID() }

// Mode is the session's approval mode.
func (l *Live[S]) Mode() dialog.ApprovalMode { return l.session.ApprovalMode() }

// Info is what a session list shows of the session.
func (l *Live[S]) Info() dialog.SessionInfo { return l.session.Info() }

// Stats is what the session's requests and calls came to so far.
func (l *Live[S]) Stats() dialog.Stats { return l.session.Stats() }

// RewindPoints are the session's prompts, each with the files the agent
// changed at it, to rewind to.
func (l *Live[S]) RewindPoints() []dialog.RewindPoint { return l.session.RewindPoints() }

// NewHost is a host of no session yet.
func NewHost[S any](cfg Config) *Host[S] {
	return &Host[S]{cfg: cfg, turns: Turns{cancel: cfg.Cancel}, transports: auth.NewTransports(),
		running: make(chan struct{}, dialog.MaxRunningSessions), live: map[string]*Live[S]{}, asked: map[string]bool{}}
}

// Build builds an agent for place; each turn's events and questions go
// to the view handed with its prompt (dialog.Port). ctx's values are kept, not its end (see
// setup.Build). A build without credentials is returned with its AuthErr
// set (and no agent, unless place.WithoutCredentials).
func (h *Host[S]) Build(ctx context.Context, place Place) (*Build, error) {
	built, err := setup.Build(ctx, h.options(place))
	if err != nil {
		return nil, err
	}
	return newBuild(built), nil
}

// Load reads place's settings and extensions and starts nothing (see
// setup.Load): for what lists and exits.
func (h *Host[S]) Load(place Place) (*Build, error) {
	built, err := setup.Load(h.options(place))
	if err != nil {
		return nil, err
	}
	return newBuild(built), nil
}

func (h *Host[S]) options(place Place) setup.Options {
	getenv, lookupEnv := h.cfg.Getenv, h.cfg.LookupEnv
	if place.Getenv != nil {
		getenv, lookupEnv = place.Getenv, place.LookupEnv
	}
	return setup.Options{
		Workspace:          place.Workspace,
		Getenv:             getenv,
		LookupEnv:          lookupEnv,
		Version:            h.cfg.Version,
		Logger:             cmp.Or(place.Logger, h.cfg.Logger),
		Warn:               place.Warn,
		ShowAuthURL:        place.ShowAuthURL,
		ShellRunner:        place.ShellRunner,
		Diagnostics:        place.Diagnostics,
		CodeIntel:          place.CodeIntel,
		Overlay:            place.Overlay,
		Unattended:         h.cfg.Unattended,
		Model:              place.Model,
		ApprovalMode:       place.ApprovalMode,
		Retry:              h.cfg.Retry,
		IncludeDirectories: place.IncludeDirectories,
		PolicyPaths:        place.PolicyPaths,
		AdminPolicyPaths:   place.AdminPolicyPaths,
		Told:               h.cfg.Told,
		Transports:         h.transports,
		AllowedTools:       place.AllowedTools,
		AllowedMCPServers:  place.AllowedMCPServers,
		Extensions:         place.Extensions,
		WithoutCredentials: place.WithoutCredentials,
		Sandbox:            place.Sandbox,
		ClientPrompt:       place.ClientPrompt,
		SandboxSupervisor:  h.cfg.SandboxSupervisor,
		Responses:          h.cfg.Responses,
	}
}

// Open starts a new session in b and makes it live with state; own: the
// build is the session's alone, closed when the session is.
func (h *Host[S]) Open(b *Build, own bool, state S) *Live[S] {
	built := b.built()
	return h.add(&Live[S]{session: built.Agent.NewSession(), build: b, built: built, State: state, owns: own})
}

// OpenForPrompt is Open for a prompt the front end claims the session
// for next (Begin): the new session stays in memory until then (or until
// it leaves the host), however many sessions open meanwhile.
func (h *Host[S]) OpenForPrompt(ctx context.Context, b *Build, own bool, state S) (*Live[S], error) {
	built := b.built()
	return h.resume(ctx, b, built.Agent.NewSession().ID(), "", own, state, true)
}

// OpenWithID is Open with the new session's id given (Gemini CLI's
// --session-id); an id in use, live or saved, is refused
// (dialog.ErrSessionExists).
func (h *Host[S]) OpenWithID(ctx context.Context, b *Build, id string, own bool, state S) (*Live[S], error) {
	built := b.built()
	s, err := built.Agent.NewSessionWithID(ctx, id)
	if err != nil {
		return nil, err
	}
	return h.add(&Live[S]{session: s, build: b, built: built, State: state, owns: own}), nil
}

// Resume makes the session of b that id names live (saved or live
// already; "latest": the most recently updated of root); one live with
// the same agent session already is returned as it is. An id naming
// none is an *dialog.UnknownSessionError.
func (h *Host[S]) Resume(ctx context.Context, b *Build, id, root string, own bool, state S) (*Live[S], error) {
	return h.resume(ctx, b, id, root, own, state, false)
}

// ResumeForPrompt is Resume for a prompt the front end claims the
// session for next (Begin): the session stays in memory until then (or
// until it leaves the host), however many sessions start meanwhile.
func (h *Host[S]) ResumeForPrompt(ctx context.Context, b *Build, id, root string, own bool, state S) (*Live[S], error) {
	return h.resume(ctx, b, id, root, own, state, true)
}

// resume is Resume, the session pinned until its next claim when pin.
func (h *Host[S]) resume(ctx context.Context, b *Build, id, root string, own bool, state S, pin bool) (*Live[S], error) {
	built := b.built()
	as, unpin, err := h.resumeSession(ctx, built, id, root, pin)
	if err != nil {
		return nil, err
	}
	var pending []func()
	if unpin != nil {
		pending = append(pending, unpin)
	}
	h.mu.Lock()
	l, ok := h.live[as.ID()]
	if ok && l.session == as && l.built == built {
		// Live already: kept, so that a prompt waiting for its turn is
		// not told it was resumed away.
		l.pending = append(l.pending, pending...)
		h.mu.Unlock()
		return l, nil
	}
	h.mu.Unlock()
	return h.add(&Live[S]{session: as, build: b, built: built, State: state, owns: own, pending: pending}), nil
}

// resumeAttempts bounds how often a session is read back that the bound
// on sessions in memory dropped before it could be pinned.
const resumeAttempts = 3

// resumeSession is the session of built that id names (see Resume), and
// when pin, pinned in memory (agent.Session.Pin) until unpin.
func (h *Host[S]) resumeSession(ctx context.Context, built *setup.Built, id, root string, pin bool) (as *agent.Session, unpin func(), err error) {
	for range resumeAttempts {
		as, err = resume(ctx, built.Agent, id, root)
		if IsUnknownSession(err) {
			as, err = h.rebuilt(ctx, built, id, err)
		}
		if err != nil || !pin {
			return as, nil, err
		}
		if unpin, err = as.Pin(); err == nil {
			return as, unpin, nil
		}
	}
	return nil, nil, err
}

// add makes l live. The sessions of a shared build that its agent has
// dropped from memory (dialog.MaxLiveSessions) are dropped here too, so
// that the host holds no more of them than the agent does. What the
// agent keeps is read with the host's mu held: read before, it would
// miss a session another add made live meanwhile, and drop it.
func (h *Host[S]) add(l *Live[S]) *Live[S] {
	h.mu.Lock()
	defer h.mu.Unlock()
	var kept map[string]bool
	if !l.owns && l.built.Agent != nil {
		kept = map[string]bool{}
		for _, i := range l.built.Agent.LiveSessions() {
			kept[i.ID] = true
		}
	}
	for id, o := range h.live {
		if kept != nil && !o.owns && o.built == l.built && !kept[id] {
			delete(h.live, id)
			o.unpinAll()
		}
	}
	if o, ok := h.live[l.ID()]; ok && o != l {
		o.unpinAll()
	}
	h.live[l.ID()] = l
	return l
}

// unpinAll releases the pins the prompts on their way to l took, as it
// leaves the host; the host's mu is held.
func (l *Live[S]) unpinAll() {
	for _, unpin := range l.pending {
		unpin()
	}
	l.pending = nil
}

// unpinOne releases one of the pins the prompts on their way to l took,
// as one of them claims it.
func (h *Host[S]) unpinOne(l *Live[S]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(l.pending); n > 0 {
		l.pending[n-1]()
		l.pending = l.pending[:n-1]
	}
}

// Lookup is live session id.
func (h *Host[S]) Lookup(id string) (*Live[S], bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.live[id]
	return l, ok
}

// Idle reports whether live session id could leave memory and be
// resumed from disk as it is (agent.Session.Idle), no prompt on its way
// to it either.
func (h *Host[S]) Idle(id string) bool {
	h.mu.Lock()
	l, ok := h.live[id]
	pending := ok && len(l.pending) > 0
	h.mu.Unlock()
	return ok && !pending && l.session.Idle()
}

// Lives are the live sessions, in no particular order.
func (h *Host[S]) Lives() []*Live[S] {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Values(h.live))
}

// List lists the sessions of root ("": of every root), the most recently
// updated first: b's, live and saved, or with no build (a front end
// that lists before it builds) the saved ones the store holds.
func (h *Host[S]) List(ctx context.Context, b *Build, root string) ([]dialog.SessionInfo, error) {
	if b != nil {
		return b.built().Agent.Sessions(ctx, root)
	}
	store, err := setup.OpenSessions(h.cfg.Getenv, root, h.cfg.Logger)
	if errors.Is(err, setup.ErrNoSessionDir) {
		return nil, nil // sessions are not saved without HOME
	}
	if err != nil {
		return nil, fmt.Errorf("listing saved sessions: %w", err)
	}
	metas, err := store.List(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("listing saved sessions: %w", err)
	}
	list := make([]dialog.SessionInfo, len(metas))
	for i, m := range metas {
		list[i] = dialog.SessionInfo{ID: m.ID, Title: m.Title, Root: m.Root, CreatedAt: m.Created, UpdatedAt: m.Updated, Prompts: m.Prompts}
	}
	return list, nil
}

// Replay is saved session id of b as it is shown again, a prompt at a
// time, its calls described by b's tools; it resumes the session in b's
// agent if it is not live there. It reads the session in its turn, as a
// prompt runs: a session running a prompt is an *dialog.BusyError.
func (h *Host[S]) Replay(ctx context.Context, b *Build, id string) (dialog.SessionInfo, []Exchange, error) {
	turn, err := h.turns.Begin(ctx, id)
	if err != nil {
		return dialog.SessionInfo{}, nil, err
	}
	defer turn.End()
	built := b.hold()
	defer b.release(built)
	return replaySaved(ctx, built.Agent, id, Describer(built.Tools.Registry))
}

// Delete deletes session id of b, live or saved (agent.DeleteSession),
// and closes it here as Close does. It waits for a cancelled prompt of
// the session to end; a session running a prompt is an
// *dialog.BusyError, and one neither live nor saved an
// *dialog.UnknownSessionError.
func (h *Host[S]) Delete(ctx context.Context, b *Build, id string) error {
	turn, err := h.turns.Begin(ctx, id)
	if err != nil {
		return err
	}
	defer turn.End()
	built := b.hold()
	err = built.Agent.DeleteSession(id)
	b.release(built)
	if err != nil {
		return err
	}
	h.Close(id)
	return nil
}

// Model is the model b's sessions' requests go to as the user named it
// (an alias or a concrete model): the last /model set, else the one it
// was built with.
func (h *Host[S]) Model(b *Build) string {
	built := b.built()
	if built.Agent == nil { // no credentials: no agent, but a model was chosen
		return built.Model
	}
	return built.Agent.ModelSetting()
}

// Ready waits for l's build's MCP servers to start, so that the first
// prompt sees every server's tools and prompts, as Gemini CLI's do; each
// server's timeout bounds its start. Once they have, it returns at once:
// nothing needs remembering that the wait itself does not.
func (h *Host[S]) Ready(ctx context.Context, l *Live[S]) {
	_ = l.built.Tools.WaitForServers(ctx)
}

// Prompt runs in as session id's prompt ("/name args" a command, see
// Turn.Run), shown and asked through v, and says how it ended. It waits
// for a cancelled prompt of the session to end first; a prompt still
// running makes it Busy.
func (h *Host[S]) Prompt(ctx context.Context, id string, in dialog.Input, v View) Outcome {
	c, err := h.Begin(ctx, id)
	if err != nil {
		return NotBegun(ctx, err)
	}
	defer c.End()
	return c.Prompt(in, v)
}

// Claim is a live session's turn, from Begin to End: what runs in it (a
// prompt, a rewind) runs alone in the session, and Cancel stops it.
type Claim[S any] struct {
	h    *Host[S]
	live *Live[S]
	turn *Turn
	// built is the agent the claim holds open (Build.hold) until End:
	// the live session's.
	built *setup.Built
	// unpins release the claim's pins of its session (agent.Session.Pin)
	// at End; running: it holds a token of the host's running.
	unpins  []func()
	running bool
	once    sync.Once
}

// Begin claims live session id's turn for what runs under ctx, for a
// front end whose prompt outlives the request that starts it (LSP's
// gemini.prompt) or that runs something other than a prompt in the turn
// (a rewind). It waits for a cancelled prompt of the session to end
// first, then, when dialog.MaxRunningSessions sessions are claimed, for
// one of them to end. The session stays in memory until End. The error
// is an *dialog.UnknownSessionError (no such live session, or closed or
// resumed again meanwhile), an *dialog.BusyError (a prompt is running),
// a *dialog.FullError (too many waiting already), ctx's (or
// context.Canceled: the turn was cancelled while it waited), or why a
// session of an agent made anew since its last turn could not continue
// in the new one.
func (h *Host[S]) Begin(ctx context.Context, id string) (*Claim[S], error) {
	l, ok := h.Lookup(id)
	if !ok {
		return nil, &dialog.UnknownSessionError{SessionID: id}
	}
	unpin, err := l.session.Pin()
	h.unpinOne(l) // the one Resume took for this prompt, if it did
	if err != nil {
		return nil, err
	}
	turn, err := h.turns.Begin(ctx, id)
	if err != nil {
		unpin()
		return nil, err
	}
	c := &Claim[S]{h: h, live: l, turn: turn, built: l.build.hold(), unpins: []func(){unpin}}
	if now, ok := h.Lookup(id); !ok || now != l {
		// Closed or resumed again while it waited for the turn before.
		c.End()
		return nil, &dialog.UnknownSessionError{SessionID: id}
	}
	if err := c.start(); err != nil {
		c.End()
		return nil, err
	}
	return c, nil
}

// start makes the claimed session ready to run: in the agent made anew
// since its last turn, if one was, pinned there, and once it may run
// (waitToRun).
func (c *Claim[S]) start() error {
	// A session of an agent made anew since its last turn continues in
	// the new one.
	before := c.live
	if err := c.follow(); err != nil {
		return err
	}
	if c.live != before {
		unpin, err := c.live.session.Pin()
		if err != nil {
			return err
		}
		c.unpins = append(c.unpins, unpin)
	}
	if err := c.h.waitToRun(c.turn.Context()); err != nil {
		return err
	}
	c.running = true
	return nil
}

// waitToRun takes one of the dialog.MaxRunningSessions tokens of
// running, waiting for one (or for ctx) among at most
// dialog.MaxWaitingSessions claims; past them, a *dialog.FullError.
func (h *Host[S]) waitToRun(ctx context.Context) error {
	select {
	case h.running <- struct{}{}:
		return nil
	default:
	}
	if !h.joinWaiting() {
		return &dialog.FullError{}
	}
	defer h.leaveWaiting()
	select {
	case h.running <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// joinWaiting counts one more claim waiting to run, unless as many as
// may wait do.
func (h *Host[S]) joinWaiting() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting >= dialog.MaxWaitingSessions {
		return false
	}
	h.waiting++
	return true
}

func (h *Host[S]) leaveWaiting() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.waiting--
}

// NotBegun is the outcome of a prompt whose Begin failed with err.
func NotBegun(ctx context.Context, err error) Outcome {
	switch {
	case ctx.Err() != nil:
		return outcomeOf(dialog.PromptResult{StopReason: dialog.StopCancelled, Err: ctx.Err()}, nil)
	case errors.Is(err, context.Canceled): // cancelled while it waited to run
		return outcomeOf(dialog.PromptResult{StopReason: dialog.StopCancelled, Err: err}, nil)
	case IsUnknownSession(err):
		return Outcome{Ending: Unknown, Err: err}
	case errors.Is(err, dialog.ErrBusy):
		return Outcome{Ending: Busy, Err: err}
	}
	return Outcome{Ending: Refused, Err: err}
}

// Live is the session the claim is of.
func (c *Claim[S]) Live() *Live[S] { return c.live }

// Context is the claim's: done when it is cancelled or ended.
func (c *Claim[S]) Context() context.Context { return c.turn.Context() }

// Cancel asks what runs in the claim to stop; End still ends it.
func (c *Claim[S]) Cancel() { c.turn.Cancel() }

// End frees the session for its next prompt; later calls do nothing.
func (c *Claim[S]) End() {
	c.once.Do(func() {
		if c.running {
			<-c.h.running
		}
		for _, unpin := range c.unpins {
			unpin()
		}
		c.turn.End()
		c.live.build.release(c.built)
	})
}

// Prompt runs in as the claim's prompt (see Host.Prompt), once: its
// events are shown through v, and its questions put through v.
func (c *Claim[S]) Prompt(in dialog.Input, v View) Outcome {
	h, l, tctx := c.h, c.live, c.turn.Context()
	h.Ready(tctx, l)
	res, err := c.turn.Run(Session{Agent: l.session, Built: l.built, Port: v, Trust: v, Unattended: h.cfg.Unattended}, in)
	return outcomeOf(res, err)
}

// RunShell runs command for the user in the claimed session as a
// run_shell_command call of the model's would run (agent.Session.RunCall):
// through the approval door, asked and shown through port, sandboxed,
// recorded in the history so the model is told what ran.
func (c *Claim[S]) RunShell(command, description string, port dialog.Port) (dialog.ToolResult, error) {
	args := map[string]any{"command": command, "description": description}
	return c.live.session.RunCall(c.turn.Context(), tools.ShellName, args, port)
}

// Rewind goes back to before prompt in the claim's session (see
// agent.Session.Rewind), as what runs in its turn: a changed file's
// conflict is asked and the revert landed through port, under the
// claim's context, so that Cancel stops it.
func (c *Claim[S]) Rewind(prompt int, mode dialog.RewindMode, port dialog.Port) (dialog.RewindResult, error) {
	return c.live.session.Rewind(c.turn.Context(), prompt, mode, port)
}

// ErrYoloRefused is SetMode's refusal of the yolo mode where settings'
// security.disableYoloMode is set, in Gemini CLI 0.61's words (its
// terminal's, as the mode is switched there).
var ErrYoloRefused = errors.New("You cannot enter YOLO mode since it is disabled in your settings.")

// UntrustedError is a mode SetMode refused because the folder is not
// trusted.
type UntrustedError struct {
	// Why is why the folder is not trusted.
	Why error
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("as in Gemini CLI, a folder that is not trusted runs in the default mode: %v", e.Why)
}

func (e *UntrustedError) Unwrap() error { return e.Why }

// SetMode changes what runs without asking in live session id, from its
// next call on, and saves it with the session so that it resumes in it
// (a session with nothing said yet is saved with its first prompt). A
// session whose build is its own (ACP's) sets the build's mode too,
// which is the session's alone; one of a shared build sets its own,
// until the build's mode is set anew. "" makes the session follow its
// build's mode again (headless: a mode chosen for the run wins over the
// one a resumed session saved). In a folder that is not trusted only
// default and plan may be chosen (an *UntrustedError); yolo not at all
// where security.disableYoloMode is set (ErrYoloRefused). A mode that
// could not be saved still holds: the error is only logged.
func (h *Host[S]) SetMode(ctx context.Context, id string, mode dialog.ApprovalMode) error {
	l, ok := h.Lookup(id)
	if !ok {
		return &dialog.UnknownSessionError{SessionID: id}
	}
	built := l.build.built()
	if mode == dialog.ApprovalYolo && built.Settings.Security.DisableYoloMode {
		return ErrYoloRefused
	}
	if why := built.NotTrusted(); why != nil && mode != "" && mode != dialog.ApprovalDefault && mode != dialog.ApprovalPlan {
		return &UntrustedError{Why: why}
	}
	if l.owns {
		built.Agent.SetApprovalMode(mode)
	}
	// The session's own choice too, which is saved with it.
	l.session.SetApprovalMode(mode)
	if err := l.session.SaveMode(ctx); err != nil && h.cfg.Logger != nil {
		// Only a restart before the next prompt, which saves the
		// session again, would lose it.
		h.cfg.Logger.Warn("saving the session's mode", zap.String("sessionId", id), zap.Error(err))
	}
	return nil
}

// SetModel makes model the one live session id's next request goes to,
// ending a fallback. The model is the build's: every session of a
// shared build switches with it (as /model set does), a session whose
// build is its own (ACP's) alone.
func (h *Host[S]) SetModel(id, model string) error {
	l, ok := h.Lookup(id)
	if !ok {
		return &dialog.UnknownSessionError{SessionID: id}
	}
	l.build.built().SetModel(context.Background(), model)
	return nil
}

// Cancel asks session id's running prompt to stop; false when none runs.
func (h *Host[S]) Cancel(id string) bool { return h.turns.Cancel(id) }

// CancelAll asks every running prompt to stop and says how many there
// were.
func (h *Host[S]) CancelAll() int { return h.turns.CancelAll() }

// Close ends live session id: its prompt is cancelled, and its build
// closed when it is its own. It does not wait for the prompt to end;
// CloseAndWait does. false when it is not live.
func (h *Host[S]) Close(id string) bool {
	h.mu.Lock()
	l, ok := h.live[id]
	delete(h.live, id)
	if ok {
		l.unpinAll()
	}
	h.mu.Unlock()
	if !ok {
		return false
	}
	h.turns.Cancel(id)
	if l.owns {
		l.build.Close()
	}
	return true
}

// CloseAndWait is Close, then waits, within ctx, for the cancelled prompt
// to end (and save).
func (h *Host[S]) CloseAndWait(ctx context.Context, id string) bool {
	if !h.Close(id) {
		return false
	}
	h.turns.Stop(ctx, id)
	return true
}

// CloseAll ends every live session, when the front end's connection ends.
func (h *Host[S]) CloseAll() {
	h.mu.Lock()
	all := h.live
	h.live = map[string]*Live[S]{}
	for _, l := range all {
		l.unpinAll()
	}
	h.mu.Unlock()
	for id, l := range all {
		h.turns.Cancel(id)
		if l.owns {
			l.build.Close()
		}
	}
}
