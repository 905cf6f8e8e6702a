package auth_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// connCounter is a fake model that counts the connections made to it and
// those closed.
type connCounter struct {
	*geminitest.Server
	URL string

	mu             sync.Mutex
	opened, closed int
}

func newConnCounter(t *testing.T, turns ...geminitest.Turn) *connCounter {
	t.Helper()
	c := &connCounter{Server: geminitest.NewTestServer(t, turns...)}
	srv := httptest.NewUnstartedServer(c.Server)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch st {
		case http.StateNew:
			c.opened++
		case http.StateClosed, http.StateHijacked:
			c.closed++
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *connCounter) counts() (opened, closed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened, c.closed
}

// waitClosed waits up to d for n connections to have closed, and returns
// how many had.
func (c *connCounter) waitClosed(n int, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		_, closed := c.counts()
		if closed >= n || time.Now().After(deadline) {
			return closed
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Generators of one credential made with the same Transports send their
// requests over one connection, each with its own key; another key gets
// a connection of its own, as do a generator made without Transports and
// one whose proxy was not Resolve's.
func TestGeneratorsShareATransportPerCredential(t *testing.T) {
	model := newConnCounter(t, geminitest.TextTurn("a"), geminitest.TextTurn("b"), geminitest.TextTurn("c"), geminitest.TextTurn("d"), geminitest.TextTurn("e"), geminitest.TextTurn("f"))
	vars := func(key string) map[string]string {
		return map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": model.URL}
	}
	pool := auth.NewTransports()
	for _, gen := range []auth.ContentGenerator{
		auth.NewGenerator(resolve(t, "", vars("key-1")), auth.WithTransports(pool)),
		auth.NewGenerator(resolve(t, "", vars("key-1")), auth.WithTransports(pool)),
	} {
		stream(t, gen)
	}
	if opened, _ := model.counts(); opened != 1 {
		t.Errorf("two generators of one credential opened %d connections, want 1", opened)
	}
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-2")), auth.WithTransports(pool)))
	if opened, _ := model.counts(); opened != 2 {
		t.Errorf("another key: %d connections in all, want 2", opened)
	}
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-1"))))
	if opened, _ := model.counts(); opened != 3 {
		t.Errorf("a generator without Transports: %d connections in all, want 3", opened)
	}
	// A proxy Resolve did not choose cannot be compared with another.
	ownProxy := auth.Auth{Type: auth.GeminiAPIKey, Proxy: http.ProxyFromEnvironment, Config: genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "key-1", HTTPOptions: genai.HTTPOptions{BaseURL: model.URL},
	}}
	stream(t, auth.NewGenerator(ownProxy, auth.WithTransports(pool)))
	stream(t, auth.NewGenerator(ownProxy, auth.WithTransports(pool)))
	if opened, _ := model.counts(); opened != 5 {
		t.Errorf("two of a proxy not Resolve's: %d connections in all, want 5", opened)
	}
	var keys []string
	for _, r := range model.Requests() {
		keys = append(keys, r.APIKey)
	}
	if want := []string{"key-1", "key-1", "key-2", "key-1", "key-1", "key-1"}; !slices.Equal(keys, want) {
		t.Errorf("the requests carried keys %q, want %q", keys, want)
	}
}

// The last generator of a shared transport to close closes its idle
// connection at once; one closing while another still holds it leaves it
// open. A generator's own transport closes with it.
func TestClosingTheLastGeneratorClosesItsConnections(t *testing.T) {
	model := newConnCounter(t, geminitest.TextTurn("a"), geminitest.TextTurn("b"), geminitest.TextTurn("c"))
	a := resolve(t, "", map[string]string{"GEMINI_API_KEY": "key-1", "GOOGLE_GEMINI_BASE_URL": model.URL})
	pool := auth.NewTransports()
	first := auth.NewGenerator(a, auth.WithTransports(pool))
	second := auth.NewGenerator(a, auth.WithTransports(pool))
	stream(t, first)
	stream(t, second)
	auth.CloseGenerator(first)
	if closed := model.waitClosed(1, 200*time.Millisecond); closed != 0 {
		t.Fatalf("%d connections closed while a generator still holds the transport", closed)
	}
	auth.CloseGenerator(second)
	if closed := model.waitClosed(1, 5*time.Second); closed != 1 {
		t.Errorf("%d connections closed after the last generator closed, want 1", closed)
	}

	alone := auth.NewGenerator(a)
	stream(t, alone)
	auth.CloseGenerator(alone)
	if closed := model.waitClosed(2, 5*time.Second); closed != 2 {
		t.Errorf("%d connections closed after the generator of its own transport closed, want 2", closed)
	}
}
