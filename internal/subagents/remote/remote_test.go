package remote_test

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/gemini-ls/gemini-ls/internal/origin/origintest"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/subagents/remote"
)

// The agent's task, streamed or answered whole, becomes 0.61's text: the
// agent's messages, then its artifacts under their names; progress reports
// add up to it. Answered whole, the task keeps only its last status, which
// has no message here.
func TestRunReturnsTheTaskText(t *testing.T) {
	const whole = "Artifact (answer):\nThe answer to What is it? is 42."
	for _, streaming := range []bool{true, false} {
		want, activity := wantAnswer, "Looking."
		if !streaming {
			want, activity = whole, "Working..."
		}
		srv := newAgentServer(t, answer, streaming)
		c, err := remote.New(remoteDef(srv.CardURL(), nil), remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var deltas strings.Builder
		var last remote.Progress
		text, err := c.Run(t.Context(), "What is it?", func(p remote.Progress) {
			deltas.WriteString(p.Delta)
			last = p
		})
		if err != nil {
			t.Fatalf("streaming %v: %v", streaming, err)
		}
		if text != want {
			t.Errorf("streaming %v: text %q, want %q", streaming, text, want)
		}
		if deltas.String() != want {
			t.Errorf("streaming %v: deltas add up to %q", streaming, deltas.String())
		}
		if last.State != remote.Completed || last.Text != want || last.TaskState != "completed" {
			t.Errorf("streaming %v: last progress %+v", streaming, last)
		}
		if len(last.Activity) != 1 || last.Activity[0] != activity {
			t.Errorf("streaming %v: activity %q", streaming, last.Activity)
		}
	}
}

// The card's description and skills are what the main agent reads of the
// agent, after the definition's own (0.61's registry).
func TestCardDescribes(t *testing.T) {
	srv := newAgentServer(t, answer, true)
	c, err := remote.New(remoteDef(srv.CardURL(), nil), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	card, err := c.Card(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := "User Description: Mine.\nAgent Description: Answers questions.\nSkills:\nAnswer: Answers one question."
	if got := card.Describe(" Mine. "); got != want {
		t.Errorf("Describe %q, want %q", got, want)
	}
}

// The conversation goes on from one run to the next: the agent's context,
// and a task it left waiting for input (0.61's sessionState).
func TestRunsContinueTheConversation(t *testing.T) {
	srv := newAgentServer(t, func(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
		ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateInputRequired, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: "Which one?"}))
		ev.Final = true
		return q.Write(ctx, ev)
	}, true)
	c, err := remote.New(remoteDef(srv.CardURL(), nil), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Pick one", "The first"} {
		text, err := c.Run(t.Context(), q, nil)
		if err != nil || text != "Which one?" {
			t.Fatalf("Run(%q) = %q, %v", q, text, err)
		}
	}
	msgs, contexts := srv.Exec.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages reached the agent", len(msgs))
	}
	if msgs[1].ContextID == "" || msgs[1].ContextID != contexts[0] {
		t.Errorf("second message's context %q, first task's %q", msgs[1].ContextID, contexts[0])
	}
	if msgs[1].TaskID == "" {
		t.Error("the second message does not continue the task waiting for input")
	}
}

