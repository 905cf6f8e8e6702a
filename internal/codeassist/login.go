package codeassist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/oauth2"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// CredsFile is the name of Gemini CLI's cached Google login in its user
// directory (~/.gemini).
const CredsFile = "oauth_creds.json"

// Gemini CLI's OAuth client (oauth2.ts). It is an installed application's
// client: Google documents that its "secret" is not treated as one, which
// is why Gemini CLI ships it in its source; gemini-ls refreshes the tokens
// Gemini CLI's login granted to that client, and signs in as that client
// (package internal/auth/login), so that either program can use the other's login.
const (
	OAuthClientID     = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
	OAuthClientSecret = "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"
	// GoogleTokenURL is Google's OAuth token endpoint.
	GoogleTokenURL = "https://oauth2.googleapis.com/token"
)

// OAuthScopes are the scopes Gemini CLI's login asks for.
var OAuthScopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/userinfo.email",
	"https://www.googleapis.com/auth/userinfo.profile",
}

// maxCredsSize bounds the credentials file.
const maxCredsSize = 1 << 20

// LoginHowTo says how to get a cached login: gemini-ls's own sign-in, or
// Gemini CLI's, which caches the same file.
const LoginHowTo = "Sign in with Google: run `gemini-ls login` (or your editor's \"Gemini: Sign in with Google\"), or run `gemini` and choose \"Sign in with Google\"; both cache the same login."

// NoLoginError reports that there is no usable cached login.
type NoLoginError struct {
	Path string
	Err  error // why the file could not be used
}

func (e *NoLoginError) Error() string {
	if errors.Is(e.Err, fs.ErrNotExist) {
		return fmt.Sprintf("No cached Google login found (%s does not exist). %s", e.Path, LoginHowTo)
	}
	return fmt.Sprintf("The cached Google login %s cannot be used: %v. %s", e.Path, e.Err, LoginHowTo)
}

func (e *NoLoginError) Unwrap() error { return e.Err }

// LoginConfig configures a Login.
type LoginConfig struct {
	// Path is the credentials file, <UserDir>/oauth_creds.json.
	Path string
	// TokenURL is the OAuth token endpoint; GoogleTokenURL when empty.
	TokenURL string
	// HTTPClient sends the refresh; http.DefaultClient when nil.
	HTTPClient *http.Client
	// Warn, when set, hears of a refreshed token that could not be
	// written back to Path.
	Warn func(error)
}

// Login is the cached Google login Gemini CLI keeps in a file. It reads
// the file when it needs a token (so a login made after gemini-ls started
// is used), refreshes an expired token with the refresh token, and writes
// the new token back to the file, for Gemini CLI and the next gemini-ls.
type Login struct {
	cfg LoginConfig
	// lock is held while the token is read or refreshed: a channel so that
	// a waiter whose context ends stops waiting.
	lock  chan struct{}
	token *oauth2.Token // the last token read or granted
	// read is the file as it was when token was read or written: a new
	// sign-in that replaced it is used at once, not when token expires.
	read fileStamp
}

// fileStamp tells one version of a file from another.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) fileStamp {
	info, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{info.ModTime(), info.Size()}
}

// NewLogin returns the cached login cfg names.
func NewLogin(cfg LoginConfig) *Login {
	if cfg.TokenURL == "" {
		cfg.TokenURL = GoogleTokenURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &Login{cfg: cfg, lock: make(chan struct{}, 1)}
}

// CheckLogin reports whether path holds a cached login gemini-ls can use
// (a token, or a refresh token to get one): nil, or a *NoLoginError. It
// does not check that the token is still valid; a request refreshes it.
func CheckLogin(path string) error {
	if _, _, err := readCreds(path); err != nil {
		return &NoLoginError{Path: path, Err: err}
	}
	return nil
}

// credsFile is the file's fields gemini-ls uses. The file is otherwise
// kept as it was.
type credsFile struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiryDate   int64  `json:"expiry_date"` // ms since the epoch
}

