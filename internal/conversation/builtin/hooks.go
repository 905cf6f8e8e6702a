package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// hooksSubcommands are /hooks', as Gemini CLI 0.61's
// (packages/cli/src/ui/commands/hooksCommand.ts, chunk-4GP6HFBO.js:
// 82458-82755), panel the default: where 0.61 opens its dialog, panel
// answers with the same list as text.
func hooksSubcommands() []Builtin {
	return []Builtin{
		{Command: also(command("panel", "Display all registered hooks with their status", ""), "list", "show"), Run: hooksPanel},
		{Command: command("enable", "Enable a hook by name", "<hook-name>"), Run: enableHook, Changes: hooksChange},
		{Command: command("disable", "Disable a hook by name", "<hook-name>"), Run: disableHook, Changes: hooksChange},
		{Command: also(command("enable-all", "Enable all disabled hooks", ""), "enableall"), Run: enableAllHooks, Changes: hooksChange},
		{Command: also(command("disable-all", "Disable all enabled hooks", ""), "disableall"), Run: disableAllHooks, Changes: hooksChange},
	}
}

// errHooksOff is 0.61's answer where there is no hook system, and why.
var errHooksOff = errors.New("Hook system is not enabled: hooksConfig.enabled is false in the settings.")

// hooksChange is what enabling or disabling a hook changes.
const hooksChange = "which hooks run (your settings)"

// hooksPanel lists the hooks as 0.61's HooksDialog shows them: its
// warning, then each event's hooks, each by name with its status, its
// description, and its source, command, matcher, sequential and timeout
// (which 0.61 shows in milliseconds followed by "s"; here in its unit).
// Where 0.61 says "project" for every settings hook, whichever file holds
// it, gemini-ls says "settings".
func hooksPanel(_ context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("hooks", "panel", "", fmt.Sprintf("/hooks panel takes no arguments, not %q", args))
	}
	if env.Built.Hooks == nil {
		return Reply{Text: "Hooks are off: `hooksConfig.enabled` is false in the settings, so no hook runs."}, nil
	}
	all := env.Built.Hooks.Hooks()
	if len(all) == 0 {
		return Reply{Text: "No hooks configured."}, nil
	}
	var b strings.Builder
	b.WriteString("**Security Warning:** Hooks can execute arbitrary commands on your system. " +
		"Only use hooks from sources you trust. Review hook scripts carefully.\n\n" +
		"Learn more: https://geminicli.com/docs/hooks\n\n**Configured Hooks**\n")
	event := ""
	for _, h := range all {
		if h.Event != event {
			event = h.Event
			fmt.Fprintf(&b, "\n**%s**\n\n", event)
		}
		status := "enabled"
		if !h.Enabled {
			status = "disabled"
		}
		fmt.Fprintf(&b, "- **%s** [%s]\n", codeSpan(h.Name), status)
		if d := strings.TrimSpace(h.Description); d != "" {
			fmt.Fprintf(&b, "  *%s*\n", strings.Join(strings.Fields(d), " "))
		}
		fmt.Fprintf(&b, "  %s\n", hookDetails(h))
	}
	b.WriteString("\nTip: Use `/hooks enable <hook-name>` or `/hooks disable <hook-name>` to toggle individual hooks. " +
		"Use `/hooks enable-all` or `/hooks disable-all` to toggle all hooks at once.")
	return Reply{Text: b.String()}, nil
}

// hookDetails is the line under a hook's name in 0.61's panel.
func hookDetails(h hooks.Hook) string {
	source := h.Source
	if source != "settings" {
		source = "extension " + source
	}
	parts := []string{"Source: " + source}
	if h.Name != h.Command {
		parts = append(parts, "Command: "+codeSpan(h.Command))
	}
	if h.Matcher != "" {
		parts = append(parts, "Matcher: "+codeSpan(h.Matcher))
	}
	if h.Sequential {
		parts = append(parts, "Sequential")
	}
	if h.Timeout > 0 {
		parts = append(parts, "Timeout: "+h.Timeout.String())
	}
	return strings.Join(parts, " | ")
}

// codeSpan is s as Markdown code, fenced by more backticks than it holds
// in a row.
func codeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// hookScope is a settings file /hooks records disabled hooks in.
type hookScope struct{ label, path string }

func (s hookScope) String() string { return s.label + " (" + s.path + ")" }

