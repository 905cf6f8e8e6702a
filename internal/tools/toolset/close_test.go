package toolset

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// publicResolver sends every name to one address taken for a public one.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// A closed set lets go of the connections web_fetch kept open (a closed
// ACP session's, which would otherwise outlive it by the idle timeout).
func TestCloseLetsGoOfWebFetchConnections(t *testing.T) {
	var mu sync.Mutex
	states := map[net.Conn]http.ConnState{}
	count := func(s http.ConnState) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, st := range states {
			if st == s {
				n++
			}
		}
		return n
	}
	waitFor := func(s http.ConnState) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); count(s) != 1; {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections %v, want 1", count(s), s)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the page")
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		states[c] = s
	}
	srv.Start()
	t.Cleanup(srv.Close)

	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := Build(t.Context(), Config{
		Tools: tools.Options{Workspace: ws, Utility: &countingUtility{}, Web: web.Options{
			Resolver: publicResolver{},
			Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, srv.Listener.Addr().String())
			},
			Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
		}},
		Getenv: func(string) string { return "" },
	})
	fetch, ok := set.Registry.Get(tools.WebFetchName)
	if !ok {
		t.Fatal("no web_fetch")
	}
	call, err := fetch.Build(map[string]any{"prompt": "Summarize http://example.test/page"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call.Execute(t.Context(), tools.CallInfo{}); err != nil {
		t.Fatal(err)
	}
	waitFor(http.StateIdle)
	set.Close()
	waitFor(http.StateClosed)
}
