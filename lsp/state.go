package lsp

import "sync"

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