// Each auth type reaches the agent as 0.61 sends it; the card, public,
// is fetched without it.
func TestAuthReachesTheAgent(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("ann:pw"))
	for _, tc := range []struct {
		name         string
		auth         subagents.Auth
		header, want string
	}{
		{"apiKey default header", subagents.Auth{Type: "apiKey", Key: "k1"}, "X-API-Key", "k1"},
		{"apiKey named header", subagents.Auth{Type: "apiKey", Key: "k2", Name: "X-Goog-Key"}, "X-Goog-Key", "k2"},
		{"apiKey from env", subagents.Auth{Type: "apiKey", Key: "$AGENT_KEY"}, "X-API-Key", "from-env"},
		{"apiKey escaped", subagents.Auth{Type: "apiKey", Key: "$$AGENT_KEY"}, "X-API-Key", "$AGENT_KEY"},
		{"apiKey from command", subagents.Auth{Type: "apiKey", Key: "!echo from-command"}, "X-API-Key", "from-command"},
		{"bearer", subagents.Auth{Type: "http", Scheme: "Bearer", Token: "t0k"}, "Authorization", "Bearer t0k"},
		{"basic", subagents.Auth{Type: "http", Scheme: "Basic", Username: "ann", Password: "pw"}, "Authorization", basic},
		{"other scheme", subagents.Auth{Type: "http", Scheme: "Digest", Value: "v=1"}, "Authorization", "Digest v=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAgentServer(t, answer, true)
			opts := remote.Options{LookupEnv: func(n string) (string, bool) {
				return map[string]string{"AGENT_KEY": "from-env"}[n], n == "AGENT_KEY"
			}}
			c, err := remote.New(remoteDef(srv.CardURL(), &tc.auth), opts)
			if err != nil {
				t.Fatal(err)
			}
			if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
				t.Fatalf("Run = %q, %v", text, err)
			}
			if note := c.CredentialWithheld(); note != "" {
				t.Errorf("CredentialWithheld = %q for a service on the card's origin", note)
			}
			rpc := rpcHeaders(srv.Rec, "/rpc")
			if len(rpc) == 0 {
				t.Fatal("no request reached /rpc")
			}
			for _, h := range rpc {
				if got := h.Get(tc.header); got != tc.want {
					t.Errorf("%s: %q, want %q", tc.header, got, tc.want)
				}
			}
			for _, h := range rpcHeaders(srv.Rec, a2asrv.WellKnownAgentCardPath) {
				if h.Get(tc.header) != "" {
					t.Errorf("the public card was fetched with %s", tc.header)
				}
			}
		})
	}
}

// A card behind auth is fetched again with it, as 0.61 does.
func TestCardBehindAuth(t *testing.T) {
	srv := newAgentServer(t, answer, true, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == a2asrv.WellKnownAgentCardPath && r.Header.Get("Authorization") != "Bearer t0k" {
				http.Error(w, "who are you", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	c, err := remote.New(remoteDef(srv.CardURL(), &subagents.Auth{Type: "http", Scheme: "Bearer", Token: "t0k"}), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
		t.Fatalf("Run = %q, %v", text, err)
	}
	cards := rpcHeaders(srv.Rec, a2asrv.WellKnownAgentCardPath)
	if len(cards) != 2 || cards[0].Get("Authorization") != "" || cards[1].Get("Authorization") != "Bearer t0k" {
		t.Errorf("card requests %v", cards)
	}
}

// google-credentials sends Application Default Credentials' token: an ID
// token for the host of a Cloud Run agent, an access token with the
// scopes for a googleapis.com one.
func TestGoogleCredentials(t *testing.T) {
	for _, tc := range []struct {
		host     string
		scopes   []string
		audience string
	}{
		{"agent-xyz.run.app", nil, "agent-xyz.run.app"},
		{"us-central1-aiplatform.googleapis.com", []string{"https://www.googleapis.com/auth/compute"}, ""},
	} {
		t.Run(tc.host, func(t *testing.T) {
			exec := &executor{execute: answer}
			mux := http.NewServeMux()
			rec := origintest.Record(mux)
			srv := httptest.NewTLSServer(tagPath(rec))
			t.Cleanup(srv.Close)
			base := "https://" + tc.host
			mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
			mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(testCard(base+"/rpc", true)))

			var mu sync.Mutex
			var asked []remote.GoogleTokenRequest
			opts := remote.Options{
				Transport: toServer(srv),
				GoogleToken: func(_ context.Context, req remote.GoogleTokenRequest) (string, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req)
					return "g-token", nil
				},
			}
			c, err := remote.New(remoteDef(base+a2asrv.WellKnownAgentCardPath, &subagents.Auth{Type: "google-credentials", Scopes: tc.scopes}), opts)
			if err != nil {
				t.Fatal(err)
			}
			if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
				t.Fatalf("Run = %q, %v", text, err)
			}
			for _, h := range rpcHeaders(rec, "/rpc") {
				if got := h.Get("Authorization"); got != "Bearer g-token" {
					t.Errorf("Authorization %q", got)
				}
			}
			wantScopes := tc.scopes
			if wantScopes == nil {
				wantScopes = []string{"https://www.googleapis.com/auth/cloud-platform"}
			}
			if len(asked) == 0 || asked[0].Audience != tc.audience || strings.Join(asked[0].Scopes, " ") != strings.Join(wantScopes, " ") {
				t.Errorf("asked for %+v", asked)
			}
		})
	}
}

// toServer is a transport that takes every connection to srv, trusting
// its certificate whatever the host name asked for.
func toServer(srv *httptest.Server) http.RoundTripper {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	tr.TLSClientConfig = tr.TLSClientConfig.Clone()
	tr.TLSClientConfig.ServerName = "example.com"
	return tr
}

