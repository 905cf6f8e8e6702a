package builtin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/manage"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

const (
	enableHint  = "<extension>|--all [--scope=user|workspace]"
	installHint = "<source> [--ref <ref>] [--auto-update] [--pre-release] [--consent]"
	namesHint   = "<extension-names>|--all"
)

// extensionsGallery is where Gemini CLI's /extensions explore sends the
// user.
const extensionsGallery = "https://geminicli.com/extensions/"

// extensionsChange is what installing, updating, linking, enabling or
// disabling an extension changes: the code, servers and hooks it brings.
const extensionsChange = "the extensions (what they run and bring)"

func extensionsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the installed extensions and what each contributes", ""), Run: listExtensions},
		{Command: command("update", "Update an extension, or all: copy a local one again from its source, or fetch a git one again", "<name>|--all"), Run: changeExtensions("update", "<name>|--all"), Changes: extensionsChange},
		{Command: command("explore", "Show where the extensions gallery is", ""), Run: exploreExtensions},
		{Command: also(command("reload", "Load the extensions again, from the next prompt", namesHint), "restart"), Run: reloadExtensions},
		{Command: command("enable", "Enable an extension, for you (user) or this workspace", enableHint), Run: setEnabled(true), Changes: extensionsChange},
		{Command: command("disable", "Disable an extension, for you (user) or this workspace", enableHint), Run: setEnabled(false), Changes: extensionsChange},
		{Command: command("install", "Install an extension from a git repository or a local path", installHint), Run: changeExtensions("install", installHint), Changes: extensionsChange},
		{Command: also(command("uninstall", "Uninstall extensions, by name or source", namesHint), "delete"), Run: changeExtensions("uninstall", namesHint), Changes: extensionsChange},
		{Command: command("link", "Link an extension from a local path: its changes show at once", "<path> [--consent]"), Run: changeExtensions("link", "<path> [--consent]"), Changes: extensionsChange},
		{Command: command("config", "Show an extension's settings, or set one in its .env file", configHint), Run: configureExtensions, Changes: settingsChange},
	}
}

// reloadNote tells the user when a change to the extensions counts.
const reloadNote = "The session loads the extensions again before its next prompt."

// changeExtensions runs sub (install, link, update, uninstall) as
// `gemini-ls extensions <sub>` runs it (package manage), its questions
// (the consent, the folders' trust) put to the user through the door the
// agent's confirmations go, refused where nobody can answer. As Gemini
// CLI loads an extension it installs into its session, a change is
// loaded before the next prompt (setup.Built.ExtensionsChanged).
func changeExtensions(sub, hint string) func(context.Context, Env, string) (Reply, error) {
	return func(ctx context.Context, env Env, args string) (Reply, error) {
		chat := manage.Chat{Getenv: env.Built.Getenv, Workspace: env.Root, Ask: askInChat(ctx, env)}
		before := installedFingerprint(env)
		said, err := chat.Extensions(ctx, sub, strings.TrimSpace("/extensions "+sub+" "+hint), strings.Fields(args))
		if installedFingerprint(env) != before {
			env.Built.ExtensionsChanged()
			said = withNewline(said) + reloadNote
		}
		switch {
		case errors.Is(err, manage.ErrFailed) && said != "":
			return Reply{}, errors.New(said)
		case err != nil:
			return Reply{}, fmt.Errorf("/extensions %s failed: %w", sub, err)
		}
		return Reply{Text: said}, nil
	}
}

// installedFingerprint says which extensions are installed on disk now,
// at which version, from where, to see whether a command changed them.
func installedFingerprint(env Env) string {
	var b strings.Builder
	loaded := extensions.Load(extensions.Config{UserDir: settings.UserDir(env.Built.Getenv), Workspace: env.Root, Getenv: env.Built.Getenv})
	for _, e := range loaded.All {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\n", e.Name, e.Version, e.Path, e.Install.Source)
	}
	return b.String()
}

// askInChat is how a command run in the chat asks its user: through the
// turn's port (Env.Port), the question as the
// title, what it is about as the details. An error wrapping
// dialog.ErrCannotAsk says nobody can answer.
func askInChat(ctx context.Context, env Env) manage.Asker {
	return func(text, question string, _ bool) (bool, error) {
		if env.Port == nil {
			return false, fmt.Errorf("%w: nobody can answer questions here", dialog.ErrCannotAsk)
		}
		title := strings.TrimSpace(question)
		if i := strings.LastIndex(title, " ["); i > 0 {
			title = title[:i] // the terminal's [Y/n]: the front end offers its own answers
		}
		req := dialog.ConfirmRequest{Kind: dialog.ConfirmExtension, Title: title, Details: strings.TrimSpace(text)}
		if env.Session != nil {
			req.SessionID = env.Session.ID()
		}
		outcome, err := env.Port.Confirm(ctx, req)
		if err != nil {
			return false, err
		}
		return outcome != dialog.Cancel, nil
	}
}

