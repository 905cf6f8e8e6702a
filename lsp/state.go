package lsp

import (
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/setup"
	"github.com/gemini-ls/gemini-ls/workspace"
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
// is none. Serve's end reads built to close it, whatever initialize got
// to.
type agentState struct {
	mu    sync.Mutex
	ws    *workspace.Workspace
	built *setup.Built // the agent and its tools; their MCP servers end with the connection
	err   error        // why prompts cannot run; the rest of the server still serves
}

func (a *agentState) setWorkspace(ws *workspace.Workspace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ws = ws
}

// set records what the build made: b (nil when it failed) and why
// prompts cannot run (err, else b's AuthErr).
func (a *agentState) set(b *setup.Built, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		err = b.AuthErr
	}
	a.built, a.err = b, err
}

// replace puts b in place of the agent set up before (a rebuild), and
// returns what it replaced.
func (a *agentState) replace(b *setup.Built) (old *setup.Built) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old = a.built
	a.built, a.err = b, b.AuthErr
	return old
}

// workspace is nil before initialize.
func (a *agentState) workspace() *workspace.Workspace {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ws
}

// setup is nil when the agent could not be set up (or not yet).
func (a *agentState) setup() *setup.Built {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.built
}

// runner returns the build prompts run in, or RequestFailed saying why
// there is none.
func (a *agentState) runner() (*setup.Built, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, a.err.Error())
	}
	return a.built, nil
}

// withoutModel returns the build when the only thing missing is the
// model's credentials: its built-ins that need no model still run.
func (a *agentState) withoutModel() *setup.Built {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.built == nil || a.built.Agent == nil || a.err == nil || a.err != a.built.AuthErr {
		return nil
	}
	return a.built
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