// Google credentials go to https Google hosts only (0.61's allowed
// hosts); a service the card names elsewhere gets no token
// (TestGoogleTokenStaysWithTheConfiguredOrigin).
func TestGoogleCredentialsStayWithGoogle(t *testing.T) {
	g := &subagents.Auth{Type: "google-credentials"}
	for url, want := range map[string]string{
		"http://agent.run.app/card":   `Protocol "http:" is not secure`,
		"https://agent.example.com/c": `Host "agent.example.com" is not an allowed host`,
	} {
		if _, err := remote.New(remoteDef(url, g), remote.Options{}); err == nil || !contains(err.Error(), want) {
			t.Errorf("New(%s) = %v, want %q", url, err, want)
		}
	}
}

// oauth asks for a browser: a clear error, not a silent failure; so do
// incomplete and unknown auth.
func TestUnusableAuth(t *testing.T) {
	for _, tc := range []struct {
		auth subagents.Auth
		want string
	}{
		{subagents.Auth{Type: "oauth"}, "oauth auth is not supported yet"},
		{subagents.Auth{Type: "openIdConnect"}, "openIdConnect auth provider not yet implemented"},
		{subagents.Auth{Type: "apiKey"}, "apiKey auth needs a key"},
		{subagents.Auth{Type: "http", Scheme: "Bearer"}, "http auth needs a token"},
		{subagents.Auth{Type: "magic"}, "Unknown auth type: magic"},
	} {
		_, err := remote.New(remoteDef("https://example.com/card", &tc.auth), remote.Options{})
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, want %q", tc.auth.Type, err, tc.want)
		}
	}
}

// A bearer token never reaches another origin a redirect leads to, from
// the card's fetch or from the service's requests; it does reach its own.
func TestBearerStaysWithItsOrigin(t *testing.T) {
	const token = "s3cret-token"
	auth := &subagents.Auth{Type: "http", Scheme: "Bearer", Token: token}

	t.Run("card", func(t *testing.T) {
		other := origintest.Record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "nope", http.StatusUnauthorized)
		}))
		b := origintest.NewServer(t, other)
		a := origintest.Record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "" {
				http.Error(w, "who are you", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, b.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		srvA := httptest.NewServer(a)
		t.Cleanup(srvA.Close)
		c, err := remote.New(remoteDef(srvA.URL+"/card", auth), remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(t.Context(), "What is it?", nil); err == nil {
			t.Error("Run succeeded without a card")
		}
		if len(a.Carried(token)) == 0 {
			t.Error("the token never reached the card's own origin")
		}
		if len(other.Headers()) == 0 {
			t.Fatal("the redirect was not followed")
		}
		if got := other.Carried(token); len(got) > 0 {
			t.Errorf("the other origin received %q", got)
		}
	})

	t.Run("service", func(t *testing.T) {
		// The agent's service is on B; A's /rpc redirects there, keeping
		// the method and body (307).
		exec := &executor{execute: answer}
		other := origintest.Record(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
		b := origintest.NewServer(t, other)
		mux := http.NewServeMux()
		a := origintest.Record(mux)
		srvA := httptest.NewServer(a)
		t.Cleanup(srvA.Close)
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(testCard(srvA.URL+"/rpc", true)))
		mux.Handle("/rpc", origintest.Redirect(http.StatusTemporaryRedirect, b.URL))
		c, err := remote.New(remoteDef(srvA.URL+a2asrv.WellKnownAgentCardPath, auth), remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
			t.Fatalf("Run = %q, %v", text, err)
		}
		if len(a.Carried(token)) == 0 {
			t.Error("the token never reached the service's own origin")
		}
		if len(other.Headers()) == 0 {
			t.Fatal("the redirect was not followed")
		}
		if got := other.Carried(token); len(got) > 0 {
			t.Errorf("the other origin received %q", got)
		}
	})
}

// credentialKinds are the auth types a user's definition may hold whose
// credential goes in a header: the secret each holds, and the header.
func credentialKinds(secret string) []struct {
	name   string
	auth   subagents.Auth
	header string
} {
	return []struct {
		name   string
		auth   subagents.Auth
		header string
	}{
		{"bearer", subagents.Auth{Type: "http", Scheme: "Bearer", Token: secret}, "Authorization"},
		{"basic", subagents.Auth{Type: "http", Scheme: "Basic", Username: "ann", Password: secret}, "Authorization"},
		{"other scheme", subagents.Auth{Type: "http", Scheme: "Digest", Value: secret}, "Authorization"},
		{"apiKey", subagents.Auth{Type: "apiKey", Key: secret}, "X-API-Key"},
		{"apiKey named header", subagents.Auth{Type: "apiKey", Key: secret, Name: "X-Agent-Key"}, "X-Agent-Key"},
	}
}

