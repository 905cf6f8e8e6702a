package acp

// ACP's logout: the connection forgets how it signed in, as /auth signout
// (also /logout) does in a session.

import (
	"context"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// UnstableLogout answers logout (stable in the pinned schema; the SDK's
// name is from before). As /auth signout: the cached Google login goes
// (login.SignOut, which Gemini CLI shares) and so does
// security.auth.selectedType from the user's settings; and the method and
// key authenticate chose are forgotten. From then on a session is opened
// (session/new, load, resume, a parked one again) only after authenticate,
// as the protocol asks: an API key in the environment does not sign the
// connection in again. Sessions already open keep the credentials they
// were built with, which the protocol leaves to the agent.
func (s *server) UnstableLogout(ctx context.Context, _ sdk.UnstableLogoutRequest) (sdk.UnstableLogoutResponse, error) {
	s.mu.Lock()
	s.authType, s.apiKey, s.loggedOut = "", "", true
	s.mu.Unlock()
	dir := settings.UserDir(s.opts.Getenv)
	if dir == "" {
		// No home: nothing was cached, and nothing is to remove.
		return sdk.UnstableLogoutResponse{}, nil
	}
	removed, err := login.SignOut(ctx, dir)
	if err != nil {
		return sdk.UnstableLogoutResponse{}, sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("removing the cached Google login: %v", err)})
	}
	user := filepath.Join(dir, "settings.json")
	cleared, err := settings.DeleteValue(ctx, user, []string{"security", "auth", "selectedType"})
	if err != nil {
		return sdk.UnstableLogoutResponse{}, sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("the cached login was removed, but security.auth.selectedType was not removed from %s: %v", user, err)})
	}
	s.log.Info("logged out", zap.Bool("cachedLoginRemoved", removed), zap.Bool("selectedTypeRemoved", cleared))
	return sdk.UnstableLogoutResponse{}, nil
}

// signedOut is the auth_required error a session is refused with after
// logout, until authenticate; nil otherwise.
func (s *server) signedOut() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loggedOut {
		return nil
	}
	return sdk.NewAuthRequired(map[string]any{"error": "logged out: choose a sign-in with authenticate before opening a session"})
}
