package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// upgradeURL is where Gemini CLI 0.61 sends the user to change tier
// (UPGRADE_URL_PAGE).
const upgradeURL = "https://goo.gle/set-up-gemini-code-assist"

// upgrade is 0.61's /upgrade, which it offers only to a user signed in
// with Google: the URL of the page to change tier, which 0.61 opens in
// a browser and gives as text where it cannot (as here, in an editor or
// a pipe); for an Ultra tier, that there is none higher.
func upgrade(ctx context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, errors.New("/upgrade takes no arguments; usage: /upgrade")
	}
	if env.Built.AuthStatus().Type != auth.OAuthPersonal || env.Built.AuthErr != nil {
		return Reply{}, errors.New("The /upgrade command is only available when logged in with Google.")
	}
	openURL := "Please open this URL in a browser: " + upgradeURL
	tier, err := tierName(ctx, env)
	switch {
	case err != nil:
		// 0.61 knows the tier from its start; here it is read now, and
		// without it the page is still the way to a higher one.
		return Reply{Text: fmt.Sprintf("%s\n\n(The account's tier could not be read: %v.)", openURL, err)}, nil
	case strings.Contains(strings.ToLower(tier), "ultra"):
		return Reply{Text: fmt.Sprintf("You are already on the highest tier: %s.", tier)}, nil
	}
	return Reply{Text: openURL}, nil
}

// tierName is the name of the account's Code Assist tier (its paid
// tier's when it has one), as the setup found it.
func tierName(ctx context.Context, env Env) (string, error) {
	client, ok, err := env.Built.CodeAssist(ctx)
	if err != nil || !ok {
		return "", err
	}
	user, err := client.Setup(ctx)
	return user.TierName, err
}