// site is one origin of a test: its handlers, every request recorded.
type site struct {
	Mux *http.ServeMux
	Rec *origintest.Recorder
	// Handler serves the site, each request's path tagged for rpcHeaders.
	Handler http.Handler
}

func newSite() site {
	s := site{Mux: http.NewServeMux()}
	s.Rec = origintest.Record(s.Mux)
	s.Handler = tagPath(s.Rec)
	return s
}

// withheldLayouts are the ways a card leads the agent's requests to
// another origin (other) than the card URL the user configured (home's
// /card): a redirect of the card itself, or a card naming a service
// there.
var withheldLayouts = []struct {
	name string
	// serve sets up home and other, at homeURL and otherURL.
	serve func(home, other site, homeURL, otherURL string, exec *executor)
	// note is what CredentialWithheld says, otherURL its %s.
	note string
}{
	{
		name: "card redirected",
		serve: func(home, other site, _, otherURL string, exec *executor) {
			home.Mux.Handle("/card", origintest.Redirect(http.StatusTemporaryRedirect, otherURL))
			other.Mux.Handle("/card", a2asrv.NewStaticAgentCardHandler(testCard(otherURL+"/rpc", true)))
			other.Mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
		},
		note: "redirected to %s/card, on another origin;",
	},
	{
		// The service is on the configured origin, but where it is
		// there is the other origin's word.
		name: "card redirected back",
		serve: func(home, other site, homeURL, otherURL string, exec *executor) {
			home.Mux.Handle("/card", origintest.Redirect(http.StatusTemporaryRedirect, otherURL))
			other.Mux.Handle("/card", a2asrv.NewStaticAgentCardHandler(testCard(homeURL+"/rpc", true)))
			home.Mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
		},
		note: "redirected to %s/card, on another origin;",
	},
	{
		name: "service elsewhere",
		serve: func(home, other site, _, otherURL string, exec *executor) {
			home.Mux.Handle("/card", a2asrv.NewStaticAgentCardHandler(testCard(otherURL+"/rpc", true)))
			other.Mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
		},
		note: "the agent's service URL %s/rpc is on another origin than the agent card URL's",
	},
}

// A credential goes only to the origin of the card URL the user
// configured: a card there that a redirect (307) fetched from another
// origin, or that names its service on another origin, leads the agent's
// requests there without it, whatever its kind. Two runs, so two
// JSON-RPC calls; the agent answers them all, and says why it withholds
// the credential.
func TestCredentialStaysWithTheConfiguredOrigin(t *testing.T) {
	const secret = "s3cret"
	for _, layout := range withheldLayouts {
		for _, kind := range credentialKinds(secret) {
			t.Run(layout.name+"/"+kind.name, func(t *testing.T) {
				home, other := newSite(), newSite()
				srvHome := httptest.NewServer(home.Handler) // 127.0.0.1
				t.Cleanup(srvHome.Close)
				srvOther := origintest.NewServer(t, other.Handler) // 127.0.0.2
				layout.serve(home, other, srvHome.URL, srvOther.URL, &executor{execute: answer})
				c, err := remote.New(remoteDef(srvHome.URL+"/card", &kind.auth), remote.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for range 2 {
					if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
						t.Fatalf("Run = %q, %v", text, err)
					}
				}
				if n := len(rpcHeaders(home.Rec, "/rpc")) + len(rpcHeaders(other.Rec, "/rpc")); n < 2 {
					t.Fatalf("%d JSON-RPC calls reached the service", n)
				}
				for url, s := range map[string]site{srvHome.URL: home, srvOther.URL: other} {
					for _, h := range s.Rec.Headers() {
						if got := h.Get(kind.header); got != "" {
							t.Errorf("%s%s carried %s: %q", url, h.Get("X-Test-Path"), kind.header, got)
						}
					}
				}
				want := fmt.Sprintf(layout.note, srvOther.URL)
				if got := c.CredentialWithheld(); !contains(got, want) {
					t.Errorf("CredentialWithheld = %q, want %q in it", got, want)
				}
			})
		}
	}
}

