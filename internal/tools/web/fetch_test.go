package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// publicIP stands for a host on the internet; the test dialer sends it to
// a local server. Every other address is dialled to the "private" server,
// so a check that is missing shows up as a request recorded there.
var publicIP = netip.MustParseAddr("93.184.215.14")

type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// recorder is a server that counts what reaches it.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "host path"
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Host+" "+r.URL.String())
		rec.mu.Unlock()
		fmt.Fprint(w, "secret")
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.seen...)
}

type testNet struct {
	private *recorder
	proxy   *recorder
	public  *httptest.Server
	opts    Options
}

func newTestNet(t *testing.T) *testNet {
	n := &testNet{private: newRecorder(t), proxy: newRecorder(t)}
	privateURL, _ := url.Parse(n.private.URL)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title> Hello
			page</title><script>var x = 1;</script></head><body><h1>Hello</h1><p>See <a href="/docs">the docs</a>.</p></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "<b>not html</b>")
	})
	mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, n.private.URL+"/secret", http.StatusFound)
	})
	mux.HandleFunc("/to-intranet", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://intranet.test:"+privateURL.Port()+"/secret", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/to-public", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/plain", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("x", 5000))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		for range 50 {
			fmt.Fprint(w, strings.Repeat("x", 100))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/latin1.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head><body><p>na\xefve</p></body></html>"))
	})
	mux.HandleFunc("/missing", http.NotFound)
	n.public = httptest.NewServer(mux)
	t.Cleanup(n.public.Close)

	publicAddr := n.public.Listener.Addr().String()
	privateAddr := n.private.Listener.Addr().String()
	proxyAddr := n.proxy.Listener.Addr().String()
	n.opts = Options{
		Resolver: fakeResolver{
			"public.test":   {publicIP},
			"intranet.test": {netip.MustParseAddr("10.1.2.3")},
			"mixed.test":    {publicIP, netip.MustParseAddr("192.168.1.1")},
			"localhost":     {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
			"proxy.test":    {netip.MustParseAddr("127.0.0.1")},
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			var d net.Dialer
			host, _, _ := net.SplitHostPort(address)
			switch {
			case host == publicIP.String():
				return d.DialContext(ctx, network, publicAddr)
			case address == "proxy.test:3128":
				return d.DialContext(ctx, network, proxyAddr)
			}
			return d.DialContext(ctx, network, privateAddr)
		},
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
	}
	return n
}

func TestFetchRefusesForbiddenAddresses(t *testing.T) {
	n := newTestNet(t)
	f := NewFetcher(n.opts)
	port := n.private.Listener.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct{ url, why string }{
		{n.private.URL + "/secret", "loopback"},
		{"http://127.0.0.1/", "loopback"},
		{"http://10.0.0.7/", "private"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{fmt.Sprintf("http://[::1]:%d/", port), "loopback"},
		{"http://[::ffff:127.0.0.1]/", "loopback"},
		{"http://[::ffff:10.0.0.1]/", "private"},
		{"http://0.0.0.0/", "unspecified"},
		{"http://[::]/", "unspecified"},
		{"http://[fe80::1]/", "link-local"},
		{"http://[fd00::1]/", "private"},
		{"http://100.64.0.1/", "shared (CGNAT)"},
		{"http://intranet.test/", "private"},
		{"http://localhost/", "loopback"},
		// Names the resolver does not know: loopback by RFC 6761.
		{"http://LocalHost./", "loopback"},
		{"http://app.localhost/", "loopback"},
		{"http://mixed.test/", "private"},
		{"http://public.test/to-loopback", "loopback"},
		{"http://public.test/to-intranet", "private"},
		{"http://public.test/to-metadata", "link-local"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tc.url)
			var blocked *BlockedError
			if !errors.As(err, &blocked) {
				t.Fatalf("Fetch(%s) = %v, want a BlockedError", tc.url, err)
			}
			if blocked.Why != tc.why {
				t.Errorf("Fetch(%s) refused as %q (%v), want %q", tc.url, blocked.Why, err, tc.why)
			}
		})
	}
	if got := n.private.requests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}

func TestFetchPublicPageAsMarkdown(t *testing.T) {
	n := newTestNet(t)
	page, err := NewFetcher(n.opts).Fetch(context.Background(), "http://public.test/")
	if err != nil {
		t.Fatal(err)
	}
	if page.Title != "Hello page" {
		t.Errorf("Title = %q, want %q", page.Title, "Hello page")
	}
	want := "# Hello\n\nSee [the docs](http://public.test/docs)."
	if page.Text != want {
		t.Errorf("Text = %q, want %q", page.Text, want)
	}
	if page.ContentType != "text/html" || page.URL != "http://public.test/" {
		t.Errorf("page = %+v", page)
	}

	page, err = NewFetcher(n.opts).Fetch(context.Background(), "http://public.test/to-public")
	if err != nil {
		t.Fatal(err)
	}
	if page.Text != "<b>not html</b>" || page.URL != "http://public.test/plain" {
		t.Errorf("after a redirect, plain text: %+v", page)
	}
}

