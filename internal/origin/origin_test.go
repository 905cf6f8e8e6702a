package origin_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
)

func TestOf(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Example.COM/a?b":     "https://example.com:443",
		"https://example.com:443/":    "https://example.com:443",
		"http://example.com":          "http://example.com:80",
		"HTTP://127.0.0.1:8080/x":     "http://127.0.0.1:8080",
		"http://[::1]:9/":             "http://[::1]:9",
		"https://user:pw@example.com": "https://example.com:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin.Of(u); got != want {
			t.Errorf("Of(%s) = %s, want %s", raw, got, want)
		}
	}
}

// bearer adds a token to every request, as an OAuth transport does.
type bearer struct{ base http.RoundTripper }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer transport-token")
	return b.base.RoundTrip(req)
}

// get fetches path from first with a client over origin.Client, an OAuth
// transport above it, the API key and a cookie set on the request.
func get(t *testing.T, first string) {
	t.Helper()
	client := origin.Client(http.DefaultTransport)
	client.Transport = bearer{client.Transport}
	req, err := http.NewRequest(http.MethodGet, first, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Goog-Api-Key", "the-api-key")
	req.Header.Set("Cookie", "session=the-cookie")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

var secrets = []string{"transport-token", "the-api-key", "the-cookie"}

// A redirect to another origin, be it another host or the same host on
// another port (where Go's own rule keeps Authorization), brings no
// credential there, and none back on a redirect to the first origin; a
// redirect within the origin keeps them all.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	elsewhere := origintest.Record(nil)
	otherHost := origintest.NewServer(t, elsewhere)
	otherPort := httptest.NewServer(elsewhere)
	t.Cleanup(otherPort.Close)

	home := origintest.Record(nil)
	mux := http.NewServeMux()
	mux.Handle("/to-host/", http.StripPrefix("/to-host", origintest.Redirect(http.StatusTemporaryRedirect, otherHost.URL)))
	mux.Handle("/to-port/", http.StripPrefix("/to-port", origintest.Redirect(http.StatusTemporaryRedirect, otherPort.URL)))
	mux.Handle("/within/", http.StripPrefix("/within", origintest.Redirect(http.StatusTemporaryRedirect, "/landed")))
	mux.Handle("/", home)
	first := httptest.NewServer(mux)
	t.Cleanup(first.Close)
	// From the other port back home.
	bounce := http.NewServeMux()
	bounce.Handle("/back/", http.StripPrefix("/back", origintest.Redirect(http.StatusTemporaryRedirect, first.URL)))
	bounce.Handle("/", elsewhere)
	otherPort.Config.Handler = bounce

	get(t, first.URL+"/to-host/a")
	get(t, first.URL+"/to-port/b")
	if got := len(elsewhere.Headers()); got != 2 {
		t.Fatalf("the other origins saw %d requests, want 2", got)
	}
	for _, s := range secrets {
		if got := elsewhere.Carried(s); len(got) > 0 {
			t.Errorf("another origin received %v", got)
		}
	}

	get(t, first.URL+"/within/c")
	if got := home.Headers(); len(got) != 1 {
		t.Fatalf("home saw %d requests, want 1", len(got))
	}
	for _, s := range secrets {
		if got := home.Carried(s); len(got) != 1 {
			t.Errorf("a redirect within the origin kept %v of %q", got, s)
		}
	}

	get(t, first.URL+"/to-port/back/d")
	if got := home.Headers(); len(got) != 2 {
		t.Fatalf("home saw %d requests, want 2", len(got))
	}
	for _, s := range secrets {
		if got := home.Carried(s); len(got) != 1 {
			t.Errorf("back home after another origin: %q went along %d times in all, want only the first request's", s, len(got))
		}
	}
}

// A 307 or 308 that would send a body to another origin is refused; one
// within the origin, and a 302 (which drops the body), are followed.
func TestBodyNeverGoesToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	sink := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
	})
	elsewhere := origintest.NewServer(t, sink)
	mux := http.NewServeMux()
	mux.Handle("/307/", http.StripPrefix("/307", origintest.Redirect(http.StatusTemporaryRedirect, elsewhere.URL)))
	mux.Handle("/308/", http.StripPrefix("/308", origintest.Redirect(http.StatusPermanentRedirect, elsewhere.URL)))
	mux.Handle("/302/", http.StripPrefix("/302", origintest.Redirect(http.StatusFound, elsewhere.URL)))
	mux.Handle("/within/", http.StripPrefix("/within", origintest.Redirect(http.StatusTemporaryRedirect, "/landed")))
	mux.Handle("/", sink)
	first := httptest.NewServer(mux)
	t.Cleanup(first.Close)
	client := origin.Client(http.DefaultTransport)
	post := func(path string) error {
		resp, err := client.Post(first.URL+path, "application/x-www-form-urlencoded", strings.NewReader("refresh_token=secret"))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, path := range []string{"/307/token", "/308/token"} {
		if err := post(path); !errors.Is(err, origin.ErrBodyElsewhere) {
			t.Errorf("POST %s: %v, want the redirect refused", path, err)
		}
	}
	if err := post("/302/token"); err != nil {
		t.Errorf("POST /302/token: %v", err)
	}
	if err := post("/within/token"); err != nil {
		t.Errorf("POST /within/token: %v", err)
	}
	want := []string{"GET /token ", "POST /landed/token refresh_token=secret"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(bodies, "\n") != strings.Join(want, "\n") {
		t.Errorf("received:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(want, "\n"))
	}
}

// A credential goes over https anywhere, and over plain http only to this
// machine; the refusal names the origin refused.
func TestCheckCleartext(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://example.com/mcp":         true,
		"HTTPS://x.googleapis.com":        true,
		"http://127.0.0.1:8080/mcp":       true,
		"http://127.9.9.9/":               true,
		"http://[::1]:9/":                 true,
		"http://LocalHost:3000/":          true,
		"http://example.com/mcp":          false,
		"http://10.0.0.5/":                false,
		"http://169.254.169.254/":         false,
		"http://localhost.example.com/":   false,
		"http://127.0.0.1.nip.io/":        false,
		"ftp://127.0.0.1/":                false,
		"http://x.googleapis.com/v1/mcp":  false,
		"ws://localhost.attacker.example": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		err = origin.CheckCleartext(u)
		if (err == nil) != ok {
			t.Errorf("CheckCleartext(%s) = %v, want allowed %v", raw, err, ok)
		}
		if err != nil && (!errors.Is(err, origin.ErrCleartext) || !strings.Contains(err.Error(), origin.Of(u))) {
			t.Errorf("CheckCleartext(%s) = %v: want ErrCleartext naming %s", raw, err, origin.Of(u))
		}
	}
}

// recordingTransport answers 204 to every request it is given and counts
// them.
type recordingTransport struct {
	mu   sync.Mutex
	sent []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.sent = append(r.sent, req.URL.String())
	r.mu.Unlock()
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: req}, nil
}

