package tools

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

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
)

// genaiUtility is the Utility over the real genai client, against the
// fake Gemini server, so tests see the wire format; a request goes to the
// model named by its alias, so they see that too.
type genaiUtility struct{ client *genai.Client }

func newFakeUtility(t *testing.T, turns ...geminitest.Turn) (*geminitest.Server, Utility) {
	t.Helper()
	srv := geminitest.NewTestServer(t, turns...)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, genaiUtility{c}
}

func (u genaiUtility) GenerateContent(ctx context.Context, alias string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return u.client.Models.GenerateContent(ctx, alias, contents, config)
}

// fakePublicIP stands for a host on the internet; fakeWeb's dialer sends
// it to the public test server and every other address to the private
// one, so a missing check shows as a request the private one records.
var fakePublicIP = netip.MustParseAddr("93.184.215.14")

type fakeWeb struct {
	public  *httptest.Server
	private *httptest.Server
	mu      sync.Mutex
	reached []string // requests the private server got
	opts    web.Options
}

type mapResolver map[string][]netip.Addr

func (r mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := r[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func newFakeWeb(t *testing.T, public http.Handler) *fakeWeb {
	fw := &fakeWeb{public: httptest.NewServer(public)}
	t.Cleanup(fw.public.Close)
	fw.private = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw.mu.Lock()
		fw.reached = append(fw.reached, r.Host+r.URL.String())
		fw.mu.Unlock()
		fmt.Fprint(w, "<title>Secret</title>internal data")
	}))
	t.Cleanup(fw.private.Close)
	publicAddr, privateAddr := fw.public.Listener.Addr().String(), fw.private.Listener.Addr().String()
	fw.opts = web.Options{
		Resolver: mapResolver{
			"public.test":   {fakePublicIP},
			"intranet.test": {netip.MustParseAddr("10.20.30.40")},
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			var d net.Dialer
			if host, _, _ := net.SplitHostPort(address); host == fakePublicIP.String() {
				return d.DialContext(ctx, network, publicAddr)
			}
			return d.DialContext(ctx, network, privateAddr)
		},
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
	}
	return fw
}

// privateRequests are the requests that reached the private server.
func (fw *fakeWeb) privateRequests() []string {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return append([]string(nil), fw.reached...)
}

// requestText is the text of the first user content of a recorded request.
func requestText(req geminitest.Request) string {
	if len(req.Contents) == 0 {
		return ""
	}
	var s string
	for _, p := range req.Contents[0].Parts {
		s += p.Text
	}
	return s
}
