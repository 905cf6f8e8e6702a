package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// connStates is a server's connections by their last state.
type connStates struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState
}

func (c *connStates) track(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state[conn] = s
}

// count is how many connections are in state s.
func (c *connStates) count(s http.ConnState) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, st := range c.state {
		if st == s {
			n++
		}
	}
	return n
}

// waitFor waits until n connections are in state s.
func (c *connStates) waitFor(t *testing.T, s http.ConnState, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.count(s) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections %v, want %d", c.count(s), s, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close lets go of the connections kept between fetches, and of a
// running fetch's once it ends; the fetcher still fetches after it.
func TestCloseLetsGoOfTheConnections(t *testing.T) {
	conns := &connStates{state: map[net.Conn]http.ConnState{}}
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "page")
	}))
	srv.Config.ConnState = conns.track
	srv.Start()
	t.Cleanup(srv.Close)
	f := NewFetcher(Options{
		Resolver: fakeResolver{"public.test": {publicIP}},
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		},
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
	})
	ctx := context.Background()
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)

	slow := make(chan error, 1)
	go func() {
		_, err := f.Fetch(ctx, "http://public.test/slow")
		slow <- err
	}()
	conns.waitFor(t, http.StateActive, 1)
	if _, err := f.Fetch(ctx, "http://public.test/"); err != nil {
		t.Fatal(err)
	}
	conns.waitFor(t, http.StateIdle, 1) // a second one, kept for the next fetch
	f.Close()
	conns.waitFor(t, http.StateClosed, 1) // the idle one, at once
	unblock()
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	conns.waitFor(t, http.StateClosed, 2) // the running one, once it ended

	if _, err := f.Fetch(ctx, "http://public.test/"); err != nil {
		t.Fatalf("a fetch after Close: %v", err)
	}
	conns.waitFor(t, http.StateClosed, 3)
}
