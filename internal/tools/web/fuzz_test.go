package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzForbidden: an IPv4 address is refused exactly when it lies in a
// range no fetch may reach (an independent list of them), and each IPv6
// form that leads back to a refused IPv4 address (mapped, IPv4-compatible,
// NAT64, 6to4) is refused too, with or without a zone.
//
//	go test -run '^$' -fuzz FuzzForbidden ./internal/tools/web/
func FuzzForbidden(f *testing.F) {
	for _, a := range []string{"8.8.8.8", "127.0.0.1", "10.1.2.3", "172.31.255.255", "172.32.0.0", "169.254.169.254", "100.64.0.1", "100.128.0.0", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.0.8", "198.19.1.1", "93.184.215.14"} {
		b := netip.MustParseAddr(a).As4()
		f.Add(b[0], b[1], b[2], b[3], uint16(1), "eth0")
	}
	refused := []netip.Prefix{}
	for _, p := range []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4"} {
		refused = append(refused, netip.MustParsePrefix(p))
	}
	f.Fuzz(func(t *testing.T, a, b, c, d byte, suffix uint16, zone string) {
		v4 := netip.AddrFrom4([4]byte{a, b, c, d})
		inRefused := false
		for _, p := range refused {
			inRefused = inRefused || p.Contains(v4)
		}
		if why := forbidden(v4); (why != "") != inRefused {
			t.Fatalf("forbidden(%s) = %q", v4, why)
		}
		if !inRefused {
			return
		}
		forms := []netip.Addr{
			netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: a, 13: b, 14: c, 15: d}),                                    // ::ffff:a.b.c.d
			netip.AddrFrom16([16]byte{12: a, 13: b, 14: c, 15: d}),                                                        // ::a.b.c.d
			netip.AddrFrom16([16]byte{0: 0, 1: 0x64, 2: 0xff, 3: 0x9b, 12: a, 13: b, 14: c, 15: d}),                       // 64:ff9b::a.b.c.d
			netip.AddrFrom16([16]byte{0: 0x20, 1: 0x02, 2: a, 3: b, 4: c, 5: d, 14: byte(suffix >> 8), 15: byte(suffix)}), // 2002:abcd::
		}
		for _, addr := range forms {
			if addr.Is6() && zone != "" && !strings.ContainsAny(zone, "%") {
				addr = addr.WithZone(zone)
			}
			if forbidden(addr) == "" {
				t.Fatalf("forbidden(%s) = \"\", yet it leads to %s", addr, v4)
			}
		}
	})
}

// dialLog records what a Fetcher dials, and connects nowhere.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

var errNoDial = errors.New("no connection in a fuzz test")

func (l *dialLog) dial(_ context.Context, _, address string) (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addrs = append(l.addrs, address)
	return nil, errNoDial
}

// FuzzFetchHost: whatever URL the model gives, a fetch dials only
// addresses it checked: never a private, loopback or otherwise refused
// one, whether the host is a name, an IP literal in any spelling the URL
// parser takes, or bracketed with a zone.
//
//	go test -run '^$' -fuzz FuzzFetchHost ./internal/tools/web/
func FuzzFetchHost(f *testing.F) {
	for _, u := range []string{
		"http://public.test/", "https://private.test:8443/x", "http://127.0.0.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]:80/",
		"http://[fe80::1%25eth0]/", "http://localhost./", "http://a.localhost/", "http://0x7f.1/", "http://2130706433/", "http://127.1/",
		"http://[64:ff9b::a00:1]/", "http://[2002:a9fe:a9fe::]/", "http://public.test@127.0.0.1/", "http://127.0.0.1#@public.test/",
		"http://PUBLIC.TEST/", "http://public.test.:80/", "http://[::]/", "http://0/", "http://%31%32%37.0.0.1/",
	} {
		f.Add(u)
	}
	log := &dialLog{}
	fetcher := NewFetcher(Options{
		Resolver: fakeResolver{
			"public.test":  {publicIP},
			"private.test": {netip.MustParseAddr("10.0.0.1")},
			"mixed.test":   {publicIP, netip.MustParseAddr("::1")},
		},
		Dial:    log.dial,
		Proxy:   func(*http.Request) (*url.URL, error) { return nil, nil },
		Timeout: 5 * time.Second,
	})
	f.Fuzz(func(t *testing.T, rawURL string) {
		log.mu.Lock()
		log.addrs = nil
		log.mu.Unlock()
		fetcher.Fetch(context.Background(), rawURL)
		log.mu.Lock()
		defer log.mu.Unlock()
		for _, a := range log.addrs {
			ap, err := netip.ParseAddrPort(a)
			if err != nil {
				t.Fatalf("Fetch(%q) dialled %q, not an address it resolved", rawURL, a)
			}
			if why := forbidden(ap.Addr()); why != "" {
				t.Fatalf("Fetch(%q) dialled %s, a %s address", rawURL, a, why)
			}
		}
	})
}

// FuzzToMarkdown: any page converts, its title one line of valid UTF-8
// without spaces at its ends, and a paragraph's words reach the text.
//
//	go test -run '^$' -fuzz FuzzToMarkdown ./internal/tools/web/
func FuzzToMarkdown(f *testing.F) {
	for _, doc := range []string{
		"<html><head><title>  A \n title </title></head><body><h1>Hi</h1><p>text <a href=\"/x\">link</a></p></body></html>",
		"<title>t</title><script>alert(1)</script><style>p{}</style><p>x</p>",
		"<table><tr><td>a<td>b</table><ul><li>1<li>2</ul><pre><code>code</code></pre>",
		"<a href=\"javascript:alert(1)\">j</a><img src=\"data:image/png;base64,AAAA\" alt=\"i\">",
		strings.Repeat("<div>", 200) + "deep" + strings.Repeat("</div>", 200),
		"<p>\xff\xfe</p><title>\x00</title>",
	} {
		f.Add(doc, "https://example.com/a/b", "word42")
	}
	f.Fuzz(func(t *testing.T, doc, base, word string) {
		// As Fetch hands them over: decodeText's text, and the final
		// URL of a request made from a JSON string.
		doc, base = strings.ToValidUTF8(doc, "\uFFFD"), strings.ToValidUTF8(base, "\uFFFD")
		title, md, err := toMarkdown(doc, base)
		if err != nil {
			return
		}
		if strings.ContainsAny(title, "\n\r\t") || title != strings.TrimSpace(title) || !utf8.ValidString(title) || !utf8.ValidString(md) {
			t.Fatalf("toMarkdown(%q): title %q, text valid %v", doc, title, utf8.ValidString(md))
		}
		if word == "" || strings.ContainsFunc(word, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
			return
		}
		if _, md, err := toMarkdown("<html><body><p>"+word+"</p></body></html>", base); err != nil || !strings.Contains(md, word) {
			t.Fatalf("the paragraph %q became %q, %v", word, md, err)
		}
	})
}