// exploreExtensions is Gemini CLI's /extensions explore where it cannot
// open a browser: where the gallery is.
func exploreExtensions(_ context.Context, _ Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("extensions", "explore", "", fmt.Sprintf("unexpected %q", args))
	}
	return Reply{Text: "View available extensions at " + extensionsGallery}, nil
}

// reloadExtensions is Gemini CLI's /extensions reload: the enabled
// extensions named (--all: every one) are loaded again. gemini-ls loads
// them all again, with the agent, before the next prompt.
func reloadExtensions(_ context.Context, env Env, args string) (Reply, error) {
	names := strings.Fields(args)
	if len(names) == 0 {
		return Reply{}, subUsage("extensions", "reload", namesHint, "name the extensions to reload, or --all")
	}
	var active, notFound []string
	for _, e := range env.Built.Extensions.Active() {
		active = append(active, e.Name)
	}
	all := len(names) == 1 && names[0] == "--all"
	if !all {
		for _, n := range names {
			if !slices.Contains(active, n) {
				notFound = append(notFound, n)
			}
		}
	}
	var b strings.Builder
	if len(notFound) > 0 {
		fmt.Fprintf(&b, "Extension(s) not found or not active: %s\n", strings.Join(notFound, ", "))
	}
	if len(active) == 0 || len(notFound) == len(names) {
		b.WriteString("No extension to reload.")
		return Reply{Text: b.String()}, nil
	}
	env.Built.ExtensionsChanged()
	b.WriteString("Every extension (gemini-ls reloads them together, with the agent) is loaded again before the next prompt.")
	return Reply{Text: b.String()}, nil
}

// setEnabled enables or disables extensions as Gemini CLI's /extensions
// enable and disable do: recorded in extension-enablement.json for the
// user's home directory or the workspace (the first root), and all below
// it. The scope is the user's when none is named, as `gemini extensions
// disable` takes it. As Gemini CLI with extension reloading loads or
// unloads the extension in its session, a change marks the build stale:
// the front end loads the extensions again before the next prompt.
func setEnabled(enable bool) func(context.Context, Env, string) (Reply, error) {
	verb := "disable"
	if enable {
		verb = "enable"
	}
	return func(ctx context.Context, env Env, args string) (Reply, error) {
		names, scope, err := parseEnableArgs(env, args, enable)
		if err != nil {
			return Reply{}, subUsage("extensions", verb, enableHint, err.Error())
		}
		userDir := settings.UserDir(env.Built.Getenv)
		dir, label := filepath.Dir(userDir), "User"
		if scope == "workspace" {
			dir, label = env.Root, "Workspace"
		}
		var b strings.Builder
		for _, name := range names {
			if err := extensions.SetEnabled(ctx, userDir, name, enable, dir); err != nil {
				return Reply{}, fmt.Errorf("extension %q was not %sd: %w", name, verb, err)
			}
			fmt.Fprintf(&b, "Extension %q %sd for the scope %q.\n", name, verb, label)
		}
		if len(names) == 0 {
			fmt.Fprintf(&b, "No extension to %s.\n", verb)
			return Reply{Text: b.String()}, nil
		}
		env.Built.ExtensionsChanged()
		b.WriteString(reloadNote)
		return Reply{Text: b.String()}, nil
	}
}

