package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/auth/login"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// authSubcommands are /auth's, as Gemini CLI 0.61's: signin (the
// default), which there opens a dialog to sign in, and signout.
func authSubcommands() []Builtin {
	return []Builtin{
		{Command: also(command("signin", "Show how gemini-ls signs in, and how to sign in with Google", ""), "login"), Run: signIn},
		{Command: also(command("signout", "Sign out of Google: remove the cached login", ""), "logout"), Run: signOut, Changes: "how gemini-ls signs in (the cached login, your settings)"},
	}
}

// signIn says how the session signs in and how to sign in: 0.61's dialog
// is the editor's own sign-in here (or `gemini-ls login`), which runs
// outside a conversation.
func signIn(_ context.Context, env Env, _ string) (Reply, error) {
	r := env.Built.AuthStatus()
	var b strings.Builder
	fmt.Fprintf(&b, "Auth: %s (from %s)", orUnknown(r.Type), r.Source)
	if r.Problem != "" {
		b.WriteString(": " + r.Problem)
	}
	b.WriteString(".\n\n" + codeassist.LoginHowTo)
	b.WriteString("\nTo use an API key instead, set GEMINI_API_KEY in the environment gemini-ls starts in, or in a `.env` file where Gemini CLI reads one.")
	return Reply{Text: b.String()}, nil
}

// signOut is 0.61's /auth signout: the cached Google login goes
// (login.SignOut), and so does security.auth.selectedType from the user's
// settings, so that the next start chooses again.
func signOut(ctx context.Context, env Env, _ string) (Reply, error) {
	dir := settings.UserDir(env.Built.Getenv)
	if dir == "" {
		return Reply{}, fmt.Errorf("not signed out: there is no home directory to hold a login: %s", noScopeFile("user"))
	}
	removed, err := login.SignOut(ctx, dir)
	if err != nil {
		return Reply{}, fmt.Errorf("not signed out: %w", err)
	}
	user, _ := env.Built.SkillSettingsFiles()
	cleared, err := settings.DeleteValue(ctx, user, []string{"security", "auth", "selectedType"})
	if err != nil {
		return Reply{}, fmt.Errorf("the cached login was removed, but security.auth.selectedType was not removed from %s: %w", user, err)
	}
	var b strings.Builder
	if removed {
		b.WriteString("Signed out: the cached Google login was removed.")
	} else {
		b.WriteString("There was no cached Google login to remove.")
	}
	if cleared {
		fmt.Fprintf(&b, " security.auth.selectedType was removed from %s.", user)
	}
	if r := env.Built.AuthStatus(); r.Type == auth.OAuthPersonal {
		b.WriteString(" This session signs in with Google, so its next request will fail until you sign in again. " + codeassist.LoginHowTo)
	}
	return Reply{Text: b.String()}, nil
}
