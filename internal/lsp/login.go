package lsp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// loginParams are gemini/login's params.
type loginParams struct {
	// Manual asks for the pasted-code sign-in, for a browser on another
	// machine; so does NO_BROWSER=true in the server's environment.
	Manual bool `json:"manual"`
}

// loginResult is gemini/login's result.
type loginResult struct {
	// Email is the account signed in; "" when it could not be read.
	Email string `json:"email"`
	// CredentialsFile is where the login was cached.
	CredentialsFile string `json:"credentialsFile"`
	// Auth is the auth set-up after the sign-in, as gemini/authStatus
	// reports it.
	Auth auth.Report `json:"auth"`
}

// login runs gemini/login: Gemini CLI's "Sign in with Google", then the
// agent set up again when it had no credentials, so the next prompt uses
// the login. It answers when the sign-in ended: signed in, failed, timed
// out, or cancelled ($/cancelRequest).
func (s *Server) login(ctx context.Context, p loginParams) (loginResult, error) {
	cfg := s.signInConfig()
	var res login.Result
	var err error
	if p.Manual || login.NoBrowser(s.getenv) {
		res, err = s.manualSignIn(ctx, cfg)
	} else {
		res, err = cfg.Browser(ctx, func(url string) { s.showSignInPage(ctx, url) })
	}
	if err != nil {
		s.log.Info("sign-in failed", zap.Error(err))
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return loginResult{}, jsonrpc2.NewError(codeRequestCancelled, "the sign-in was cancelled")
		}
		return loginResult{}, jsonrpc2.Errorf(codeRequestFailed, "Sign in with Google failed: %v", err)
	}
	if res.Warning != "" {
		s.log.Warn("signed in, but "+res.Warning, zap.String("credentials", res.CredsPath))
	}
	report := s.useLogin(ctx)
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: messageTypeFor(report), Message: signedInMessage(res, report)})
	return loginResult{Email: res.Email, CredentialsFile: res.CredsPath, Auth: report}, nil
}

// signInConfig is the sign-in as the server's environment and options
// configure it: the endpoints come from Options alone (tests), never from
// the environment a workspace's .env file joins.
func (s *Server) signInConfig() login.Config {
	cfg := s.opts.SignIn
	cfg.UserDir = settings.UserDir(s.getenv)
	cfg.CallbackHost = strings.TrimSpace(s.getenv("OAUTH_CALLBACK_HOST"))
	if port, err := strconv.Atoi(strings.TrimSpace(s.getenv("OAUTH_CALLBACK_PORT"))); err == nil {
		cfg.CallbackPort = port
	}
	return cfg
}

// showSignInPage opens the authorization URL in the user's browser
// through the client (window/showDocument, external) and shows it in a
// message too, for a client that cannot open it.
func (s *Server) showSignInPage(ctx context.Context, url string) {
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: "Gemini: sign in with Google in your browser. If it did not open, go to: " + url})
	if !s.features.get().ShowDocument {
		return
	}
	// Not waited for: the sign-in listens for the browser meanwhile.
	go func() {
		external := true
		var res protocol.ShowDocumentResult
		if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.URI(url), External: &external}, &res); err != nil || !res.Success {
			s.log.Info("the client did not open the sign-in page", zap.Error(err))
		}
	}()
}

// manualSignIn shows the URL and asks the user for the code Google's
// page shows (gemini/ask, in the user's own words).
func (s *Server) manualSignIn(ctx context.Context, cfg login.Config) (login.Result, error) {
	if !s.features.get().Ask {
		return login.Result{}, errors.New("this editor cannot be asked for the authorization code; run `gemini-ls login` in a terminal, or sign in without manual")
	}
	m, err := cfg.Manual()
	if err != nil {
		return login.Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.Timeout())
	defer cancel()
	var answer askResult
	q := askParams{Kind: "login", Title: "Sign in with Google", Options: []askedOption{}, FreeText: true,
		Text: "Open this URL in a browser, sign in, and paste the authorization code it shows:\n\n" + m.URL}
	if err := s.askUser(ctx, "gemini/ask", q, &answer); err != nil {
		return login.Result{}, fmt.Errorf("asking for the authorization code: %w", err)
	}
	if answer.Declined {
		return login.Result{}, fmt.Errorf("Authentication cancelled: %w", context.Canceled)
	}
	return m.Finish(ctx, answer.Text)
}

// useLogin makes the agent use the new login: an agent that had no
// credentials is built again (Host.Rebuild: the sessions continue in
// it); a running one reads the cached login anew on its next request. It
// returns the auth set-up now.
func (s *Server) useLogin(ctx context.Context) auth.Report {
	b := s.agentState.setup()
	if b == nil {
		return auth.Status("", s.getenv)
	}
	if b.AuthErr() != nil {
		if err := s.host.Rebuild(ctx, b); err != nil {
			s.log.Warn("the agent was not set up again after the sign-in", zap.Error(err))
			return b.AuthStatus()
		}
		s.configureCompletion(b)
	}
	return b.AuthStatus()
}

func messageTypeFor(r auth.Report) protocol.MessageType {
	if r.Usable && r.Type == auth.OAuthPersonal {
		return protocol.MessageTypeInfo
	}
	return protocol.MessageTypeWarning
}

// signedInMessage says who signed in and whether prompts use the login.
func signedInMessage(res login.Result, r auth.Report) string {
	who := "Gemini: signed in with Google"
	if res.Email != "" {
		who += " as " + res.Email
	}
	switch {
	case r.Type == auth.OAuthPersonal && r.Usable:
		return who + "."
	case r.Type == auth.OAuthPersonal:
		return who + ", but the login cannot be used: " + r.Problem
	}
	return fmt.Sprintf("%s, but gemini-ls uses %s (from %s); set security.auth.selectedType to %q in ~/.gemini/settings.json to use the Google login.",
		who, r.Type, r.Source, auth.OAuthPersonal)
}
