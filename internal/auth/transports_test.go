package auth_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// Generators of one credential made with the same Transports send their
// requests over one connection, each with its own key; another key gets
// a connection of its own, as do a generator made without Transports and
// one whose proxy was not Resolve's.
func TestGeneratorsShareATransportPerCredential(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("a"), geminitest.TextTurn("b"), geminitest.TextTurn("c"),
		geminitest.TextTurn("d"), geminitest.TextTurn("e"), geminitest.TextTurn("f"))
	vars := func(key string) map[string]string {
		return map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": model.URL}
	}
	opened := func() int { return model.Connections().Opened }
	pool := auth.NewTransports()
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-1")), auth.WithTransports(pool)))
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-1")), auth.WithTransports(pool)))
	if n := opened(); n != 1 {
		t.Errorf("two generators of one credential opened %d connections, want 1", n)
	}
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-2")), auth.WithTransports(pool)))
	if n := opened(); n != 2 {
		t.Errorf("another key: %d connections in all, want 2", n)
	}
	stream(t, auth.NewGenerator(resolve(t, "", vars("key-1"))))
	if n := opened(); n != 3 {
		t.Errorf("a generator without Transports: %d connections in all, want 3", n)
	}
	// A proxy Resolve did not choose cannot be compared with another.
	ownProxy := auth.Auth{Type: auth.GeminiAPIKey, Proxy: http.ProxyFromEnvironment, Config: genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "key-1", HTTPOptions: genai.HTTPOptions{BaseURL: model.URL},
	}}
	stream(t, auth.NewGenerator(ownProxy, auth.WithTransports(pool)))
	stream(t, auth.NewGenerator(ownProxy, auth.WithTransports(pool)))
	if n := opened(); n != 5 {
		t.Errorf("two of a proxy not Resolve's: %d connections in all, want 5", n)
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
	model := geminitest.NewTestServer(t, geminitest.TextTurn("a"), geminitest.TextTurn("b"), geminitest.TextTurn("c"))
	a := resolve(t, "", map[string]string{"GEMINI_API_KEY": "key-1", "GOOGLE_GEMINI_BASE_URL": model.URL})
	pool := auth.NewTransports()
	first := auth.NewGenerator(a, auth.WithTransports(pool))
	second := auth.NewGenerator(a, auth.WithTransports(pool))
	stream(t, first)
	stream(t, second)
	auth.CloseGenerator(first)
	if conns := waitClosed(t, model, 1, 200*time.Millisecond); conns.Closed != 0 {
		t.Fatalf("%d connections closed while a generator still holds the transport", conns.Closed)
	}
	auth.CloseGenerator(second)
	if conns := waitClosed(t, model, 1, 5*time.Second); conns.Closed != 1 {
		t.Errorf("%d connections closed after the last generator closed, want 1", conns.Closed)
	}

	alone := auth.NewGenerator(a)
	stream(t, alone)
	auth.CloseGenerator(alone)
	if conns := waitClosed(t, model, 2, 5*time.Second); conns.Closed != 2 {
		t.Errorf("%d connections closed after the generator of its own transport closed, want 2", conns.Closed)
	}
}

// waitClosed waits up to d for n of model's connections to have closed.
func waitClosed(t *testing.T, model *geminitest.Server, n int, d time.Duration) geminitest.Connections {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	conns, _ := model.WaitConnectionsClosed(ctx, n)
	return conns
}
