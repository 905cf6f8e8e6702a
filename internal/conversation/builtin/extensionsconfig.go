package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// configHint is /extensions config's usage: 0.61's [name] [setting]
// [--scope], and the value its dialog would ask for.
const configHint = "[<extension> [<setting> [<value>|--unset]]] [--scope user]"

// settingsChange is what /extensions config with a value changes.
const settingsChange = "an extension's settings (the environment its servers and hooks run with)"

// configArgs are /extensions config's words.
type configArgs struct {
	name, setting, value string
	unset                bool
}

// configureExtensions is Gemini CLI 0.61's /extensions config where no
// dialog can ask for a value: without one it shows the settings of every
// installed extension (a name: of that one; a setting too: that one),
// with 0.61's words where it has them; with one it writes it into the
// extension's .env file as 0.61's updateSetting does for the user scope
// (--unset removes it, as 0.61's empty answer does). Typed-only, as a
// whole: 0.61's is a dialog, and a value changes what the extension's
// servers and hooks run with.
// A sensitive setting, which 0.61 keeps in the system keychain, is
// shown but never set; the workspace scope (0.61's <workspace>/.env),
// which gemini-ls does not read for extensions, is refused.
func configureExtensions(_ context.Context, env Env, raw string) (Reply, error) {
	args, err := parseConfigArgs(raw)
	if err != nil {
		return Reply{}, subUsage("extensions", "config", configHint, err.Error())
	}
	loaded := extensions.Load(extensions.Config{UserDir: settings.UserDir(env.Built.Getenv), Workspace: env.Root, Getenv: env.Built.Getenv})
	if args.name == "" {
		return Reply{Text: allExtensionSettings(loaded.All)}, nil
	}
	ext, ok := findExtension(loaded.All, args.name)
	if !ok {
		return Reply{}, fmt.Errorf("Extension %q is not installed.", args.name)
	}
	if len(ext.Settings) == 0 {
		return Reply{Text: fmt.Sprintf("Extension %q has no settings to configure.", ext.Name)}, nil
	}
	if args.setting == "" {
		return Reply{Text: extensionSettings(ext)}, nil
	}
	s, ok := ext.FindSetting(args.setting)
	if !ok {
		return Reply{}, fmt.Errorf("Setting %s not found; extension %q has %s", args.setting, ext.Name, settingNames(ext))
	}
	if args.value == "" && !args.unset {
		return Reply{Text: settingLine(s) + fmt.Sprintf("\n\nSet it with `/extensions config %s %s <value>`.", ext.Name, s.EnvVar)}, nil
	}
	if err := extensions.SetSetting(ext, s, args.value); err != nil {
		return Reply{}, fmt.Errorf("setting %q of extension %q was not updated: %w", s.Name, ext.Name, err)
	}
	env.Built.ExtensionsChanged()
	return Reply{Text: fmt.Sprintf("Setting %q updated (%s).\n%s", args.setting, ext.SettingsPath(), reloadNote)}, nil
}

// parseConfigArgs reads raw as 0.61 reads /extensions config's words
// (--scope=X or --scope X anywhere before the value), then the value:
// the rest of raw after the setting, its spaces kept.
func parseConfigArgs(raw string) (configArgs, error) {
	var a configArgs
	rest := strings.TrimSpace(raw)
	for rest != "" && a.value == "" {
		word, after, _ := strings.Cut(rest, " ")
		after = strings.TrimSpace(after)
		switch {
		case word == "--scope":
			word, after, _ = strings.Cut(after, " ")
			if err := checkScope(word); err != nil {
				return a, err
			}
		case strings.HasPrefix(word, "--scope="):
			if err := checkScope(strings.TrimPrefix(word, "--scope=")); err != nil {
				return a, err
			}
		case a.name == "":
			if strings.ContainsAny(word, `/\`) || strings.Contains(word, "..") {
				return a, errors.New(`Invalid extension name. Names cannot contain path separators or "..".`)
			}
			a.name = word
		case a.setting == "":
			a.setting = word
		case rest == "--unset":
			a.unset = true
			after = ""
		default:
			a.value = rest
		}
		rest = strings.TrimSpace(after)
	}
	return a, nil
}

// checkScope accepts the user scope, the one gemini-ls reads an
// extension's settings from.
func checkScope(scope string) error {
	switch scope {
	case "user":
		return nil
	case "workspace":
		return errors.New("gemini-ls reads an extension's settings from its own .env file only (the user scope); the workspace scope, 0.61's .env at the workspace's top, is not read for extensions here")
	}
	return fmt.Errorf("unknown scope %q", scope)
}

// findExtension is the installed extension called name.
func findExtension(all []extensions.Extension, name string) (extensions.Extension, bool) {
	for _, e := range all {
		if e.Name == name {
			return e, true
		}
	}
	return extensions.Extension{}, false
}

// allExtensionSettings is every installed extension's settings, 0.61's
// words when there are no extensions.
func allExtensionSettings(all []extensions.Extension) string {
	if len(all) == 0 {
		return "No extensions installed."
	}
	var parts []string
	for _, e := range all {
		if len(e.Settings) > 0 {
			parts = append(parts, extensionSettings(e))
		}
	}
	if len(parts) == 0 {
		return "No installed extension has settings to configure."
	}
	return strings.Join(parts, "\n\n")
}

// extensionSettings is e's settings, a line each, under the file they
// are kept in.
func extensionSettings(e extensions.Extension) string {
	lines := []string{fmt.Sprintf("Settings of %q (%s):", e.Name, e.SettingsPath())}
	for _, s := range e.Settings {
		lines = append(lines, settingLine(s))
	}
	return strings.Join(lines, "\n")
}

// settingLine is s, its value as 0.61 shows one ([not set], *** for a
// sensitive one) and its description.
func settingLine(s extensions.Setting) string {
	value := "[not set]"
	switch {
	case s.Sensitive && !s.Set:
		value = "[not set here: Gemini CLI keeps a sensitive setting in the system keychain, which gemini-ls does not read]"
	case s.Sensitive:
		value = "***"
	case s.Set:
		value = s.Value
	}
	line := fmt.Sprintf("- %s (%s): %s", s.Name, s.EnvVar, value)
	if s.Description != "" {
		line += " — " + s.Description
	}
	return line
}

// settingNames are e's settings' names and variables, to choose from.
func settingNames(e extensions.Extension) string {
	var names []string
	for _, s := range e.Settings {
		names = append(names, fmt.Sprintf("%s (%s)", s.Name, s.EnvVar))
	}
	return strings.Join(names, ", ")
}
