package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	gauth "cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/credentials/idtoken"
	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// Defaults of Options.
const (
	// DefaultIdleTimeout is 0.61's A2A_TIMEOUT (bundle 378400), which it
	// gives undici as both headersTimeout and bodyTimeout: how long a
	// server may stay silent.
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultCardTimeout bounds a card's fetch; a card is small.
	DefaultCardTimeout = 30 * time.Second
	// DefaultMaxCardBytes bounds an agent card.
	DefaultMaxCardBytes = 1 << 20
	// DefaultMaxResponseBytes bounds all that one run reads from the
	// agent: its stream, or its answers and the polls of its task.
	DefaultMaxResponseBytes = 32 << 20
	// DefaultPollInterval is how often a task the agent left running is
	// asked after.
	DefaultPollInterval = 2 * time.Second
	// DefaultCancelTimeout bounds the tasks/cancel sent when a run ends
	// early.
	DefaultCancelTimeout = 10 * time.Second
)

// Options are a Client's connections and bounds; the zero value is the
// defaults.
type Options struct {
	// Transport carries the requests; nil: http.DefaultTransport, which
	// honours HTTP_PROXY and HTTPS_PROXY, as 0.61 does (its
	// general.proxy setting is the runner's to pass as a Transport).
	Transport http.RoundTripper
	// LookupEnv reads $NAME auth values; nil: os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// RunCommand runs a !command auth value and returns its output; nil:
	// this machine's shell (osshell.Local), as 0.61.
	RunCommand func(ctx context.Context, command string) (string, error)
	// GoogleToken gets google-credentials' tokens; nil: Application
	// Default Credentials.
	GoogleToken func(ctx context.Context, req GoogleTokenRequest) (string, error)

	// commandTimeout bounds a !command; 0: 0.61's 60 seconds. Tests
	// shorten it.
	commandTimeout time.Duration
	// now is the clock polls are timed with; nil: time.Now. Tests move it.
	clock func() time.Time

	IdleTimeout      time.Duration
	CardTimeout      time.Duration
	MaxCardBytes     int64
	MaxResponseBytes int64
	PollInterval     time.Duration
	CancelTimeout    time.Duration
}