// Grant names the sign-in the file holds now: its refresh token, which a
// refresh keeps and a new sign-in replaces; "" when it cannot be read.
func (l *Login) Grant() string {
	_, creds, err := readCreds(l.cfg.Path)
	if err != nil {
		return ""
	}
	return creds.RefreshToken
}

// Token returns a valid access token, refreshing it when it expired.
func (l *Login) Token(ctx context.Context) (string, error) {
	select {
	case l.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-l.lock }()
	stamp := stampOf(l.cfg.Path)
	if l.token.Valid() && stamp == l.read {
		return l.token.AccessToken, nil
	}
	// Another process (Gemini CLI, another gemini-ls) may have refreshed or
	// replaced the login since: read the file again before refreshing.
	_, creds, err := readCreds(l.cfg.Path)
	if err != nil {
		return "", &NoLoginError{Path: l.cfg.Path, Err: err}
	}
	tok := &oauth2.Token{AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken, TokenType: creds.TokenType}
	if creds.ExpiryDate > 0 {
		tok.Expiry = time.UnixMilli(creds.ExpiryDate)
	}
	if tok.Valid() {
		l.token, l.read = tok, stamp
		return tok.AccessToken, nil
	}
	if tok.RefreshToken == "" {
		return "", &NoLoginError{Path: l.cfg.Path, Err: errors.New("its token expired and it holds no refresh token")}
	}
	fresh, err := l.refresh(ctx, tok)
	if err != nil {
		return "", fmt.Errorf("refreshing the cached Google login %s: %w (if the login was revoked: %s)", l.cfg.Path, err, LoginHowTo)
	}
	switch err := saveRefreshed(ctx, l.cfg.Path, tok.RefreshToken, fresh); {
	case errors.Is(err, errLoginReplaced):
		// Signed in again, or out, meanwhile: the token serves this call,
		// and is not kept, so the next one uses what the file holds now.
		return fresh.AccessToken, nil
	case err != nil && l.cfg.Warn != nil:
		// The token is good for this process all the same; the file keeps
		// the old one, which Gemini CLI refreshes on its own.
		l.cfg.Warn(fmt.Errorf("writing the refreshed login back to %s: %w", l.cfg.Path, err))
	}
	l.token, l.read = fresh, stampOf(l.cfg.Path)
	return fresh.AccessToken, nil
}

func (l *Login) refresh(ctx context.Context, tok *oauth2.Token) (*oauth2.Token, error) {
	cfg := &oauth2.Config{
		ClientID:     OAuthClientID,
		ClientSecret: OAuthClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: l.cfg.TokenURL, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:       OAuthScopes,
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, l.cfg.HTTPClient)
	// An expired token makes the source refresh; a copy without the access
	// token makes sure it does even within oauth2's early-expiry margin.
	expired := *tok
	expired.AccessToken = ""
	fresh, err := cfg.TokenSource(ctx, &expired).Token()
	if err != nil {
		return nil, err
	}
	// oauth2 keeps the old refresh token when the answer has no new one.
	return fresh, nil
}

// readCreds reads the credentials file: its raw fields, to keep on
// rewrite, and those gemini-ls uses. Only a regular file is read (a FIFO
// or a device would block or never end).
func readCreds(path string) (map[string]json.RawMessage, credsFile, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	info, err := os.Stat(path)
	if err != nil {
		return nil, credsFile{}, err
	}
	if !info.Mode().IsRegular() {
		return nil, credsFile{}, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, credsFile{}, err
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		return nil, credsFile{}, errors.New("replaced while being opened")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCredsSize+1))
	if err != nil {
		return nil, credsFile{}, err
	}
	if len(data) > maxCredsSize {
		return nil, credsFile{}, fmt.Errorf("larger than %d MiB", maxCredsSize>>20)
	}
	var raw map[string]json.RawMessage
	var creds credsFile
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, credsFile{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if err := json.Unmarshal(data, &creds); err != nil {
		return nil, credsFile{}, fmt.Errorf("unexpected field types: %w", err)
	}
	if creds.AccessToken == "" && creds.RefreshToken == "" {
		return nil, credsFile{}, errors.New("it holds no token")
	}
	return raw, creds, nil
}

