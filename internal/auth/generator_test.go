package auth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/origin"
)

func resolve(t *testing.T, selected string, vars map[string]string) auth.Auth {
	t.Helper()
	a, err := auth.Resolve(selected, env(vars))
	if err != nil {
		t.Fatal(err)
	}
	a.Version = "1.2.3"
	return a
}

// stream runs one streamed request and returns its text.
func stream(t *testing.T, gen auth.ContentGenerator) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var text strings.Builder
	for resp, err := range gen.GenerateContentStream(ctx, "gemini-x", genai.Text("hello"), nil) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		text.WriteString(resp.Text())
	}
	return text.String()
}

// The API-key modes send the key as x-goog-api-key to the Gemini API or
// Vertex AI base URL, with gemini-ls's User-Agent.
func TestAPIKeyModesRequestShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars func(url string) map[string]string
		key  string
	}{
		{"gemini api", func(url string) map[string]string {
			return map[string]string{"GEMINI_API_KEY": "gemini-key", "GOOGLE_GEMINI_BASE_URL": url}
		}, "gemini-key"},
		{"vertex express", func(url string) map[string]string {
			return map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": "vertex-key", "GOOGLE_VERTEX_BASE_URL": url}
		}, "vertex-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, geminitest.TextTurn("hi"))
			a := resolve(t, "", tc.vars(srv.URL))
			gen := auth.NewGenerator(a)
			if got := stream(t, gen); got != "hi" {
				t.Fatalf("streamed %q", got)
			}
			if _, err := gen.CountTokens(context.Background(), "gemini-x", genai.Text("hello"), nil); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Method != "streamGenerateContent" || reqs[1].Method != "countTokens" {
				t.Fatalf("requests %+v", reqs)
			}
			r := reqs[0]
			if r.APIKey != tc.key || r.Model != "gemini-x" || r.Header.Get("Authorization") != "" {
				t.Errorf("request key %q model %q authorization %q", r.APIKey, r.Model, r.Header.Get("Authorization"))
			}
			if len(r.Contents) != 1 || r.Contents[0].Parts[0].Text != "hello" {
				t.Errorf("contents %s", r.Body)
			}
			if ua := r.Header.Values("User-Agent"); !strings.Contains(strings.Join(ua, " "), "gemini-ls/1.2.3") {
				t.Errorf("User-Agent = %q", ua)
			}
			if a.Config.HTTPOptions.Headers != nil {
				t.Error("NewGenerator modified the caller's headers")
			}
		})
	}
}

// Vertex AI with a project and location sends the ADC token (see
// generator_adc_test.go for the lookup) to the Vertex AI path.
// The authorized client keeps the shared transport under it (here seen
// by the Retry-After detail).
func TestVertexADCRequestShape(t *testing.T) {
	a := newADC(t, geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "later", RetryAfter: 4 * time.Second}}, geminitest.TextTurn("hi"))
	tokenURL, _ := a.tokenServer("adc-token")
	a.writeCredentials(tokenURL)
	a.auth.Version = "1.2.3"
	gen := auth.NewGenerator(a.auth)
	_, err := gen.GenerateContent(context.Background(), "gemini-x", genai.Text("x"), nil)
	if got := retryDelay(t, err); got != "4s" {
		t.Errorf("retryDelay %q, want 4s from Retry-After", got)
	}
	if got := stream(t, gen); got != "hi" {
		t.Fatalf("streamed %q", got)
	}
	r := a.model.Requests()[1]
	if r.Header.Get("Authorization") != "Bearer adc-token" || r.APIKey != "" || r.Model != "gemini-x" ||
		!strings.Contains(strings.Join(r.Header.Values("User-Agent"), " "), "gemini-ls/1.2.3") {
		t.Errorf("request headers %v model %q", r.Header, r.Model)
	}
}