var hooksDisabledKey = []string{"hooksConfig", "disabled"}

// hookScopes are the files 0.61 writes hooksConfig.disabled in, the
// workspace's then the user's, as far as they are read (setup's
// SkillSettingsFiles): there is no workspace file to write where the
// folder is not trusted (0.61 would write one it then does not read) or
// is the home directory.
func hookScopes(env Env) ([]hookScope, error) {
	user, workspace := env.Built.SkillSettingsFiles()
	var out []hookScope
	if workspace != "" {
		out = append(out, hookScope{"workspace", workspace})
	}
	if user != "" {
		out = append(out, hookScope{"user", user})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("there is no settings file to write: %s", noScopeFile("user"))
	}
	return out, nil
}

// disabled is the file's hooksConfig.disabled.
func (s hookScope) disabled() ([]string, error) {
	raw, ok, err := settings.ReadValue(s.path, hooksDisabledKey)
	if err != nil || !ok {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("hooksConfig.disabled in %s is not a list of hook names: %w", s.path, err)
	}
	return names, nil
}

// setDisabled writes names as the file's hooksConfig.disabled, as 0.61
// writes it (settings.SetValue keeps the rest of the file).
func (s hookScope) setDisabled(ctx context.Context, names []string) error {
	if names == nil {
		names = []string{}
	}
	return settings.SetValue(ctx, s.path, hooksDisabledKey, names)
}

// hookName reads the one hook name sub takes: the rest of the line, as
// an unnamed hook is named by its command.
func hookName(env Env, sub, args string) (string, error) {
	if env.Built.Hooks == nil {
		return "", errHooksOff
	}
	name := strings.TrimSpace(args)
	if name == "" {
		return "", subUsage("hooks", sub, "<hook-name>", "Please provide a hook name")
	}
	return name, nil
}

// disableHook adds a hook to hooksConfig.disabled in the workspace's
// settings (the user's where there is none to write), as 0.61 does, and
// applies the change at once.
func disableHook(ctx context.Context, env Env, args string) (Reply, error) {
	name, err := hookName(env, "disable", args)
	if err != nil {
		return Reply{}, err
	}
	scopes, err := hookScopes(env)
	if err != nil {
		return Reply{}, err
	}
	target := scopes[0]
	names, err := target.disabled()
	if err != nil {
		return Reply{}, fmt.Errorf("Failed to disable hook: %w", err)
	}
	if slices.Contains(names, name) {
		return Reply{Text: `Hook "` + name + `" is already disabled.`}, nil
	}
	if err := target.setDisabled(ctx, append(names, name)); err != nil {
		return Reply{}, fmt.Errorf("Failed to disable hook: %w", err)
	}
	text := `Hook "` + name + `" disabled by adding it to the disabled list in ` + target.String() + ` settings.`
	for _, other := range scopes[1:] {
		if names, err := other.disabled(); err == nil && slices.Contains(names, name) {
			text = `Hook "` + name + `" is now disabled in both ` + target.String() + " and " + other.String() + " settings."
		}
	}
	if !configured(env.Built.Hooks, name) {
		text += " No hook of that name is configured now."
	}
	return applyHookChange(env, text)
}

// enableHook takes a hook out of hooksConfig.disabled in the workspace's
// and the user's settings, as 0.61 does, and applies the change at once.
func enableHook(ctx context.Context, env Env, args string) (Reply, error) {
	name, err := hookName(env, "enable", args)
	if err != nil {
		return Reply{}, err
	}
	scopes, err := hookScopes(env)
	if err != nil {
		return Reply{}, err
	}
	var changed []string
	for _, s := range scopes {
		names, err := s.disabled()
		if err != nil {
			return Reply{}, fmt.Errorf("Failed to enable hook: %w", err)
		}
		kept := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == name })
		if len(kept) == len(names) {
			continue
		}
		if err := s.setDisabled(ctx, kept); err != nil {
			return Reply{}, fmt.Errorf("Failed to enable hook: %w", err)
		}
		changed = append(changed, s.String())
	}
	if len(changed) == 0 {
		return Reply{Text: `Hook "` + name + `" is already enabled.`}, nil
	}
	text := `Hook "` + name + `" enabled by removing it from the disabled list in ` + strings.Join(changed, " and ") + " settings."
	reply, err := applyHookChange(env, text)
	if err == nil && stillDisabled(env.Built.Hooks, name) {
		reply.Text += "\n" + `Hook "` + name + `" is still disabled: the system's settings file or the editor's settings list it in hooksConfig.disabled.`
	}
	return reply, err
}