func (o *Options) lookupEnv(name string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (o *Options) runCommand(ctx context.Context, command string) (string, error) {
	if o.RunCommand != nil {
		return o.RunCommand(ctx, command)
	}
	return runShell(ctx, command)
}

func (o *Options) now() time.Time {
	if o.clock != nil {
		return o.clock()
	}
	return time.Now()
}

func (o *Options) googleToken(ctx context.Context, req GoogleTokenRequest) (string, error) {
	return o.GoogleToken(ctx, req)
}

func (o *Options) withDefaults() Options {
	r := *o
	if r.Transport == nil {
		r.Transport = http.DefaultTransport
	}
	if r.IdleTimeout <= 0 {
		r.IdleTimeout = DefaultIdleTimeout
	}
	if r.CardTimeout <= 0 {
		r.CardTimeout = DefaultCardTimeout
	}
	if r.MaxCardBytes <= 0 {
		r.MaxCardBytes = DefaultMaxCardBytes
	}
	if r.MaxResponseBytes <= 0 {
		r.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if r.PollInterval <= 0 {
		r.PollInterval = DefaultPollInterval
	}
	if r.CancelTimeout <= 0 {
		r.CancelTimeout = DefaultCancelTimeout
	}
	if r.GoogleToken == nil {
		r.GoogleToken = (&adcTokens{}).token
	}
	return r
}

// Client calls one remote agent. It keeps the conversation's A2A context
// and unfinished task from one Run to the next, as 0.61 keeps them per
// agent (RemoteAgentInvocation.sessionState, bundle 350203), so the
// runner keeps one Client per agent for a session.
type Client struct {
	def  *subagents.Definition
	opts Options
	cred credential // nil: no auth
	// home is the origin of the URL the user configured (targetURL), the
	// one origin the credential goes to; "" when there is none.
	home string

	// base is the bounded transport every request goes through.
	base http.RoundTripper

	mu        sync.Mutex
	conn      *connection // nil until the card is read
	contextID string
	taskID    a2a.TaskID
}

// connection is a read card and a client of its service.
type connection struct {
	card   *Card
	client *a2aclient.Client
	// withheld says why the credential goes with none of the service's
	// requests (withholding); "" when it goes or there is none.
	withheld string
}

// New makes def's client; it checks def's auth (oauth is a clear error)
// but reaches nothing yet.
func New(def *subagents.Definition, opts Options) (*Client, error) {
	if def.Kind != subagents.Remote {
		return nil, fmt.Errorf("agent '%s' is not a remote agent", def.Name)
	}
	if def.CardURL == "" && def.CardJSON == "" {
		return nil, fmt.Errorf("Remote agent '%s' has neither agentCardUrl nor agentCardJson", def.Name)
	}
	if def.CardJSON == "" {
		u, err := url.Parse(def.CardURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("remote agent '%s': agent_card_url %q is not an http or https URL", def.Name, def.CardURL)
		}
	}
	c := &Client{def: def, opts: opts.withDefaults()}
	c.base = bounded{base: c.opts.Transport, idle: c.opts.IdleTimeout}
	target := targetURL(def)
	cred, err := newCredential(def, target, &c.opts)
	if err != nil {
		return nil, err
	}
	c.cred = cred
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		// The credential goes only to this origin: over plain http to
		// another machine it would be read on the way. Gemini CLI 0.61's
		// remote agents documentation (core/remote-agents.md) asks https
		// of google-credentials only; gemini-ls asks it of every kind.
		if err := origin.CheckCleartext(u); cred != nil && err != nil {
			return nil, fmt.Errorf("remote agent '%s': not sending its %s credential to %w", def.Name, def.Auth.Type, err)
		}
		c.home = origin.Of(u)
	}
	return c, nil
}

// targetURL is 0.61's getRemoteAgentTargetUrl (bundle 335818): the card's
// URL, else the inline card's service URL.
func targetURL(def *subagents.Definition) string {
	if def.CardURL != "" {
		return def.CardURL
	}
	if c, err := parseCard([]byte(def.CardJSON)); err == nil {
		return c.card.URL
	}
	return ""
}

// Card reads the agent's card (once; a failure is tried again next time)
// and readies the client of its service. The registry calls it to build
// the description the main agent reads (Card.Describe) and to warn of
// missing auth (Card.AuthWarning), as 0.61 does when it loads agents.
func (c *Client) Card(ctx context.Context) (*Card, error) {
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	return conn.card, nil
}

func (c *Client) connect(ctx context.Context) (*connection, error) {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	card, where, err := c.loadCard(ctx)
	if err != nil {
		return nil, err
	}
	endpoint, err := jsonrpcEndpoint(card.card)
	if err != nil {
		return nil, &agentError{msg: fmt.Sprintf("Connection failed for %s: %v", where, err), err: err}
	}
	ep, _ := url.Parse(endpoint)
	withheld := c.withholding(card, ep)
	card.card.URL, card.card.PreferredTransport = endpoint, a2a.TransportProtocolJSONRPC
	card.card.AdditionalInterfaces = nil
	client, err := a2aclient.NewFromCard(ctx, card.card, a2aclient.WithDefaultsDisabled(),
		a2aclient.WithJSONRPCTransport(c.httpClient(withheld == "")))
	if err != nil {
		return nil, &agentError{msg: fmt.Sprintf("Connection failed for %s: %v", where, err), err: err}
	}
	conn = &connection{card: card, client: client, withheld: withheld}
	c.mu.Lock()
	if c.conn == nil {
		c.conn = conn
	}
	conn = c.conn
	c.mu.Unlock()
	return conn, nil
}

// loadCard reads the inline card, or fetches it within CardTimeout and
// MaxCardBytes; where names it for errors, as 0.61 does.
func (c *Client) loadCard(ctx context.Context) (*Card, string, error) {
	if c.def.CardJSON != "" {
		card, err := parseCard([]byte(c.def.CardJSON))
		if errors.Is(err, errCardMissing) {
			return nil, "", err
		}
		if err != nil {
			return nil, "", fmt.Errorf("Failed to parse inline agent card JSON for agent '%s': %w", c.def.Name, err)
		}
		return card, "inline JSON", nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.CardTimeout)
	defer cancel()
	ctx = withBudget(ctx, newBudget(c.opts.MaxCardBytes, "the agent card"))
	var authed *http.Client
	if c.cred != nil {
		authed = c.httpClient(true)
	}
	fetched, err := fetchCard(ctx, c.def.CardURL, c.httpClient(false), authed, c.opts.MaxCardBytes)
	if err != nil {
		return nil, "", err
	}
	card, err := parseCard(fetched.data)
	if errors.Is(err, errCardMissing) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the agent card from %s: %w", c.def.CardURL, err)
	}
	card.redirectedTo = fetched.redirectedTo
	return card, c.def.CardURL, nil
}