// Sign in with Google: Gemini CLI's cached login, through Code Assist.
func TestOAuthPersonalThroughCodeAssist(t *testing.T) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "cached-token", CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "proj",
	}, geminitest.TextTurn("hi", " there"))
	home := t.TempDir()
	writeLogin(t, home, map[string]any{"access_token": "cached-token", "refresh_token": "refresh", "expiry_date": time.Now().Add(time.Hour).UnixMilli()})
	a := resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": ca.URL})
	gen := auth.NewGenerator(a)
	if got := stream(t, gen); got != "hi there" {
		t.Fatalf("streamed %q", got)
	}
	if _, err := gen.CountTokens(context.Background(), "gemini-x", genai.Text("hello"), nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"loadCodeAssist", "streamGenerateContent", "countTokens"}
	reqs := ca.Requests()
	if len(reqs) != len(want) {
		t.Fatalf("requests %+v", reqs)
	}
	for i, r := range reqs {
		if r.Method != want[i] || r.Header.Get("Authorization") != "Bearer cached-token" || r.Header.Get("User-Agent") != "gemini-ls/1.2.3" {
			t.Errorf("request %d: %s %s %v", i, r.Method, r.Path, r.Header)
		}
	}
	var body struct {
		Model   string `json:"model"`
		Project string `json:"project"`
		Request struct {
			Contents []*genai.Content `json:"contents"`
		} `json:"request"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil || body.Model != "gemini-x" || body.Project != "proj" || len(body.Request.Contents) != 1 {
		t.Errorf("stream body %s: %v", reqs[1].Body, err)
	}
	if reqs[2].Path != "/v1internal:countTokens" || !strings.Contains(string(reqs[2].Body), `"model":"models/gemini-x"`) {
		t.Errorf("countTokens %s %s", reqs[2].Path, reqs[2].Body)
	}
}

// Cloud Shell: Application Default Credentials' token, through Code Assist.
func TestCloudShellThroughCodeAssist(t *testing.T) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "proj",
	}, geminitest.TextTurn("hi"))
	// The credentials file is named in getenv (a .env file) only, not in
	// the process environment; its tokens come through the proxy.
	a := newADC(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "sa.json"))
	if err != nil {
		t.Fatal(err)
	}
	a.writeCredentialsTo(f, "http://oauth.invalid/token")
	proxy, hosts := forwardProxy(t, ca.URL)
	shell := resolve(t, "", map[string]string{"CLOUD_SHELL": "true", "CODE_ASSIST_ENDPOINT": ca.URL, "GOOGLE_APPLICATION_CREDENTIALS": f.Name(), "HTTP_PROXY": proxy})
	if shell.Type != "cloud-shell" {
		t.Fatalf("type %q", shell.Type)
	}
	if got := stream(t, auth.NewGenerator(shell)); got != "hi" {
		t.Fatalf("streamed %q", got)
	}
	if ca.Grants() != 1 || len(hosts()) != 1 || hosts()[0] != "oauth.invalid" {
		t.Errorf("%d token grants, proxy saw %q", ca.Grants(), hosts())
	}
	for _, r := range ca.RequestsFor("streamGenerateContent") {
		if r.Header.Get("Authorization") != "Bearer granted-1" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
	}
}

// An expired cached login is refreshed through the generator and the
// file rewritten.
func TestOAuthPersonalRefreshesThroughGenerator(t *testing.T) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "proj",
	}, geminitest.TextTurn("hi"))
	home := t.TempDir()
	path := writeLogin(t, home, map[string]any{"access_token": "stale", "refresh_token": "refresh", "expiry_date": 1})
	a := resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": ca.URL})
	a.CodeAssist.TokenURL = ca.TokenURL()
	if got := stream(t, auth.NewGenerator(a)); got != "hi" {
		t.Fatalf("streamed %q", got)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"access_token": "granted-1"`) {
		t.Errorf("file after refresh: %s", data)
	}
}

// retryDelay is the RetryInfo delay in err's details.
func retryDelay(t *testing.T, err error) string {
	t.Helper()
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a genai.APIError", err)
	}
	var delays []string
	for _, d := range apiErr.Details {
		if strings.HasSuffix(d["@type"].(string), "google.rpc.RetryInfo") {
			delays = append(delays, d["retryDelay"].(string))
		}
	}
	if len(delays) > 1 {
		t.Errorf("%d RetryInfo details: %q", len(delays), delays)
	}
	return strings.Join(delays, ",")
}

