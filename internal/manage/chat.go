package manage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// Chat is where a chat's /extensions install, link, update and
// uninstall and /skills link run (Gemini CLI 0.61's chat has them): the
// same code as `gemini-ls extensions` and `gemini-ls skills link`, in
// the chat's workspace and environment, its questions put to the chat's
// user through Ask.
type Chat struct {
	Getenv    settings.Getenv
	Workspace string
	// Ask puts a question to the chat's user; an error says nobody can
	// answer it, and the command then refuses.
	Ask Asker
}

// ChatExtensionCommands are the gemini-ls extensions commands a chat runs
// (Chat.Extensions), by name; the chat lists and enables its own.
func ChatExtensionCommands() []string { return []string{"install", "link", "update", "uninstall"} }

// ErrFailed is a command that ran and failed: the output says why.
var ErrFailed = errors.New("the command failed")

// Extensions runs `gemini-ls extensions sub args...` (sub one of
// ChatExtensionCommands) and returns what it said; an error wrapping
// ErrFailed when it failed, the output then saying why. usage is the
// chat's command line for sub, which a usage error names.
func (c Chat) Extensions(ctx context.Context, sub, usage string, args []string) (string, error) {
	subs := extensionsSubs()
	i := slices.IndexFunc(subs, func(s extensionsSub) bool { return s.name == sub })
	if i < 0 || !slices.Contains(ChatExtensionCommands(), sub) {
		return "", fmt.Errorf("no such extensions command %q for a chat", sub)
	}
	var out bytes.Buffer
	x := extensionsIn(c.Getenv, c.Workspace, sub, &out, &out)
	x.asker, x.prog, x.usageTail = c.Ask, "/extensions", "usage: "+usage
	code := subs[i].do(ctx, x, args)
	text := strings.TrimSpace(out.String())
	if code != 0 {
		return text, ErrFailed
	}
	return text, nil
}

// LinkSkills is `gemini-ls skills link source --scope scope` (scope
// "user" or "workspace", the chat's): source, relative to the
// workspace, linked into the scope's skills directory once the user
// consents. It returns what it said on the way.
func (c Chat) LinkSkills(source, scope string) (string, error) {
	userDir := settings.UserDir(c.Getenv)
	if userDir == "" {
		return "", errors.New("neither " + settings.HomeVariable + " nor GEMINI_CLI_HOME is set: there is no user skills directory")
	}
	if !filepath.IsAbs(source) {
		source = filepath.Join(c.Workspace, source)
	}
	var said strings.Builder
	logf := func(msg string) { fmt.Fprintln(&said, msg) }
	consent := func(found []skills.Skill, target string) (bool, error) {
		return c.Ask(skills.ConsentText(found, source, target, true), "Do you want to continue? [Y/n]: ", true)
	}
	_, err := skills.Link(source, skillsDir(scope, c.Workspace, userDir), logf, consent)
	return strings.TrimSpace(said.String()), err
}