func TestFetchDecodesCharsets(t *testing.T) {
	n := newTestNet(t)
	f := NewFetcher(n.opts)
	page, err := f.Fetch(context.Background(), "http://public.test/latin1")
	if err != nil || page.Text != "café" {
		t.Errorf("Latin-1 text = %q, %v; want café", page.Text, err)
	}
	page, err = f.Fetch(context.Background(), "http://public.test/latin1.html")
	if err != nil || page.Title != "Café" || page.Text != "naïve" {
		t.Errorf("windows-1252 page = %+v, %v", page, err)
	}
}

func TestFetchFailures(t *testing.T) {
	n := newTestNet(t)
	opts := n.opts
	opts.MaxBytes = 1000
	opts.Timeout = 300 * time.Millisecond
	f := NewFetcher(opts)
	for _, tc := range []struct{ url, want string }{
		{"http://public.test/big", "content exceeds size limit of 1000 bytes"},
		{"http://public.test/big-chunked", "content exceeds size limit of 1000 bytes"},
		{"http://public.test/slow", "no answer within 300ms"},
		{"http://public.test/missing", "request failed with status code 404 Not Found"},
		{"http://public.test/to-file", "redirect to file:///etc/passwd refused"},
		{"ftp://public.test/", `only http and https are fetched, not "ftp"`},
		{"http://nowhere.test/", "no such host"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := f.Fetch(ctx, tc.url)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch(%s) = %v, want an error containing %q", tc.url, err, tc.want)
			}
		})
	}
	if got := n.private.requests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}

func TestFetchThroughProxy(t *testing.T) {
	n := newTestNet(t)
	opts := n.opts
	opts.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.test:3128") }
	f := NewFetcher(opts)
	for _, target := range []string{"http://10.0.0.7/", "http://intranet.test/", "http://127.0.0.1/", "http://169.254.169.254/"} {
		var blocked *BlockedError
		if _, err := f.Fetch(context.Background(), target); !errors.As(err, &blocked) {
			t.Errorf("Fetch(%s) through the proxy = %v, want a BlockedError", target, err)
		}
	}
	if got := n.proxy.requests(); len(got) > 0 {
		t.Fatalf("refused targets were sent to the proxy: %q", got)
	}
	page, err := f.Fetch(context.Background(), "http://public.test/page")
	if err != nil {
		t.Fatal(err)
	}
	if got := n.proxy.requests(); len(got) != 1 || got[0] != "public.test http://public.test/page" {
		t.Errorf("proxy saw %q, want the one allowed request", got)
	}
	if page.Text != "secret" {
		t.Errorf("page through the proxy = %q", page.Text)
	}
	if got := n.private.requests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]string{
		"8.8.8.8":                "",
		"93.184.215.14":          "",
		"2606:4700:4700::1111":   "",
		"127.0.0.1":              "loopback",
		"127.255.0.9":            "loopback",
		"::1":                    "loopback",
		"10.255.255.255":         "private",
		"172.16.0.1":             "private",
		"192.168.0.1":            "private",
		"fc00::1":                "private",
		"169.254.169.254":        "link-local",
		"fe80::1%eth0":           "link-local",
		"0.0.0.0":                "unspecified",
		"0.1.2.3":                "unspecified",
		"::":                     "unspecified",
		"100.64.0.1":             "shared (CGNAT)",
		"100.127.255.254":        "shared (CGNAT)",
		"224.0.0.1":              "multicast",
		"255.255.255.255":        "reserved",
		"::ffff:169.254.169.254": "link-local",
		"::ffff:8.8.8.8":         "",
		"::ffff:100.64.0.1":      "shared (CGNAT)",
		"::ffff:0.0.0.0":         "unspecified",
		"::7f00:1":               "reserved",
		"64:ff9b::a00:1":         "private",
		"64:ff9b::808:808":       "",
		"2002:7f00:1::":          "loopback",
		"2002:a9fe:a9fe::1":      "link-local",
	} {
		if got := forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("forbidden(%s) = %q, want %q", addr, got, want)
		}
	}
}

// rebinding answers a public address once, then a private one, as a DNS
// rebinding attack does between a check and a connection.
type rebinding struct {
	fakeResolver
	mu    sync.Mutex
	calls int
}

func (r *rebinding) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host != "rebind.test" {
		return r.fakeResolver.LookupNetIP(ctx, network, host)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []netip.Addr{publicIP}, nil
	}
	return []netip.Addr{netip.MustParseAddr("10.9.9.9")}, nil
}

func TestFetchDialsOnlyWhatItChecked(t *testing.T) {
	n := newTestNet(t)
	opts := n.opts
	opts.Resolver = &rebinding{fakeResolver: n.opts.Resolver.(fakeResolver)}
	_, err := NewFetcher(opts).Fetch(context.Background(), "http://rebind.test/")
	var blocked *BlockedError
	if !errors.As(err, &blocked) || blocked.Addr.String() != "10.9.9.9" {
		t.Fatalf("Fetch of a rebinding name = %v, want it refused at 10.9.9.9", err)
	}
	if got := n.private.requests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}
