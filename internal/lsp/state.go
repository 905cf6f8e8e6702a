package lsp

import (
	"errors"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The server's state is split by concern, each part behind its own lock,
// so that no lock is held across a call into another part or out to the
// client. The read loop writes most of it (initialize, shutdown); handlers
// released from the loop, the agent's callbacks (edits, confirmations) and
// the end of Serve read it from other goroutines.

// lifecycle is where the connection is in LSP's lifecycle.
type lifecycle struct {
	mu          sync.Mutex
	initialized bool // initialize succeeded
	shutdown    bool // shutdown came
}

func (l *lifecycle) phase() phase {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.shutdown:
		return shutDown
	case l.initialized:
		return serving
	}
	return uninitialized
}

func (l *lifecycle) markInitialized() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initialized = true
}

func (l *lifecycle) markShutdown() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shutdown = true
}

// exitStatus is the process's: 0 after shutdown, 1 otherwise.
func (l *lifecycle) exitStatus() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shutdown {
		return 0
	}
	return 1
}

// negotiated holds the client's features, concluded once at initialize
// and read by every handler and callback after.
type negotiated struct {
	mu       sync.Mutex
	features clientFeatures
}

func (n *negotiated) set(f clientFeatures) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.features = f
}

func (n *negotiated) get() clientFeatures {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.features
}

// agentState is what initialize sets up: the workspace first, then the
// one build every session shares (the agent with its tools), or why there
// is none. Serve's end reads build to close it, whatever initialize got
// to. The host makes the agent anew under the build (a sign-in, a change
// of the folders' trust): the handle stays.
type agentState struct {
	mu    sync.Mutex
	ws    *workspace.Workspace
	build *conversation.Build // the agent and its tools; their MCP servers end with the connection
	err   error               // why there is no build; the rest of the server still serves
	// place is what initialize built the agent for, which agents in
	// worktrees are built for too (agents.go); placed says it is set.
	place  conversation.Place
	placed bool
}

// setPlace records what initialize builds the agent for.
func (a *agentState) setPlace(p conversation.Place) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.place, a.placed = p, true
}

// placeTemplate is a copy of what initialize built the agent for.
func (a *agentState) placeTemplate() (conversation.Place, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.place, a.placed
}

func (a *agentState) setWorkspace(ws *workspace.Workspace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ws = ws
}

// set records what the build made: b, or why there is none (err).
func (a *agentState) set(b *conversation.Build, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.build, a.err = b, err
}

// workspace is nil before initialize.
func (a *agentState) workspace() *workspace.Workspace {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ws
}

// setup is nil when the agent could not be set up (or not yet).
func (a *agentState) setup() *conversation.Build {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.build
}

// runner returns the build prompts run in, or RequestFailed saying why
// they cannot run: no build, or no credentials (which a sign-in brings).
func (a *agentState) runner() (*conversation.Build, error) {
	b, err := a.made()
	if err == nil {
		err = b.AuthErr()
	}
	if err != nil {
		return nil, requestFailed(err)
	}
	return b, nil
}

// made is the build, or why there is none.
func (a *agentState) made() (*conversation.Build, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.build == nil && a.err == nil {
		return nil, errors.New("the server is not initialized")
	}
	return a.build, a.err
}

// withoutModel returns the build when the only thing missing is the
// model's credentials: its built-ins that need no model still run.
func (a *agentState) withoutModel() *conversation.Build {
	b, err := a.made()
	if err != nil || b == nil || b.AuthErr() == nil {
		return nil
	}
	return b
}

// asking remembers what the client showed of its means to ask the user.
type asking struct {
	mu        sync.Mutex
	cannotAsk bool // the client answered showMessageRequest with MethodNotFound
	told      bool // the user was shown how to allow edits
}

func (a *asking) canAsk() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.cannotAsk
}

func (a *asking) markCannotAsk() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cannotAsk = true
}

// firstTelling records that the user is told how to allow edits and
// reports whether it is the first time.
func (a *asking) firstTelling() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	first := !a.told
	a.told = true
	return first
}