// enableAllHooks empties hooksConfig.disabled in the workspace's and the
// user's settings, as 0.61 does (a file that lists none is left alone),
// and applies the change at once.
func enableAllHooks(ctx context.Context, env Env, args string) (Reply, error) {
	all, err := allHooks(env, "enable-all", args)
	if err != nil {
		return Reply{}, err
	}
	if len(all) == 0 {
		return Reply{Text: "No hooks configured."}, nil
	}
	before := countHooks(all, false)
	if before == 0 {
		return Reply{Text: "All hooks are already enabled."}, nil
	}
	scopes, err := hookScopes(env)
	if err != nil {
		return Reply{}, err
	}
	for _, s := range scopes {
		names, err := s.disabled()
		if err == nil && len(names) > 0 {
			err = s.setDisabled(ctx, nil)
		}
		if err != nil {
			return Reply{}, fmt.Errorf("Failed to enable hooks: %w", err)
		}
	}
	if err := env.Built.ReloadHooks(); err != nil {
		return Reply{}, fmt.Errorf("the disabled lists were emptied, but the hooks could not be reloaded: %w", err)
	}
	still := countHooks(env.Built.Hooks.Hooks(), false)
	text := fmt.Sprintf("Enabled %d hook(s) successfully.", before-still)
	if still > 0 {
		text += fmt.Sprintf("\n%d hook(s) are still disabled: the system's settings file or the editor's settings list them in hooksConfig.disabled.", still)
	}
	return Reply{Text: text}, nil
}

// disableAllHooks sets hooksConfig.disabled in the workspace's settings
// (the user's where there is none to write) to every hook's name, as
// 0.61 does, and applies the change at once.
func disableAllHooks(ctx context.Context, env Env, args string) (Reply, error) {
	all, err := allHooks(env, "disable-all", args)
	if err != nil {
		return Reply{}, err
	}
	if len(all) == 0 {
		return Reply{Text: "No hooks configured."}, nil
	}
	enabled := countHooks(all, true)
	if enabled == 0 {
		return Reply{Text: "All hooks are already disabled."}, nil
	}
	scopes, err := hookScopes(env)
	if err != nil {
		return Reply{}, err
	}
	var names []string
	for _, h := range all {
		if !slices.Contains(names, h.Name) {
			names = append(names, h.Name)
		}
	}
	if err := scopes[0].setDisabled(ctx, names); err != nil {
		return Reply{}, fmt.Errorf("Failed to disable hooks: %w", err)
	}
	return applyHookChange(env, fmt.Sprintf("Disabled %d hook(s) successfully.", enabled))
}

// allHooks are the hooks configured, for a subcommand that takes no
// arguments.
func allHooks(env Env, sub, args string) ([]hooks.Hook, error) {
	if args != "" {
		return nil, subUsage("hooks", sub, "", fmt.Sprintf("/hooks %s takes no arguments, not %q", sub, args))
	}
	if env.Built.Hooks == nil {
		return nil, errHooksOff
	}
	return env.Built.Hooks.Hooks(), nil
}

func countHooks(all []hooks.Hook, enabled bool) int {
	n := 0
	for _, h := range all {
		if h.Enabled == enabled {
			n++
		}
	}
	return n
}

func configured(r *hooks.Runner, name string) bool {
	return slices.ContainsFunc(r.Hooks(), func(h hooks.Hook) bool { return h.Name == name })
}

func stillDisabled(r *hooks.Runner, name string) bool {
	return slices.ContainsFunc(r.Hooks(), func(h hooks.Hook) bool { return h.Name == name && !h.Enabled })
}

// applyHookChange has the hooks read hooksConfig.disabled again, so the
// change counts from the next event of every session, as 0.61's
// setHookEnabled has it.
func applyHookChange(env Env, text string) (Reply, error) {
	if err := env.Built.ReloadHooks(); err != nil {
		return Reply{}, fmt.Errorf("%s But the hooks could not be reloaded: %w", text, err)
	}
	return Reply{Text: text}, nil
}