// Google credentials, whose hosts are Google's, keep to the configured
// origin likewise: no token is even asked for.
func TestGoogleTokenStaysWithTheConfiguredOrigin(t *testing.T) {
	for _, layout := range withheldLayouts {
		t.Run(layout.name, func(t *testing.T) {
			const homeURL, otherURL = "https://agent.run.app", "https://other.run.app"
			home, other := newSite(), newSite()
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Host == "agent.run.app" {
					home.Handler.ServeHTTP(w, r)
				} else {
					other.Handler.ServeHTTP(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			layout.serve(home, other, homeURL, otherURL, &executor{execute: answer})
			var asked atomic.Int32
			c, err := remote.New(remoteDef(homeURL+"/card", &subagents.Auth{Type: "google-credentials"}), remote.Options{
				Transport: toServer(srv),
				GoogleToken: func(context.Context, remote.GoogleTokenRequest) (string, error) {
					asked.Add(1)
					return "g-token", nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
				t.Fatalf("Run = %q, %v", text, err)
			}
			if len(rpcHeaders(home.Rec, "/rpc"))+len(rpcHeaders(other.Rec, "/rpc")) == 0 {
				t.Fatal("no JSON-RPC call reached the service")
			}
			for _, h := range append(home.Rec.Headers(), other.Rec.Headers()...) {
				if got := h.Get("Authorization"); got != "" {
					t.Errorf("%s carried Authorization: %q", h.Get("X-Test-Path"), got)
				}
			}
			if n := asked.Load(); n != 0 {
				t.Errorf("a token was asked for %d times", n)
			}
			if want := fmt.Sprintf(layout.note, otherURL); !contains(c.CredentialWithheld(), want) {
				t.Errorf("CredentialWithheld = %q, want %q in it", c.CredentialWithheld(), want)
			}
		})
	}
}

// An agent that refuses a run without the credential withheld from it:
// the text the main agent reads says why it went without.
func TestRefusalSaysTheCredentialWasWithheld(t *testing.T) {
	home := newAgentServer(t, answer, true)
	other := origintest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "who are you", http.StatusUnauthorized)
	}))
	home.Mux.Handle("/card", a2asrv.NewStaticAgentCardHandler(testCard(other.URL+"/rpc", true)))
	c, err := remote.New(remoteDef(home.URL+"/card", &subagents.Auth{Type: "apiKey", Key: "k"}), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "What is it?", nil)
	want := "unexpected HTTP status: 401 Unauthorized\nThe credential is withheld: the agent's service URL " + other.URL + "/rpc is on another origin than the agent card URL's (" + home.URL + ")."
	if err == nil || !strings.HasSuffix(text, want) {
		t.Errorf("Run = %q, %v; want it to end %q", text, err, want)
	}
}

// An inline card is the user's own: its url is the configured origin, and
// its service there gets the credential.
func TestInlineCardServiceGetsTheCredential(t *testing.T) {
	srv := newAgentServer(t, answer, true)
	def := inlineCard(t, testCard(srv.URL+"/rpc", true))
	def.Auth = &subagents.Auth{Type: "http", Scheme: "Bearer", Token: "t0k"}
	c, err := remote.New(def, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
		t.Fatalf("Run = %q, %v", text, err)
	}
	rpc := rpcHeaders(srv.Rec, "/rpc")
	if len(rpc) == 0 || rpc[0].Get("Authorization") != "Bearer t0k" || c.CredentialWithheld() != "" {
		t.Errorf("requests %v; CredentialWithheld %q", rpc, c.CredentialWithheld())
	}
}