// A credential header bound over plain http to another machine is
// refused, the header and the origin named, and nothing reaches the
// transport below; https, loopback http and a request without a
// credential (a metadata server's) pass.
func TestRefuseCleartext(t *testing.T) {
	for _, tc := range []struct {
		url, header string
		refused     bool
	}{
		{"http://gemini.example/v1", "X-Goog-Api-Key", true},
		{"http://10.0.0.5:8080/", "Authorization", true},
		{"http://localhost.attacker.example/", "Cookie", true},
		{"https://gemini.example/v1", "X-Goog-Api-Key", false},
		{"http://127.0.0.1:9/", "Authorization", false},
		{"http://[::1]:9/", "X-Goog-Api-Key", false},
		{"http://169.254.169.254/computeMetadata/v1/", "", false},
	} {
		below := &recordingTransport{}
		req, err := http.NewRequest(http.MethodPost, tc.url, strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		if tc.header != "" {
			req.Header.Set(tc.header, "secret")
		}
		resp, err := origin.RefuseCleartext(below).RoundTrip(req)
		if !tc.refused {
			if err != nil || len(below.sent) != 1 {
				t.Errorf("%s with %q: %v, sent %q; want it sent", tc.url, tc.header, err, below.sent)
			} else {
				resp.Body.Close()
			}
			continue
		}
		want := "not sending the " + tc.header + " header to " + origin.Of(req.URL) + ": "
		if !errors.Is(err, origin.ErrCleartext) || !strings.HasPrefix(err.Error(), want) || len(below.sent) != 0 {
			t.Errorf("%s with %q: %v, sent %q; want refused with %q and nothing sent", tc.url, tc.header, err, below.sent, want)
		}
	}
}

func TestCredentialHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "authorization": true, "x-goog-api-key": true, "X-API-Key": true,
		"Cookie": true, "Proxy-Authorization": true,
		"X-User": false, "Content-Type": false, "X-Goog-User-Project": false,
	} {
		if got := origin.CredentialHeader(name); got != want {
			t.Errorf("CredentialHeader(%q) = %v, want %v", name, got, want)
		}
	}
}
