package auth

import (
	"crypto/x509"
	"net/http"
	"sync"

	gauth "cloud.google.com/go/auth"
	"google.golang.org/genai"
)

// Transports are the model transports of one front end, one per
// credential: every generator made with WithTransports and the same
// credential sends its requests through one transport, so that its
// connections are reused from one agent to the next (an ACP client's
// sessions each build their own), and the last generator to close
// closes the idle ones, which would otherwise stay open until the
// transport's idle timeout (90 s). The zero value is not usable; make
// one with NewTransports. Safe for concurrent use.
type Transports struct {
	mu     sync.Mutex
	shared map[transportKey]*sharedTransport
}

// NewTransports is an empty set of transports.
func NewTransports() *Transports {
	return &Transports{shared: map[transportKey]*sharedTransport{}}
}

// sharedTransport is one transport and the generators holding it.
type sharedTransport struct {
	rt    http.RoundTripper
	base  *http.Transport // under rt: the one holding the connections
	users int
}

// transportKey is what makes a credential, as a transport is shared: the
// auth type and every field that picks the key, token or account the
// requests carry (API key, Vertex project and location, the ADC file,
// the Google login's file and Code Assist project, a credentials
// object given), where they go (base URL, endpoint, token URL), and the
// proxy they go through.
//
// Sharing a transport cannot hand one credential's requests another's:
// the transport holds connections and no credential; each generator adds
// its own key or token to each request above it (genai's headers, Code
// Assist's token source, the Vertex AI client's). The key is the whole
// credential anyway so that one credential's connections never carry
// another's requests (a proxy or server may tie state to a connection),
// and two front ends' keys never meet: each has its own Transports.
type transportKey struct {
	authType        string
	backend         genai.Backend
	apiKey          string
	project         string
	location        string
	baseURL         string
	credentials     *gauth.Credentials
	credentialsFile string
	codeAssist      CodeAssist
	proxy           string
	rootCAs         *x509.CertPool
}

// keyOf is a's transportKey; ok is false when a cannot be keyed: its
// proxy is a function Resolve did not make, which nothing can compare.
func keyOf(a Auth) (transportKey, bool) {
	if a.Proxy != nil && a.proxyKey == "" {
		return transportKey{}, false
	}
	return transportKey{
		authType:        a.Type,
		backend:         a.Config.Backend,
		apiKey:          a.Config.APIKey,
		project:         a.Config.Project,
		location:        a.Config.Location,
		baseURL:         a.Config.HTTPOptions.BaseURL,
		credentials:     a.Config.Credentials,
		credentialsFile: a.CredentialsFile,
		codeAssist:      a.CodeAssist,
		proxy:           a.proxyKey,
		rootCAs:         a.rootCAs,
	}, true
}

// acquire is the transport of a's credential, shared with the other
// generators of it, and release, which lets go of it once (later calls do
// nothing). The last release of a transport closes its idle connections
// (one still in use stays until it has been idle for the idle timeout).
// A nil p, or an a that cannot be keyed, gets a transport of
// its own, closed the same way.
func (p *Transports) acquire(a Auth) (rt http.RoundTripper, release func()) {
	key, ok := keyOf(a)
	if p == nil || !ok {
		rt, base := newTransport(a)
		return rt, sync.OnceFunc(base.CloseIdleConnections)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.shared[key]
	if t == nil {
		t = &sharedTransport{}
		t.rt, t.base = newTransport(a)
		p.shared[key] = t
	}
	t.users++
	return t.rt, sync.OnceFunc(func() { p.release(key, t) })
}

// release is one generator letting go of t, shared under key.
func (p *Transports) release(key transportKey, t *sharedTransport) {
	p.mu.Lock()
	t.users--
	last := t.users == 0
	if last {
		delete(p.shared, key)
	}
	p.mu.Unlock()
	if last {
		t.base.CloseIdleConnections()
	}
}