// withholding says why the credential goes with none of the requests to
// service, the card's JSON-RPC URL: a card a redirect brought from
// another origin is not the configured origin's word, and a service on
// another origin is not the one the user configured; "" when it goes
// (or there is none).
func (c *Client) withholding(card *Card, service *url.URL) string {
	switch {
	case c.cred == nil:
		return ""
	case card.redirectedTo != "":
		return fmt.Sprintf("The credential is withheld: the agent card URL %s redirected to %s, on another origin; set agent_card_url to that URL to trust it.", c.def.CardURL, card.redirectedTo)
	case origin.Of(service) != c.home:
		configured := "the agent card URL's"
		if c.def.CardURL == "" {
			configured = "the inline agent card's url's"
		}
		home := c.home
		if home == "" {
			home = "none"
		}
		return fmt.Sprintf("The credential is withheld: the agent's service URL %s is on another origin than %s (%s).", service.Redacted(), configured, home)
	}
	return ""
}

// CredentialWithheld says why the configured credential goes with none of
// the agent's service requests, in words for the user; "" when it goes,
// there is none, or the card has not been read yet (by Card or Run).
func (c *Client) CredentialWithheld() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return ""
	}
	return c.conn.withheld
}

// httpClient is a client whose requests to the configured origin carry
// the credential when authenticate is set, and only until a redirect has
// left it; no other request does. A redirect may take a request's body
// elsewhere (http to https is another origin): a message is no
// credential.
func (c *Client) httpClient(authenticate bool) *http.Client {
	rt := origin.DropCredentials(c.base)
	if c.cred != nil && authenticate && c.home != "" {
		rt = authenticating{base: rt, cred: c.cred, origin: c.home}
	}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect}
}

// maxRedirects is Go's default.
const maxRedirects = 10

func checkRedirect(_ *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// State is where a remote agent's task stands, as Progress reports it.
type State string

const (
	Running   State = "running"
	Completed State = "completed"
	Failed    State = "error"
)

// Progress is a run's state as it goes, for the user to watch (0.61's
// SubagentProgress).
type Progress struct {
	State State
	// Delta is what the result, as the main agent would read it, gained
	// since the last report ("" when it was rewritten: an artifact
	// replaced, a message come after an artifact). Text is the whole
	// result, in the last report only (Completed or Failed): while the
	// run goes on it is "", as making it at every event would read all
	// that came before.
	Text, Delta string
	// Activity is the agent's messages so far, one per status it sent;
	// "Working..." before the first.
	Activity []string
	// TaskState is the A2A task's state last reported ("working",
	// "input-required", …); "" before any.
	TaskState string
}

// agentError is a failure 0.61 words for the user itself (A2AAgentError's
// userMessage, bundle 340640).
type agentError struct {
	msg string
	err error
}

func (e *agentError) Error() string { return e.msg }
func (e *agentError) Unwrap() error { return e.err }

// ErrNoResponse is a stream that ended before any event.
var ErrNoResponse = errors.New("No response from remote agent.")

// Run sends query to the agent and follows the task to its end, reporting
// progress as it goes (progress may be nil). The text is what the main
// agent reads: the agent's messages and artifacts (0.61
// A2AResultReassembler.toString); on failure it is what came so far and
// 0.61's words for the failure, and the error is non-nil. An ended ctx
// ends the run and asks the agent to cancel the task.
func (c *Client) Run(ctx context.Context, query string, progress func(Progress)) (string, error) {
	r := &run{c: c, progress: progress}
	if progress != nil {
		progress(Progress{State: Running, Activity: []string{workingMsg}})
	}
	err := r.run(ctx, query)
	text := r.re.String()
	if err != nil {
		msg := "Error calling remote agent: " + err.Error()
		var ae *agentError
		if errors.As(err, &ae) {
			msg = ae.msg
		}
		if note := c.CredentialWithheld(); note != "" && ctx.Err() == nil {
			// Likely why the agent refused the run.
			msg += "\n" + note
		}
		if text != "" {
			text += "\n\n" + msg
		} else {
			text = msg
		}
		r.end(Failed, text)
		return text, err
	}
	r.end(Completed, text)
	return text, nil
}

// run is one Run's state.
type run struct {
	c        *Client
	progress func(Progress)
	re       reassembler
}

func (r *run) report(s State, text, delta string) {
	if r.progress == nil {
		return
	}
	r.progress(Progress{State: s, Text: text, Delta: delta, Activity: r.re.activity(), TaskState: string(r.re.state)})
}

// end reports the run's end with its text: the reassembler's, reported
// as it grew, and what Run added.
func (r *run) end(s State, text string) {
	r.report(s, text, text[r.re.Len():])
}

func (r *run) run(ctx context.Context, query string) (err error) {
	c := r.c
	conn, err := c.connect(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: query})
	msg.ContextID, msg.TaskID = c.contextID, c.taskID
	c.mu.Unlock()

	bud := newBudget(c.opts.MaxResponseBytes, "the remote agent's responses")
	ctx = withBudget(ctx, bud)
	events := 0
	defer func() {
		switch {
		case err == nil:
		case ctx.Err() != nil:
			err = fmt.Errorf("Operation aborted: %w", ctx.Err())
			r.cancel(ctx, conn)
		case bud.broken() != nil:
			// What the SDK made of a cut response is beside the point.
			err = fmt.Errorf("[A2AClientManager] sendMessageStream Error [%s]: %w", c.def.Name, bud.broken())
			r.cancel(ctx, conn)
		}
	}()
	// SendStreamingMessage sends message/send, blocking, when the card
	// says the agent does not stream, as 0.61's client does.
	for ev, err := range conn.client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: msg}) {
		if err != nil {
			return fmt.Errorf("[A2AClientManager] sendMessageStream Error [%s]: %w", c.def.Name, err)
		}
		events++
		r.update(ev)
	}
	if events == 0 {
		return ErrNoResponse
	}
	// A task the agent left running, its stream over or its blocking
	// answer early, is asked after until it ends or stops for input; one
	// that stands still for IdleTimeout is a silent server.
	seen, since := r.re.changes, c.opts.now()
	for r.following() {
		if err := ctxtime.Sleep(ctx, c.opts.PollInterval); err != nil {
			return err
		}
		id := r.taskID()
		t, err := conn.client.GetTask(ctx, &a2a.TaskQueryParams{ID: id})
		if err != nil {
			return fmt.Errorf("A2AClient getTask Error [%s]: %w", c.def.Name, err)
		}
		before := r.re.state
		r.update(t)
		now := c.opts.now()
		if r.re.changes != seen || r.re.state != before {
			seen, since = r.re.changes, now
		} else if now.Sub(since) > c.opts.IdleTimeout {
			return fmt.Errorf("A2AClient getTask Error [%s]: %w for %v: the task stayed %s", c.def.Name, ErrSilent, c.opts.IdleTimeout, r.re.state)
		}
	}
	return nil
}

