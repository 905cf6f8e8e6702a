package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// hasCachedLogin reports whether a Google login is cached where Gemini
// CLI caches it.
func hasCachedLogin(getenv func(string) string) bool {
	dir := settings.UserDir(getenv)
	return dir != "" && codeassist.CheckLogin(filepath.Join(dir, codeassist.CredsFile)) == nil
}

// signIn runs Gemini CLI's "Sign in with Google" for authenticate: the
// browser is opened on Google's page (ACP has no way to ask the client
// to), whose URL goes to the log too, for a user whose browser did not
// open; it returns when the browser came back, the sign-in failed or
// timed out, or the request was cancelled.
func (s *server) signIn(ctx context.Context, getenv func(string) string) error {
	cfg := s.opts.SignIn
	cfg.UserDir = settings.UserDir(getenv)
	cfg.CallbackHost = strings.TrimSpace(getenv("OAUTH_CALLBACK_HOST"))
	if port, err := strconv.Atoi(strings.TrimSpace(getenv("OAUTH_CALLBACK_PORT"))); err == nil {
		cfg.CallbackPort = port
	}
	res, err := cfg.Browser(ctx, func(url string) {
		s.log.Warn("Sign in with Google: attempting to open the authentication page in your browser; otherwise navigate to: " + url)
		if err := login.OpenBrowser(url, getenv); err != nil {
			s.log.Warn("the browser did not open; open the URL above yourself", zap.Error(err))
		}
	})
	if err != nil {
		return fmt.Errorf("Sign in with Google failed: %w", err)
	}
	s.log.Info("signed in with Google", zap.String("email", res.Email), zap.String("credentials", res.CredsPath))
	if res.Warning != "" {
		s.log.Warn("signed in, but " + res.Warning)
	}
	return nil
}