// parseEnableArgs reads "<name>|--all [--scope=<scope>|--scope <scope>]":
// the extensions named (--all: every one whose state would change) and
// the scope, "user" or "workspace".
func parseEnableArgs(env Env, args string, enable bool) (names []string, scope string, err error) {
	parts := strings.Fields(args)
	if len(parts) == 0 {
		return nil, "", errors.New("name an extension, or --all")
	}
	scope = "user"
	switch rest := parts[1:]; {
	case len(rest) == 0:
	case len(rest) == 1 && strings.HasPrefix(rest[0], "--scope="):
		scope = strings.TrimPrefix(rest[0], "--scope=")
	case len(rest) == 2 && rest[0] == "--scope":
		scope = rest[1]
	default:
		return nil, "", fmt.Errorf("unexpected %q", strings.Join(rest, " "))
	}
	scope = strings.ToLower(scope)
	if scope != "user" && scope != "workspace" {
		return nil, "", fmt.Errorf(`unsupported scope %q, should be "user" or "workspace" (gemini-ls loads extensions once, at its start, so there is no "session" scope)`, scope)
	}
	loaded := env.Built.Extensions.All
	if parts[0] == "--all" {
		for _, e := range loaded {
			if e.Enabled != enable {
				names = append(names, e.Name)
			}
		}
		return names, scope, nil
	}
	if !slices.ContainsFunc(loaded, func(e extensions.Extension) bool { return e.Name == parts[0] }) {
		return nil, "", fmt.Errorf("extension with name %s does not exist", parts[0])
	}
	return []string{parts[0]}, scope, nil
}

// noExtensions is /extensions list's answer when there are none, naming
// gemini-ls's own commands, which install where Gemini CLI's do.
const noExtensions = "No extensions installed: install one with `/extensions install <source>` or `/extensions link <path>` (or `gemini-ls extensions install`, the command line's); gemini-ls loads those in ~/.gemini/extensions, as Gemini CLI does."

// listExtensions lists the extensions as this process loaded them at its
// start (a change takes effect on restart, as in Gemini CLI): each with
// its version, whether it is enabled here, and what it contributes; then
// those that could not be loaded, and why.
func listExtensions(_ context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("extensions", "list", "", fmt.Sprintf("unexpected %q", args))
	}
	loaded := env.Built.Extensions
	if len(loaded.All) == 0 && len(loaded.Errs) == 0 {
		return Reply{Text: noExtensions}, nil
	}
	var b strings.Builder
	if len(loaded.All) > 0 {
		fmt.Fprintf(&b, "Installed extensions (%d):\n", len(loaded.All))
	}
	for _, e := range loaded.All {
		writeExtension(&b, e, env.Commands)
	}
	var broken, other []error
	for _, err := range loaded.Errs {
		var ext *extensions.Error
		if errors.As(err, &ext) {
			broken = append(broken, err)
		} else {
			other = append(other, err)
		}
	}
	for _, group := range []struct {
		heading string
		errs    []error
	}{{"Not loaded:", broken}, {"Problems:", other}} {
		if len(group.errs) > 0 {
			b.WriteString(group.heading + "\n")
			for _, err := range group.errs {
				fmt.Fprintf(&b, "- %v\n", err)
			}
		}
	}
	b.WriteString("Enabling or disabling takes effect when gemini-ls starts again.")
	return Reply{Text: b.String()}, nil
}

// writeExtension is e's entry: its name, version and state, then what it
// contributes (only while enabled).
func writeExtension(b *strings.Builder, e extensions.Extension, cmds []commands.Command) {
	state := "enabled"
	if !e.Enabled {
		state = "disabled here"
	}
	fmt.Fprintf(b, "- `%s` %s — %s", e.Name, e.Version, state)
	if e.Install.Type == "link" {
		fmt.Fprintf(b, ", linked to %s", e.Path)
	} else {
		fmt.Fprintf(b, ", %s", e.Path)
	}
	b.WriteByte('\n')
	if e.Description != "" {
		fmt.Fprintf(b, "  %s\n", e.Description)
	}
	if !e.Enabled {
		return
	}
	item := func(what string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(b, "  - %s: %s\n", what, strings.Join(names, ", "))
		}
	}
	item("MCP servers", quoted(slices.Sorted(maps.Keys(e.MCPServers))))
	item("Context files", e.ContextFiles)
	var names []string
	for _, c := range cmds {
		if c.Source == commands.Extension && c.Extension == e.Name {
			names = append(names, "/"+c.Name)
		}
	}
	item("Commands", quoted(names))
	item("Excluded tools", quoted(e.ExcludeTools))
	var more []string
	for _, p := range []struct{ what, path string }{{"skills", e.SkillsDir()}, {"policies", e.PoliciesDir()}, {"hooks", e.HooksFile()}} {
		if _, err := os.Stat(p.path); err == nil {
			more = append(more, p.what+" ("+p.path+")")
		}
	}
	item("Also", more)
	for _, s := range e.Settings {
		state := "not set"
		if s.Set {
			state = "set"
		}
		fmt.Fprintf(b, "  - Setting %s (%s): %s\n", s.Name, s.EnvVar, state)
	}
}