// An HTTP Retry-After becomes the RetryInfo delay the agent's retry reads,
// for the genai backends and Code Assist alike; a RetryInfo the server
// sent wins.
func TestRetryAfterBecomesRetryInfo(t *testing.T) {
	turns := []geminitest.Turn{
		{Err: &geminitest.APIError{Code: 429, Message: "slow down", RetryAfter: 7 * time.Second}},
		{Err: &geminitest.APIError{Code: 503, Message: "busy", RetryAfter: 3 * time.Second}},
		{Err: &geminitest.APIError{Code: 429, Message: "quota", RetryAfter: 9 * time.Second, RetryDelay: 2 * time.Second}},
		{Err: &geminitest.APIError{Code: 429, Message: "no header"}},
	}
	wants := []string{"7s", "3s", "2s", ""}
	check := func(t *testing.T, gen auth.ContentGenerator) {
		for i, want := range wants {
			var err error
			if i%2 == 0 {
				_, err = gen.GenerateContent(context.Background(), "gemini-x", genai.Text("x"), nil)
			} else {
				for _, e := range gen.GenerateContentStream(context.Background(), "gemini-x", genai.Text("x"), nil) {
					err = e
				}
			}
			if got := retryDelay(t, err); got != want {
				t.Errorf("turn %d: retryDelay %q, want %q (%v)", i, got, want, err)
			}
		}
	}
	t.Run("gemini api", func(t *testing.T) {
		srv := geminitest.NewTestServer(t, turns...)
		check(t, auth.NewGenerator(resolve(t, "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": srv.URL})))
	})
	t.Run("code assist", func(t *testing.T) {
		ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
			AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p",
		}, turns...)
		home := t.TempDir()
		writeLogin(t, home, map[string]any{"access_token": "tok", "expiry_date": time.Now().Add(time.Hour).UnixMilli()})
		check(t, auth.NewGenerator(resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": ca.URL})))
	})
}

// Retry-After as an HTTP-date, and on a body that is not Gemini's error
// JSON (a proxy's page): the message is the body, as genai reports it.
func TestRetryAfterDateAndPlainBody(t *testing.T) {
	var mu sync.Mutex
	var retryAt time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		retryAt = time.Now().Add(30 * time.Second)
		mu.Unlock()
		w.Header().Set("Retry-After", retryAt.UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("<html>upstream busy</html>"))
	}))
	defer srv.Close()
	gen := auth.NewGenerator(resolve(t, "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": srv.URL}))
	_, err := gen.GenerateContent(context.Background(), "gemini-x", genai.Text("x"), nil)
	got, perr := time.ParseDuration(retryDelay(t, err))
	// The date has whole seconds: the delay is the 30 s less under 2 s.
	if perr != nil || got < 28*time.Second || got > 30*time.Second {
		t.Errorf("retryDelay %v (%v), want about 30s", got, perr)
	}
	var apiErr genai.APIError
	errors.As(err, &apiErr)
	if apiErr.Code != 503 || apiErr.Message != "<html>upstream busy</html>" {
		t.Errorf("err = %#v", apiErr)
	}
}

// forwardProxy is an HTTP proxy on loopback that serves every host by
// forwarding to target, and records the hosts asked for.
func forwardProxy(t *testing.T, target string) (proxyURL string, hosts func() []string) {
	u, _ := url.Parse(target)
	var mu sync.Mutex
	var seen []string
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Host)
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// tunnelProxy is an HTTPS proxy on loopback: it records the target of each
// CONNECT and tunnels every one to a TLS server of its own, which holds a
// certificate for example.com and its subdomains, records the host each
// request inside was for, and forwards it to target. roots trust that
// certificate. Nothing leaves the machine, and only the proxy can answer
// for those hosts.
func tunnelProxy(t *testing.T, target string) (proxyURL string, roots *x509.CertPool, seen func() (connects, hosts []string)) {
	t.Helper()
	u, _ := url.Parse(target)
	var mu sync.Mutex
	var connects, hosts []string
	rp := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		connects = append(connects, r.Host)
		mu.Unlock()
		upstream, err := net.Dial("tcp", front.Listener.Addr().String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		go func() {
			io.Copy(upstream, buf)
			upstream.Close()
		}()
		io.Copy(conn, upstream)
		conn.Close()
	}))
	t.Cleanup(proxy.Close)
	roots = x509.NewCertPool()
	roots.AddCert(front.Certificate())
	return proxy.URL, roots, func() ([]string, []string) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(connects), slices.Clone(hosts)
	}
}

