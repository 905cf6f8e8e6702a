// Package origintest serves tests on another origin than httptest's: the
// second loopback address, 127.0.0.2, which Linux answers on (all of
// 127/8 is loopback there). A server a redirect sends a client to records
// what reached it.
package origintest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// NewServer starts handler on 127.0.0.2; it ends with the test. The test
// is skipped where that address cannot be listened on.
func NewServer(t testing.TB, handler http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// Redirect answers every request with a redirect of status code (a 307
// or 308 keeps the method and body; a 301, 302 or 303 makes a POST a GET
// without them) to the same path and query under base.
func Redirect(code int, base string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.TrimSuffix(base, "/")+r.URL.RequestURI(), code)
	})
}

// Recorder is a handler that keeps every request's headers, then hands
// the request on.
type Recorder struct {
	next    http.Handler
	mu      sync.Mutex
	headers []http.Header
}

// Record records what reaches next (an empty 200 when nil).
func Record(next http.Handler) *Recorder {
	if next == nil {
		next = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	}
	return &Recorder{next: next}
}

func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

// Headers are the headers of the requests received so far, in order.
func (r *Recorder) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.headers)
}

// Carried are the headers of any request received that hold secret in
// their value, "name: value" each.
func (r *Recorder) Carried(secret string) []string {
	var out []string
	for _, h := range r.Headers() {
		for name, values := range h {
			for _, v := range values {
				if strings.Contains(v, secret) {
					out = append(out, name+": "+v)
				}
			}
		}
	}
	return out
}
