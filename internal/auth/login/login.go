package login

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/origin"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Endpoints are the OAuth server's.
type Endpoints struct {
	AuthURL     string // where the user signs in
	TokenURL    string // where the code is exchanged for tokens
	UserInfoURL string // where the account's address is read
}

// Google is Google's: the endpoints Gemini CLI's client uses.
func Google() Endpoints {
	return Endpoints{
		AuthURL:     "https://accounts.google.com/o/oauth2/v2/auth",
		TokenURL:    codeassist.GoogleTokenURL,
		UserInfoURL: "https://www.googleapis.com/oauth2/v2/userinfo",
	}
}

// Gemini CLI's pages and redirect URIs (oauth2.ts).
const (
	// SuccessURL and FailureURL are where the loopback server sends the
	// browser once the sign-in succeeded or failed.
	SuccessURL = "https://developers.google.com/gemini-code-assist/auth_success_gemini"
	FailureURL = "https://developers.google.com/gemini-code-assist/auth_failure_gemini"
	// ManualRedirectURI is the page that shows the code to paste.
	ManualRedirectURI = "https://codeassist.google.com/authcode"
	callbackPath      = "/oauth2callback"
)

// DefaultTimeout bounds a sign-in, as Gemini CLI bounds it.
const DefaultTimeout = 5 * time.Minute

// AccountsFile is Gemini CLI's record of the signed-in account's address
// in its user directory.
const AccountsFile = "google_accounts.json"

// ErrStateMismatch is the loopback server's answer with a state it did
// not send: another page's request, not Google's redirect.
var ErrStateMismatch = errors.New("OAuth state mismatch. Possible CSRF attack or browser session issue.")

// Config configures a sign-in.
type Config struct {
	// UserDir is Gemini CLI's user directory (~/.gemini), where the login
	// is written.
	UserDir string
	// Endpoints are Google's when AuthURL is empty; only tests set them.
	Endpoints Endpoints
	// HTTPClient exchanges the code and reads the account's address;
	// when nil, one that keeps the code and the token to their origin
	// across redirects (origin.Client).
	HTTPClient *http.Client
	// Timeout bounds the sign-in; DefaultTimeout when zero.
	Timeout time.Duration
	// CallbackHost is the address the loopback server listens on
	// (Gemini CLI's OAUTH_CALLBACK_HOST, e.g. 0.0.0.0 in a container);
	// 127.0.0.1 when empty. The redirect URI names 127.0.0.1 whatever it
	// is, as Google requires.
	CallbackHost string
	// CallbackPort is its port (OAUTH_CALLBACK_PORT); a free one when 0.
	CallbackPort int
}

// Result is a sign-in that succeeded.
type Result struct {
	// Email is the account's address; "" when it could not be read (the
	// login works all the same).
	Email string
	// CredsPath is the file the login was written to.
	CredsPath string
	// Warning says what went wrong after the login was saved (the
	// account's address not read or not recorded); "" when nothing did.
	Warning string
}

func (c Config) withDefaults() Config {
	if c.Endpoints.AuthURL == "" {
		c.Endpoints = Google()
	}
	if c.HTTPClient == nil {
		c.HTTPClient = origin.Client(http.DefaultTransport)
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.CallbackHost = cmp.Or(c.CallbackHost, "127.0.0.1")
	return c
}

func (c Config) oauth(redirectURI string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     codeassist.OAuthClientID,
		ClientSecret: codeassist.OAuthClientSecret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   c.Endpoints.AuthURL,
			TokenURL:  c.Endpoints.TokenURL,
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: redirectURI,
		Scopes:      codeassist.OAuthScopes,
	}
}

// CredsPath is where the login is written.
func (c Config) CredsPath() string { return filepath.Join(c.UserDir, codeassist.CredsFile) }

// attempt is one authorization request: its URL and the secrets its
// answer is checked and redeemed with.
type attempt struct {
	cfg      Config
	oauth    *oauth2.Config
	state    string
	verifier string
	URL      string
}

func (c Config) newAttempt(redirectURI string) (*attempt, error) {
	if c.UserDir == "" {
		return nil, errors.New("no user directory to keep the login in (" + settings.HomeVariable + " and GEMINI_CLI_HOME are unset)")
	}
	state, err := randomHex(32)
	if err != nil {
		return nil, err
	}
	a := &attempt{cfg: c, oauth: c.oauth(redirectURI), state: state, verifier: oauth2.GenerateVerifier()}
	a.URL = a.oauth.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(a.verifier))
	return a, nil
}