// A credential that left its origin by a redirect does not come back with
// a redirect to it either, as in a browser: a Bearer token, and an API key
// in a header of its own, which Go's client would carry anywhere.
func TestCredentialDoesNotReturnAfterARedirect(t *testing.T) {
	const secret = "s3cret"
	for _, tc := range []struct {
		auth   subagents.Auth
		header string
	}{
		{subagents.Auth{Type: "http", Scheme: "Bearer", Token: secret}, "Authorization"},
		{subagents.Auth{Type: "apiKey", Key: secret}, "X-API-Key"},
	} {
		t.Run(tc.auth.Type, func(t *testing.T) {
			srv := newAgentServer(t, answer, true)
			back := origintest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, srv.URL+"/rpc-final", http.StatusTemporaryRedirect)
			}))
			srv.Mux.Handle("/rpc-out", origintest.Redirect(http.StatusTemporaryRedirect, back.URL))
			srv.Mux.Handle("/rpc-final", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(srv.Exec)))
			srv.Mux.Handle("/out-card", a2asrv.NewStaticAgentCardHandler(testCard(srv.URL+"/rpc-out", true)))
			c, err := remote.New(remoteDef(srv.URL+"/out-card", &tc.auth), remote.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
				t.Fatalf("Run = %q, %v", text, err)
			}
			out, final := rpcHeaders(srv.Rec, "/rpc-out"), rpcHeaders(srv.Rec, "/rpc-final")
			if len(out) == 0 || !strings.Contains(out[0].Get(tc.header), secret) {
				t.Errorf("the first request went without the credential: %v", out)
			}
			if len(final) == 0 {
				t.Fatal("the redirects were not followed")
			}
			for _, h := range final {
				if h.Get(tc.header) != "" {
					t.Errorf("the credential came back after leaving: %v", h)
				}
			}
		})
	}
}

// A card past the bound is refused with an error that says so.
func TestOversizedCardIsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"name":"` + strings.Repeat("x", 2<<20) + `"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := remote.New(remoteDef(srv.URL+"/card", nil), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "What is it?", nil)
	if !errors.Is(err, remote.ErrTooLarge) || !contains(text, "the agent card exceed") {
		t.Errorf("Run = %q, %v", text, err)
	}
}

// A stream past the bound ends the run with an error that says so.
func TestOversizedStreamIsRefused(t *testing.T) {
	done := make(chan struct{})
	srv := newAgentServer(t, func(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
		// Twice the bound, then quiet: the SDK's server keeps every
		// status message in the task and copies the task for each event,
		// so an endless stream would outlive the test, burning the CPU
		// the package's later tests need. Few large messages, not many
		// small ones: the copies cost the square of their number.
		for range 2 * 8 {
			msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: strings.Repeat("y", 8<<10)})
			if err := q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, msg)); err != nil {
				return err
			}
		}
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, true)
	// After the server's cleanup is registered, so it runs first: the
	// server's Close waits for the task.
	t.Cleanup(func() { close(done) })
	c, err := remote.New(remoteDef(srv.CardURL(), nil), remote.Options{
		MaxResponseBytes: 64 << 10,
		// The SDK's server, its queue full, is slow to answer the cancel.
		CancelTimeout: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "Go on", nil)
	if !errors.Is(err, remote.ErrTooLarge) || !contains(text, "the remote agent's responses exceed") {
		t.Errorf("Run = %.200q…, %v", text, err)
	}

}

// A server that never answers ends the run with an error that says so,
// and the client hangs up: the server is not left holding the request.
func TestSilentServer(t *testing.T) {
	const (
		// silence is long enough for the request to reach the server
		// on a loaded machine, mostly; a run where it does not checks
		// less (see below), and fails nothing.
		silence = 250 * time.Millisecond
		// patience bounds the wait for the hang-up, only to fail clearly
		// rather than wait for ever; a client hangs up at once.
		patience = 30 * time.Second
	)
	srv := newAgentServer(t, answer, true)
	hungUp := make(chan struct{}, 1)
	testEnded := make(chan struct{})
	srv.Mux.HandleFunc("/rpc-silent", func(w http.ResponseWriter, r *http.Request) {
		// Read to the end: only then does net/http watch the connection
		// and end r's context when the client hangs up. Left unread, the
		// handler never learns of the hang-up, and the server's Close
		// waits for it for ever.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
			hungUp <- struct{}{}
		case <-testEnded: // the client kept the request open: failed below
		}
	})
	// After the server's cleanup is registered, so it runs first: the
	// server's Close waits for the handler.
	t.Cleanup(func() { close(testEnded) })
	c, err := remote.New(inlineCard(t, testCard(srv.URL+"/rpc-silent", true)), remote.Options{IdleTimeout: silence})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "Hello?", nil)
	if !errors.Is(err, remote.ErrSilent) || !contains(text, "waiting for the response") {
		t.Errorf("Run = %q, %v", text, err)
	}
	if len(rpcHeaders(srv.Rec, "/rpc-silent")) == 0 {
		return // the client gave up before the request arrived: nothing held
	}
	select {
	case <-hungUp:
	case <-time.After(patience):
		t.Errorf("the server still held the request %v after the run gave up on it", patience)
	}
}

