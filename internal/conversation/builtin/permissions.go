package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func permissionsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("trust", "Manage folder trust settings. Usage: /permissions trust [<directory-path>]", "[<directory-path>]"), Run: trustFolder, Changes: "folder trust"},
	}
}

// trustFolder is Gemini CLI's /permissions trust: the trust question
// about the folder named (~ the home directory, relative the first
// root's; the first root when none), its answer recorded in
// trustedFolders.json. A front end that cannot put the question records
// TRUST_FOLDER, which is what the command's name asks for, and says so.
// A change to the workspace's own trust counts from the next prompt,
// which the host builds anew for (setup.Built.TrustChanged, Host.Rebuild).
func trustFolder(ctx context.Context, env Env, args string) (Reply, error) {
	dir := env.Root
	if args != "" {
		dir = env.Built.UserPath(args)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return Reply{}, fmt.Errorf("Error accessing path: %s. %v", dir, err)
	}
	if !info.IsDir() {
		return Reply{}, fmt.Errorf("Path is not a directory: %s", dir)
	}
	level, how, err := askTrust(ctx, env, dir)
	if err != nil {
		return Reply{}, err
	}
	if level == "" {
		return Reply{Text: fmt.Sprintf("The trust level of %s was not changed.", dir)}, nil
	}
	if err := env.Built.SetTrust(ctx, dir, level); err != nil {
		return Reply{}, fmt.Errorf("Failed to save trust settings: %w", err)
	}
	text := fmt.Sprintf("%sFolder: %s\nTrust level: %s", how, dir, level)
	if level == settings.DoNotTrust && env.Built.Trusts(dir) {
		text += "\n\nNote: This folder is still trusted, by a parent folder's rule, GEMINI_CLI_TRUST_WORKSPACE or security.folderTrust.enabled."
	}
	if env.Built.TrustChanged() {
		text += "\n\nThe workspace's trust changed: it applies from the next prompt."
	}
	return Reply{Text: text}, nil
}

// askTrust puts the trust question about dir; "" when the user dismissed
// it. how is what to tell the user of how the level was chosen.
func askTrust(ctx context.Context, env Env, dir string) (level, how string, err error) {
	if env.Trust != nil {
		req := dialog.TrustRequest{SessionID: env.Session.ID(), Folder: dir, Changed: env.Built.TrustNow().Changed(dir)}
		level, err = env.Trust.AskTrust(ctx, req)
		if !errors.Is(err, dialog.ErrCannotAsk) {
			return level, "", err
		}
	}
	return settings.TrustFolder, "This editor cannot show the trust question, so the folder is trusted as /permissions trust asks.\n", nil
}
