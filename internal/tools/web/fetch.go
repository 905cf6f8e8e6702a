package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Defaults, as Gemini CLI's web_fetch uses them.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 10 << 20
	maxRedirects    = 10
	userAgent       = "Mozilla/5.0 (compatible; gemini-ls/1.0; +https://github.com/gemini-ls/gemini-ls)"
)

// Options configure a Fetcher. The zero value fetches from the real
// network with the environment's proxy settings.
type Options struct {
	// Resolver looks names up; net.DefaultResolver when nil.
	Resolver Resolver
	// Dial opens every connection, to a checked address or to the proxy;
	// a net.Dialer's when nil. Tests point it at local servers.
	Dial Dialer
	// Proxy picks the proxy for a request; http.ProxyFromEnvironment
	// when nil.
	Proxy func(*http.Request) (*url.URL, error)
	// Timeout bounds one fetch; DefaultTimeout when zero.
	Timeout time.Duration
	// MaxBytes bounds a response body; DefaultMaxBytes when zero.
	MaxBytes int64
}

// Fetcher fetches pages under the package's address rules. It is safe for
// concurrent use.
type Fetcher struct {
	client   *http.Client
	resolver Resolver
	dial     Dialer
	proxy    func(*http.Request) (*url.URL, error)
	timeout  time.Duration
	maxBytes int64

	// proxies are the addresses the proxy function has named: the dialer
	// connects to them unchecked, as they are the user's configuration.
	proxies sync.Map // host:port → struct{}

	// closed: Close was called; a fetch ending after it lets go of its
	// connection too.
	closed atomic.Bool
}

// NewFetcher returns a Fetcher configured by opts.
func NewFetcher(opts Options) *Fetcher {
	f := &Fetcher{
		resolver: opts.Resolver,
		dial:     opts.Dial,
		proxy:    opts.Proxy,
		timeout:  opts.Timeout,
		maxBytes: opts.MaxBytes,
	}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	if f.dial == nil {
		f.dial = (&net.Dialer{Timeout: DefaultTimeout}).DialContext
	}
	if f.proxy == nil {
		f.proxy = http.ProxyFromEnvironment
	}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	if f.maxBytes <= 0 {
		f.maxBytes = DefaultMaxBytes
	}
	transport := &http.Transport{
		Proxy:             f.proxyFor,
		DialContext:       f.dialContext,
		ForceAttemptHTTP2: true,
		MaxIdleConns:      10,
		IdleConnTimeout:   30 * time.Second,
		// Fetch's context bounds each fetch as a whole.
	}
	f.client = &http.Client{Transport: transport, CheckRedirect: checkRedirect}
	return f
}

// Close lets go of the connections the fetcher keeps open between
// fetches (for 30 s otherwise), and of those of the fetches still
// running once each ends: what a session's tools hold when it closes.
// A fetch after Close still works; its connection is not kept.
func (f *Fetcher) Close() {
	if f == nil {
		return
	}
	f.closed.Store(true)
	f.client.CloseIdleConnections()
}

// proxyFor runs before every request the transport sends, redirects
// included: the target is checked here whether or not a proxy carries
// it, so a proxied request never leaves for a forbidden host.
func (f *Fetcher) proxyFor(req *http.Request) (*url.URL, error) {
	if _, err := checkHost(req.Context(), f.resolver, req.URL.Hostname()); err != nil {
		return nil, err
	}
	p, err := f.proxy(req)
	if err != nil || p == nil {
		return p, err
	}
	f.proxies.Store(canonicalAddr(p), struct{}{})
	return p, nil
}

// dialContext connects to a proxy as configured, and to anything else only
// at an address it has resolved and checked itself. A target that happens
// to share a proxy's address was already checked by proxyFor.
func (f *Fetcher) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if _, ok := f.proxies.Load(address); ok {
		return f.dial(ctx, network, address)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := checkHost(ctx, f.resolver, host)
	if err != nil {
		return nil, err
	}
	portNum, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", port)
	}
	var errs []error
	for _, addr := range addrs {
		conn, err := f.dial(ctx, network, netip.AddrPortFrom(addr, uint16(portNum)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("redirect to %s refused: only http and https are fetched", req.URL.Redacted())
	}
	return nil
}

// canonicalAddr is u's host:port, with the scheme's default port.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Page is a fetched page.
type Page struct {
	// URL is where the content came from, after redirects.
	URL string
	// Title is the HTML title, if any.
	Title string
	// ContentType is the response's media type.
	ContentType string
	// Text is the content: Markdown for HTML, the body for other text.
	Text string
}

// Fetch gets rawURL and returns its content as text. It fails on a
// forbidden address, a status of 400 or more, a body over the size cap, or
// the time cap.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Page{}, fmt.Errorf("malformed URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Page{}, fmt.Errorf("only http and https are fetched, not %q", u.Scheme)
	}
	// Deferred first, so run last: after the body's close has put the
	// connection back among the idle ones.
	defer func() {
		if f.closed.Load() {
			f.client.CloseIdleConnections()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return Page{}, fmt.Errorf("no answer within %s", f.timeout)
		}
		var blocked *BlockedError
		if errors.As(err, &blocked) {
			return Page{}, blocked
		}
		return Page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return Page{}, fmt.Errorf("request failed with status code %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if resp.ContentLength > f.maxBytes {
		return Page{}, fmt.Errorf("content exceeds size limit of %d bytes", f.maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return Page{}, fmt.Errorf("the body did not arrive within %s", f.timeout)
		}
		return Page{}, fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > f.maxBytes {
		return Page{}, fmt.Errorf("content exceeds size limit of %d bytes", f.maxBytes)
	}
	page := Page{URL: resp.Request.URL.String()}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	page.ContentType = mediaType
	text := decodeText(body, resp.Header.Get("Content-Type"))
	// As Gemini CLI does, a response without a type is taken for HTML.
	if mediaType == "" || mediaType == "text/html" || mediaType == "application/xhtml+xml" {
		page.Title, page.Text, err = toMarkdown(text, page.URL)
		if err != nil {
			return Page{}, fmt.Errorf("converting HTML to Markdown: %w", err)
		}
		return page, nil
	}
	page.Text = text
	return page, nil
}

// toMarkdown converts an HTML document, links made absolute against base,
// its work bounded (bound.go): the Markdown of a page cut says so first.
func toMarkdown(doc, base string) (title, markdown string, err error) {
	bounded := boundHTML(doc)
	root, err := html.Parse(strings.NewReader(bounded.doc))
	if err != nil {
		return "", "", err
	}
	restoreNames(root)
	title = findTitle(root)
	md, err := htmltomarkdown.ConvertNode(root, converter.WithDomain(base))
	if err != nil {
		return "", "", err
	}
	return title, bounded.cutNote() + string(md), nil
}

// findTitle is the text of the document's first <title>, spaces collapsed.
func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// decodeText is body as UTF-8, decoded from the charset the Content-Type
// or an HTML page's <meta> names; bytes that do not decode become U+FFFD.
func decodeText(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err == nil {
		if decoded, err := io.ReadAll(r); err == nil {
			body = decoded
		}
	}
	return strings.ToValidUTF8(string(body), string(utf8.RuneError))
}
