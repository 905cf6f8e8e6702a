// Package origin keeps credentials with the origin they were meant for, as
// a browser's fetch does: once a redirect has taken a request to another
// origin (scheme, host and port), no credential goes with it.
//
// Go's http.Client has a rule of its own, looser: it drops Authorization
// (and Cookie) from a redirect only when the host name changes and is not
// a subdomain of the first, whatever the scheme and port, and it keeps
// every other header it copies, such as x-goog-api-key. A RoundTripper
// that adds a credential to each request (an OAuth transport) adds it to
// every redirected request too. This package holds the browser's rule
// under both.
//
// Nor does a credential go over plain http to another machine
// (CheckCleartext): https, or http to loopback only. RefuseCleartext
// holds a transport to it, whoever set the header.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// maxRedirects is how many redirects a client follows, Go's default.
const maxRedirects = 10

// credentialHeaders are the headers that carry credentials: Go's sensitive
// ones, the Google API key's, and the API key header A2A agents and many
// other services read (X-API-Key).
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "X-Goog-Api-Key", "X-Api-Key"}

// CredentialHeader reports whether the header name (any case) carries a
// credential, as this package counts them.
func CredentialHeader(name string) bool {
	return slices.Contains(credentialHeaders, http.CanonicalHeaderKey(name))
}

// Of is u's origin, "scheme://host:port": lower-case, the scheme's default
// port when u names none.
func Of(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Crossed reports whether req was brought by redirects that, at some hop,
// went to another origin than the hop before: from there on it carries no
// credential, even back at the first origin, as in a browser.
func Crossed(req *http.Request) bool {
	for r := req; r.Response != nil && r.Response.Request != nil; r = r.Response.Request {
		if Of(r.URL) != Of(r.Response.Request.URL) {
			return true
		}
	}
	return false
}

// DropCredentials wraps base: a request Crossed goes without the
// credential headers, whoever set them (the client copying the first
// request's, or a transport above adding its own to every request).
func DropCredentials(base http.RoundTripper) http.RoundTripper {
	return dropCredentials{base}
}

type dropCredentials struct{ base http.RoundTripper }

func (d dropCredentials) RoundTrip(req *http.Request) (*http.Response, error) {
	if Crossed(req) {
		req = req.Clone(req.Context())
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	return d.base.RoundTrip(req)
}

// ErrBodyElsewhere is a redirect refused because it would send the
// request's body to another origin.
var ErrBodyElsewhere = errors.New("a redirect would send the request's body to another origin")

// CheckRedirect is an http.Client's CheckRedirect for requests whose body
// is itself a credential (a token request's refresh token, code or signed
// assertion): a redirect that would send the body to another origin than
// the first request's (a 307 or 308) is refused, which a browser would
// follow. It follows at most 10, as Go does.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.Body != nil && req.Body != http.NoBody && Of(req.URL) != Of(via[0].URL) {
		return fmt.Errorf("%w (%s)", ErrBodyElsewhere, Of(req.URL))
	}
	return nil
}

// Client is a client over base that keeps credentials to their origin:
// headers (DropCredentials) and bodies (CheckRedirect).
func Client(base http.RoundTripper) *http.Client {
	return &http.Client{Transport: DropCredentials(base), CheckRedirect: CheckRedirect}
}

// ErrCleartext is a credential refused to an origin it would cross the
// network to unencrypted.
var ErrCleartext = errors.New("a credential sent there over plain http could be read on the way; gemini-ls sends credentials only over https, or over http to this machine (localhost, 127.0.0.1, ::1)")

// CheckCleartext refuses a credential to u when u is not https, unless it
// is http to this machine: a loopback address or "localhost", which no
// network carries, as a browser holds http://localhost a secure context
// and as the MCP authorization rules allow a localhost redirect. The
// error names the origin refused.
func CheckCleartext(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if Loopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%s: %w", Of(u), ErrCleartext)
}

// Loopback reports whether host names this machine: "localhost" or a
// loopback address. Other names are not resolved: what a name resolves
// to is not the name's to promise.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RefuseCleartext wraps base: a request carrying a credential header
// (CredentialHeader) to an origin CheckCleartext
// refuses fails with an error naming the header and the origin, and
// nothing is sent. A request without one passes: a metadata server's,
// or one a redirect brought from another origin once DropCredentials,
// above, took them off.
func RefuseCleartext(base http.RoundTripper) http.RoundTripper {
	return refuseCleartext{base}
}

type refuseCleartext struct{ base http.RoundTripper }

func (r refuseCleartext) RoundTrip(req *http.Request) (*http.Response, error) {
	for _, h := range credentialHeaders {
		if req.Header.Get(h) == "" {
			continue
		}
		if err := CheckCleartext(req.URL); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, fmt.Errorf("not sending the %s header to %w", h, err)
		}
		break
	}
	return r.base.RoundTrip(req)
}