// The proxy the environment (or .env, through getenv) names carries the
// requests of both backends, to https endpoints whose hosts only the
// proxy can answer for.
func TestProxyFromEnvironment(t *testing.T) {
	t.Run("gemini api", func(t *testing.T) {
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("via proxy"))
		proxy, roots, seen := tunnelProxy(t, srv.URL)
		a := auth.WithRootCAs(resolve(t, "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "https://gemini.example.com", "https_proxy": proxy}), roots)
		if got := stream(t, auth.NewGenerator(a)); got != "via proxy" {
			t.Fatalf("streamed %q", got)
		}
		if connects, hosts := seen(); !slices.Equal(connects, []string{"gemini.example.com:443"}) || !slices.Equal(hosts, []string{"gemini.example.com"}) {
			t.Errorf("proxy saw CONNECT %q, then requests for %q", connects, hosts)
		}
	})
	t.Run("code assist", func(t *testing.T) {
		ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
			CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p",
		}, geminitest.TextTurn("via proxy"))
		proxy, roots, seen := tunnelProxy(t, ca.URL)
		home := t.TempDir()
		writeLogin(t, home, map[string]any{"access_token": "stale", "refresh_token": "refresh", "expiry_date": 1})
		a := auth.WithRootCAs(resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": "https://codeassist.example.com", "HTTPS_PROXY": proxy}), roots)
		a.CodeAssist.TokenURL = "https://oauth.example.com/token"
		if got := stream(t, auth.NewGenerator(a)); got != "via proxy" {
			t.Fatalf("streamed %q", got)
		}
		connects, hosts := seen()
		if !slices.Equal(connects, []string{"oauth.example.com:443", "codeassist.example.com:443"}) ||
			!slices.Equal(hosts, []string{"oauth.example.com", "codeassist.example.com", "codeassist.example.com"}) {
			t.Errorf("proxy saw CONNECT %q, then requests for %q (token refresh, loadCodeAssist, stream)", connects, hosts)
		}
	})
	t.Run("NO_PROXY", func(t *testing.T) {
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("direct"))
		proxy, roots, seen := tunnelProxy(t, srv.URL)
		a := auth.WithRootCAs(resolve(t, "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "https://direct.invalid", "HTTPS_PROXY": proxy, "NO_PROXY": "direct.invalid"}), roots)
		// direct.invalid does not resolve: NO_PROXY sends it direct, and it fails.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := auth.NewGenerator(a).GenerateContent(ctx, "gemini-x", genai.Text("x"), nil)
		if connects, hosts := seen(); err == nil || len(connects) != 0 || len(hosts) != 0 {
			t.Errorf("err %v, proxy saw CONNECT %q, requests for %q", err, connects, hosts)
		}
	})
}

// An Auth not made by Resolve, whose base URL is plain http to another
// machine, gets no request out: the transport refuses it with the header
// and the origin named, before the proxy (or anyone) sees it.
func TestGeneratorRefusesCredentialOverPlainHTTP(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("sent"))
	proxy, hosts := forwardProxy(t, srv.URL)
	a := resolve(t, "", map[string]string{"GEMINI_API_KEY": "the-key", "HTTP_PROXY": proxy})
	a.Config.HTTPOptions.BaseURL = "http://gemini.invalid"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := auth.NewGenerator(a).GenerateContent(ctx, "gemini-x", genai.Text("x"), nil)
	if !errors.Is(err, origin.ErrCleartext) || !strings.Contains(err.Error(), "not sending the X-Goog-Api-Key header to http://gemini.invalid:80: ") || len(hosts()) != 0 {
		t.Errorf("err %v, proxy saw %q; want the key refused to http://gemini.invalid:80 and nothing sent", err, hosts())
	}
}

// The generator made for a path that is not there yet (no login) fails
// with how to log in at Resolve, not later.
func TestOAuthPersonalMissingLoginIsResolveError(t *testing.T) {
	_, err := auth.Resolve("oauth-personal", env(map[string]string{"GEMINI_CLI_HOME": filepath.Join(t.TempDir(), "nobody")}))
	var authErr *auth.Error
	if !errors.As(err, &authErr) || authErr.Type != "oauth-personal" || !strings.Contains(authErr.Message, "Sign in with Google") {
		t.Errorf("err = %v", err)
	}
}

// A credentials file named through getenv is read as ADC would read it,
// only if it is one of ADC's types and a regular file.
func TestCredentialsFileFromGetenv(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	os.WriteFile(odd, []byte(`{"type": "api_key", "key": "x"}`), 0o600)
	notFile := filepath.Join(dir, "a-directory")
	os.Mkdir(notFile, 0o700)
	for file, want := range map[string]string{
		odd:     `has type "api_key", not one of Application Default Credentials' types`,
		notFile: "not a regular file",
	} {
		a := resolve(t, "vertex-ai", map[string]string{"GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "us-central1", "GOOGLE_VERTEX_BASE_URL": "http://127.0.0.1:9", "GOOGLE_APPLICATION_CREDENTIALS": file})
		_, err := auth.NewGenerator(a).GenerateContent(context.Background(), "m", genai.Text("x"), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "creating vertex-ai client: ") || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: err = %v", file, err)
		}
	}
}