// SaveLogin writes a new login to path as Gemini CLI caches one (its
// cacheCredentials): the token's fields alone, in the shape of
// google-auth-library's Credentials, replacing whatever login the file
// held, atomically and with mode 0600. The directory is made (0700) when
// missing. It is written under the file's lock (internal/sharedlock), as
// every rewrite of it by gemini-ls is, so that a refresh another
// gemini-ls is writing back does not land over it; when the lock cannot
// be had, the error says so and the file is left as it is.
func SaveLogin(ctx context.Context, path string, tok *oauth2.Token) error {
	if tok == nil || tok.AccessToken == "" {
		return errors.New("the sign-in granted no access token")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return err
	}
	defer lock.Release()
	return writeCreds(path, map[string]json.RawMessage{}, tok, lock)
}

// RemoveLogin removes the cached login at path, as signing out does,
// under the file's lock, so that a refresh another gemini-ls is writing
// back does not bring the login back; removed says whether there was
// one. When the lock cannot be had, the error says so and the file is
// left as it is.
func RemoveLogin(ctx context.Context, path string) (removed bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil // nothing to remove, nor to lock
	}
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return false, err
	}
	defer lock.Release()
	if err := lock.Held(); err != nil {
		return false, err
	}
	switch err := os.Remove(path); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("removing %s: %w", path, err)
	}
}

// errLoginReplaced is a refreshed token not written back because the
// file no longer holds the login that was refreshed.
var errLoginReplaced = errors.New("the cached login was replaced or removed while it was being refreshed")

// saveRefreshed writes tok, refreshed with the refresh token grant, over
// the token fields of the login at path, keeping its other fields. The
// file is read again and rewritten under its lock (internal/sharedlock),
// so that what another writer put in it since it was first read is kept;
// the refresh itself, a request to Google, is made before the lock is
// taken, never while others wait on it. A file that no longer holds grant
// (a sign-in or sign-out made meanwhile, by Gemini CLI or another
// gemini-ls) is left as it is: errLoginReplaced.
func saveRefreshed(ctx context.Context, path, grant string, tok *oauth2.Token) error {
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return err
	}
	defer lock.Release()
	raw, creds, err := readCreds(path)
	if err != nil || creds.RefreshToken != grant {
		return errLoginReplaced
	}
	return writeCreds(path, raw, tok, lock)
}

// writeCreds writes tok over the file's token fields, keeping the others,
// atomically: a temporary file in the same directory renamed over the old
// one, so a reader sees the old file or the new one, never a mix. lock is
// the file's, checked still held just before the rename.
func writeCreds(path string, raw map[string]json.RawMessage, tok *oauth2.Token, lock *sharedlock.Lock) error {
	set := func(key string, v any) {
		b, _ := json.Marshal(v)
		raw[key] = b
	}
	set("access_token", tok.AccessToken)
	set("refresh_token", tok.RefreshToken)
	set("token_type", "Bearer")
	if !tok.Expiry.IsZero() {
		set("expiry_date", tok.Expiry.UnixMilli())
	}
	if id, ok := tok.Extra("id_token").(string); ok && id != "" {
		set("id_token", id)
	}
	if scope, ok := tok.Extra("scope").(string); ok && scope != "" {
		set("scope", scope)
	}
	data, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	// A symlinked file (a dotfiles manager's) is rewritten where it
	// points, leaving the link in place, as Gemini CLI's writeFile does.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	// 0600, as Gemini CLI writes it: the tokens are the user's alone.
	return safefile.ReplaceIf(path, data, 0o600, lock.Held)
}