// Ending the run's context ends the run and cancels the agent's task.
func TestCancelStopsTheTask(t *testing.T) {
	release := make(chan struct{})
	srv := newAgentServer(t, func(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: "Started."})
		if err := q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, msg)); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}, true)
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for the task
	c, err := remote.New(remoteDef(srv.CardURL(), nil), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last remote.Progress
	text, err := c.Run(ctx, "Take your time", func(p remote.Progress) {
		last = p
		if p.Delta == "Started." {
			cancel()
		}
	})
	if last.State != remote.Failed || last.Text != text {
		t.Errorf("last progress %+v", last)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if text != "Started.\n\nError calling remote agent: Operation aborted: context canceled" {
		t.Errorf("text %q", text)
	}
	got := srv.Exec.Canceled()
	msgs, _ := srv.Exec.Messages()
	if len(got) != 1 || len(msgs) != 1 {
		t.Fatalf("canceled %v", got)
	}
}

// A server's failure gives an error that names it, and the text 0.61
// gives the main agent.
func TestServerErrorIsClear(t *testing.T) {
	t.Run("service", func(t *testing.T) {
		srv := newAgentServer(t, answer, true)
		srv.Mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		})
		srv.Mux.Handle("/broken-card", a2asrv.NewStaticAgentCardHandler(testCard(srv.URL+"/broken", true)))
		c, err := remote.New(remoteDef(srv.URL+"/broken-card", nil), remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		text, err := c.Run(t.Context(), "What is it?", nil)
		if want := "Error calling remote agent: [A2AClientManager] sendMessageStream Error [answerer]: unexpected HTTP status: 500 Internal Server Error"; err == nil || text != want {
			t.Errorf("Run = %q, %v, want %q", text, err, want)
		}
	})
	t.Run("card", func(t *testing.T) {
		srv := newAgentServer(t, answer, true)
		c, err := remote.New(remoteDef(srv.URL+"/nothing-here", nil), remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		text, err := c.Run(t.Context(), "What is it?", nil)
		if want := "Error calling remote agent: Failed to fetch Agent Card from " + srv.URL + "/nothing-here: 404"; err == nil || text != want {
			t.Errorf("Run = %q, %v, want %q", text, err, want)
		}
	})
	t.Run("bad inline card", func(t *testing.T) {
		for card, want := range map[string]string{
			"null": "Error calling remote agent: Agent card is missing.",
			"{":    "Error calling remote agent: Failed to parse inline agent card JSON for agent 'bad': unexpected end of JSON input",
		} {
			c, err := remote.New(&subagents.Definition{Name: "bad", Kind: subagents.Remote, CardJSON: card}, remote.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if text, err := c.Run(t.Context(), "Hi", nil); err == nil || text != want {
				t.Errorf("card %s: Run = %q, %v, want %q", card, text, err, want)
			}
		}
	})
	t.Run("transport", func(t *testing.T) {
		def := &subagents.Definition{Name: "grpc", Kind: subagents.Remote, CardJSON: `{"name":"G","url":"127.0.0.1:9","preferredTransport":"GRPC"}`}
		c, err := remote.New(def, remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		text, err := c.Run(t.Context(), "Hi", nil)
		if want := "Connection failed for inline JSON: no compatible transports found: the agent offers GRPC, gemini-ls speaks JSONRPC"; err == nil || text != want {
			t.Errorf("Run = %q, %v, want %q", text, err, want)
		}
	})
}

// A stream that ends before any event is 0.61's "No response".
func TestEmptyStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/card" {
			w.Write([]byte(`{"name":"E","url":"http://` + r.Host + `/rpc","capabilities":{"streaming":true}}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
	}))
	t.Cleanup(srv.Close)
	c, err := remote.New(remoteDef(srv.URL+"/card", nil), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "Hello?", nil)
	if !errors.Is(err, remote.ErrNoResponse) || text != "Error calling remote agent: No response from remote agent." {
		t.Errorf("Run = %q, %v", text, err)
	}
}

// A task the agent leaves running is asked after until it ends.
func TestRunPollsAnUnfinishedTask(t *testing.T) {
	var mu sync.Mutex
	gets := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     string `json:"id"`
			Method string `json:"method"`
		}
		if r.URL.Path == "/card" {
			w.Write([]byte(`{"name":"P","url":"http://` + r.Host + `/rpc","capabilities":{"streaming":false}}`))
			return
		}
		_ = decodeJSON(r, &req)
		result := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`
		if req.Method == "tasks/get" {
			mu.Lock()
			gets++
			n := gets
			mu.Unlock()
			if n >= 3 {
				result = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"done"}]}]}`
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":"` + req.ID + `","result":` + result + `}`))
	}))
	t.Cleanup(srv.Close)
	c, err := remote.New(remoteDef(srv.URL+"/card", nil), remote.Options{PollInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Run(t.Context(), "Slowly", nil)
	if err != nil || text != "Artifact:\ndone" {
		t.Errorf("Run = %q, %v", text, err)
	}
	if gets != 3 {
		t.Errorf("%d polls", gets)
	}
}

// A key from a command is asked for again when the agent refuses it; a
// fixed one is not sent twice.
func TestRefusedCredentialIsRefreshed(t *testing.T) {
	srv := newAgentServer(t, answer, true, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/rpc" && r.Header.Get("X-API-Key") != "fresh" {
				http.Error(w, "expired", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	runs := 0
	opts := remote.Options{RunCommand: func(context.Context, string) (string, error) {
		runs++
		if runs == 1 {
			return "stale\n", nil
		}
		return "fresh\n", nil
	}}
	c, err := remote.New(remoteDef(srv.CardURL(), &subagents.Auth{Type: "apiKey", Key: "!print-key"}), opts)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := c.Run(t.Context(), "What is it?", nil); err != nil || text != wantAnswer {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if runs != 2 {
		t.Errorf("the command ran %d times", runs)
	}

	before := len(rpcHeaders(srv.Rec, "/rpc"))
	fixed, err := remote.New(remoteDef(srv.CardURL(), &subagents.Auth{Type: "apiKey", Key: "stale"}), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := fixed.Run(t.Context(), "What is it?", nil); err == nil || !contains(text, "401") {
		t.Errorf("Run = %q, %v", text, err)
	}
	if n := len(rpcHeaders(srv.Rec, "/rpc")) - before; n != 1 {
		t.Errorf("a fixed key was sent %d times", n)
	}
}

// An apiKey or http credential (Bearer, Basic, another scheme) bound over
// plain http to another machine is refused when the agent is made, with
// the agent, the kind of credential and the origin named and why, and no
// request leaves; https, and http to this machine, are allowed. Gemini
// CLI 0.61 asks https of google-credentials only.
func TestNoCredentialOverPlainHTTP(t *testing.T) {
	auths := []subagents.Auth{
		{Type: "apiKey", Key: "the-key"},
		{Type: "http", Scheme: "Bearer", Token: "the-token"},
		{Type: "http", Scheme: "Basic", Username: "me", Password: "pw"},
		{Type: "http", Scheme: "Digest", Value: "v"},
	}
	const why = ": a credential sent there over plain http could be read on the way; gemini-ls sends credentials only over https, or over http to this machine (localhost, 127.0.0.1, ::1)"
	for _, a := range auths {
		for _, tc := range []struct {
			def     *subagents.Definition
			refused string // the origin named; "" when allowed
		}{
			{remoteDef("http://agent.example/card", &a), "http://agent.example:80"},
			{remoteDef("http://10.1.2.3:8080/card", &a), "http://10.1.2.3:8080"},
			{withAuth(inlineCard(t, testCard("http://agent.example:9/rpc", true)), &a), "http://agent.example:9"},
			{remoteDef("https://agent.example/card", &a), ""},
			{remoteDef("http://127.0.0.1:9/card", &a), ""},
			{remoteDef("http://localhost:9/card", &a), ""},
		} {
			var sent atomic.Int32
			opts := remote.Options{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return nil, errors.New("the test sends nothing")
			})}
			c, err := remote.New(tc.def, opts)
			where := cmp.Or(tc.def.CardURL, "inline card")
			if tc.refused == "" {
				if err != nil {
					t.Errorf("%s auth to %s: New = %v, want it allowed", a.Type, where, err)
				}
				continue
			}
			want := "remote agent 'answerer': not sending its " + a.Type + " credential to " + tc.refused + why
			if err == nil || err.Error() != want {
				t.Errorf("%s auth to %s: New = %v, want %q", a.Type, where, err, want)
			}
			if c != nil {
				c.Card(context.Background())
			}
			if sent.Load() != 0 { // nothing to send with: New refused
				t.Errorf("%s auth to %s: %d requests sent", a.Type, where, sent.Load())
			}
		}
	}
}

func withAuth(def *subagents.Definition, a *subagents.Auth) *subagents.Definition {
	def.Auth = a
	return def
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