// update takes in one event: the text, the session's ids (0.61
// extractIdsFromResponse, bundle 350146), and a progress report.
func (r *run) update(ev a2a.Event) {
	appended, _ := r.re.update(ev)
	c := r.c
	var contextID string
	var taskID a2a.TaskID
	clear := false
	switch e := ev.(type) {
	case *a2a.Message:
		contextID, taskID = e.ContextID, e.TaskID
	case *a2a.TaskArtifactUpdateEvent:
		contextID, taskID = e.ContextID, e.TaskID
	case *a2a.Task:
		contextID, taskID, clear = e.ContextID, e.ID, e.Status.State.Terminal()
	case *a2a.TaskStatusUpdateEvent:
		contextID, taskID, clear = e.ContextID, e.TaskID, e.Status.State.Terminal()
	}
	c.mu.Lock()
	if contextID != "" {
		c.contextID = contextID
	}
	switch {
	case clear:
		c.taskID = ""
	case taskID != "":
		c.taskID = taskID
	}
	c.mu.Unlock()
	r.report(Running, "", appended)
}

func (r *run) taskID() a2a.TaskID {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	return r.c.taskID
}

// following reports whether the task is still the agent's to finish:
// submitted or working, not ended nor waiting on the user.
func (r *run) following() bool {
	switch r.re.state {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking:
		return r.taskID() != ""
	}
	return false
}

// cancel asks the agent to cancel the run's unfinished task, within
// CancelTimeout of a context the run's end does not end; the task is then
// no longer the session's.
func (r *run) cancel(ctx context.Context, conn *connection) {
	id := r.taskID()
	if id == "" || r.re.state.Terminal() {
		return
	}
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), r.c.opts.CancelTimeout)
	defer stop()
	_, _ = conn.client.CancelTask(ctx, &a2a.TaskIDParams{ID: id})
	r.c.mu.Lock()
	if r.c.taskID == id {
		r.c.taskID = ""
	}
	r.c.mu.Unlock()
}

// adcTokens gets tokens from Application Default Credentials, keeping the
// credentials, which cache and refresh their tokens.
type adcTokens struct {
	mu    sync.Mutex
	creds *gauth.Credentials
}

func (t *adcTokens) token(ctx context.Context, req GoogleTokenRequest) (string, error) {
	t.mu.Lock()
	if t.creds == nil || req.Fresh {
		var err error
		if req.Audience != "" {
			t.creds, err = idtoken.NewCredentials(&idtoken.Options{Audience: req.Audience})
		} else {
			t.creds, err = credentials.DetectDefault(&credentials.DetectOptions{Scopes: req.Scopes})
		}
		if err != nil {
			t.creds = nil
			t.mu.Unlock()
			return "", err
		}
	}
	creds := t.creds
	t.mu.Unlock()
	tok, err := creds.Token(ctx)
	if err != nil {
		return "", err
	}
	return tok.Value, nil
}
