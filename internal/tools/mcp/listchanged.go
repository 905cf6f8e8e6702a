package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// toolsChanged is the notification a server sends when its tools change.
const toolsChanged = "notifications/tools/list_changed"

// relisting is a server's announcements that its tools changed, and the
// listings made since, as Gemini CLI 0.61's refreshTools coalesces them:
// announcements that come while a listing runs cause one more.
type relisting struct {
	poke chan struct{} // a listing is wanted; holds one

	mu        sync.Mutex
	announced uint64        // announcements seen on the wire
	listed    uint64        // announcements the tools now reflect
	progress  chan struct{} // closed, and replaced, when listed grows
}

func newRelisting() *relisting {
	return &relisting{poke: make(chan struct{}, 1), progress: make(chan struct{})}
}

// announce counts an announcement read off the wire, in the order the
// server wrote it: before the answer to a call during which it came.
func (r *relisting) announce() {
	r.mu.Lock()
	r.announced++
	r.mu.Unlock()
	r.want()
}

// want asks for a listing.
func (r *relisting) want() {
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

// pending is the count of announcements a listing starting now reflects.
func (r *relisting) pending() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.announced
}

// done records that the tools reflect the first n announcements.
func (r *relisting) done(n uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.listed {
		r.listed = n
		close(r.progress)
		r.progress = make(chan struct{})
	}
}

// await returns once the tools reflect every announcement seen so far,
// or when ctx or stop ends.
func (r *relisting) await(ctx context.Context, stop <-chan struct{}) {
	for {
		r.mu.Lock()
		caughtUp, progress := r.listed >= r.announced, r.progress
		r.mu.Unlock()
		if caughtUp {
			return
		}
		select {
		case <-progress:
		case <-ctx.Done():
			return
		case <-stop:
			return
		}
	}
}

// watchingTransport tells the relisting of every tools/list_changed it
// reads, as it reads it: a call that returns after it waits for the new
// listing; and it reads a tools/call's answer for a task (taskCalls).
// Only for stdio: the SDK's HTTP connections must not be wrapped (it asks
// them for more than Connection); taskTransport reads those.
type watchingTransport struct {
	sdk.Transport
	relisting *relisting
}

func (t watchingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return watchingConnection{conn, t.relisting, &taskCalls{}}, nil
}

type watchingConnection struct {
	sdk.Connection
	relisting *relisting
	calls     *taskCalls
}

func (c watchingConnection) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && req.Method == toolsChanged {
		c.relisting.announce()
	}
	if err == nil {
		msg = c.calls.received(msg)
	}
	return msg, err
}

// relist lists the tools of s again each time it says they changed, and
// when the listing's ttlMs has run out (ttl, then each new listing's),
// until stop is closed, and offers the new list in place of the old. A
// listing that fails leaves the old tools, with a warning, and is tried
// again when the ttl runs out once more.
func (m *Manager) relist(s *server, session *sdk.ClientSession, ttl time.Duration, stop <-chan struct{}) {
	defer m.wg.Done()
	expiry := time.NewTimer(ttl)
	defer expiry.Stop()
	if ttl <= 0 {
		expiry.Stop()
	}
	for {
		select {
		case <-stop:
			return
		case <-s.relisting.poke:
		case <-expiry.C:
		}
		n := s.relisting.pending()
		listed, err := s.listTools(s.ctx, session)
		if err != nil {
			if s.ctx.Err() == nil && !s.isDead() {
				m.log.Warn("MCP server "+s.alias+" said its tools changed, or their listing ran out, and listing them again failed; its tools are as they were",
					zap.String("server", s.alias), zap.String("error", s.explain(err)))
			}
		} else {
			m.replace(s, session, listed.tools)
			ttl = listed.ttl
		}
		s.relisting.done(n)
		expiry.Stop()
		if ttl > 0 {
			expiry.Reset(ttl)
		}
	}
}

// relistResources lists the resources of s again each time it says they
// changed, until stop is closed, as 0.61 does on
// notifications/resources/list_changed.
func (m *Manager) relistResources(s *server, session *sdk.ClientSession, changed <-chan struct{}, stop <-chan struct{}) {
	defer m.wg.Done()
	for {
		select {
		case <-stop:
			return
		case <-changed:
		}
		resources, err := s.resources(s.ctx, session)
		if err != nil {
			if s.ctx.Err() == nil && !s.isDead() {
				m.log.Warn("MCP server "+s.alias+" said its resources changed, and listing them again failed; they are as they were",
					zap.String("server", s.alias), zap.String("error", s.explain(err)))
			}
			continue
		}
		m.mu.Lock()
		if l, ok := m.live[s.alias]; ok && l.server == s {
			l.resources = resources
			m.live[s.alias] = l
		}
		m.mu.Unlock()
	}
}