// redeem exchanges code for tokens, saves them and records the account.
func (a *attempt) redeem(ctx context.Context, code string) (Result, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, a.cfg.HTTPClient)
	tok, err := a.oauth.Exchange(ctx, code, oauth2.VerifierOption(a.verifier))
	if err != nil {
		return Result{}, fmt.Errorf("Failed to exchange authorization code for tokens: %w", err)
	}
	res := Result{CredsPath: a.cfg.CredsPath()}
	if err := codeassist.SaveLogin(ctx, res.CredsPath, tok); err != nil {
		return Result{}, fmt.Errorf("saving the login to %s: %w", res.CredsPath, err)
	}
	email, err := a.cfg.email(ctx, tok.AccessToken)
	if err == nil {
		err = cacheAccount(ctx, filepath.Join(a.cfg.UserDir, AccountsFile), email)
	}
	if err != nil {
		res.Warning = fmt.Sprintf("the account's address was not recorded: %v", err)
	}
	res.Email = email
	return res, nil
}

// timeoutError is the end of a sign-in that took too long, worded as
// Gemini CLI words it.
func timeoutError(d time.Duration) error {
	return fmt.Errorf("Authentication timed out after %s. The browser tab may have gotten stuck in a loading state. "+
		"Please try again or use NO_BROWSER=true for manual authentication.", minutes(d))
}

func minutes(d time.Duration) string {
	if d%time.Minute == 0 {
		n := int(d / time.Minute)
		if n == 1 {
			return "1 minute"
		}
		return strconv.Itoa(n) + " minutes"
	}
	return d.String()
}

// ended is why a sign-in stopped waiting: its timeout, or ctx's end.
func ended(ctx context.Context, timeout time.Duration) error {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return timeoutError(timeout)
	}
	return fmt.Errorf("Authentication cancelled: %w", context.Cause(ctx))
}

var errTimedOut = errors.New("timed out")

// Browser signs in through the browser: it listens on a loopback port,
// gives open the authorization URL (to open in a browser, or to show the
// user), and waits for Google to send the browser back with the code, for
// at most the timeout or until ctx ends. open is called once, before the
// wait; it must not block.
func (c Config) Browser(ctx context.Context, open func(authURL string)) (Result, error) {
	c = c.withDefaults()
	ln, err := net.Listen("tcp", net.JoinHostPort(c.CallbackHost, strconv.Itoa(c.CallbackPort)))
	if err != nil {
		return Result{}, fmt.Errorf("OAuth callback server error: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	a, err := c.newAttempt(fmt.Sprintf("http://127.0.0.1:%d%s", port, callbackPath))
	if err != nil {
		ln.Close()
		return Result{}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.Timeout, errTimedOut)
	defer cancel()
	cb := &callback{attempt: a, ctx: ctx, done: make(chan outcome, 1)}
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	defer func() {
		// Let the browser have its redirect before the server goes.
		stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(stop) != nil {
			srv.Close()
		}
	}()
	open(a.URL)
	select {
	case o := <-cb.done:
		return o.res, o.err
	case <-ctx.Done():
		return Result{}, ended(ctx, c.Timeout)
	}
}

// Manual is a sign-in whose code the user pastes: show URL, then Finish
// with the code Google's page showed.
type Manual struct {
	a   *attempt
	URL string
}

// Manual starts a sign-in for a browser on another machine.
func (c Config) Manual() (*Manual, error) {
	a, err := c.withDefaults().newAttempt(ManualRedirectURI)
	if err != nil {
		return nil, err
	}
	return &Manual{a: a, URL: a.URL}, nil
}

// Finish redeems the code the user pasted, within the timeout.
func (m *Manual) Finish(ctx context.Context, code string) (Result, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return Result{}, errors.New("Authorization code is required.")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, m.a.cfg.Timeout, errTimedOut)
	defer cancel()
	res, err := m.a.redeem(ctx, code)
	if err != nil && ctx.Err() != nil {
		return Result{}, ended(ctx, m.a.cfg.Timeout)
	}
	return res, err
}

// Timeout is how long Finish may take, for a caller that waits for the
// code within the same bound.
func (m *Manual) Timeout() time.Duration { return m.a.cfg.Timeout }

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
