package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/manage"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// skillsDocsURL is where Gemini CLI sends a user with no skills.
const skillsDocsURL = "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/skills.md"

// skillsChange is what enabling, disabling or linking skills changes.
const skillsChange = "the agent skills the model may activate"

func skillsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the agent skills found, enabled and disabled", "[nodesc] [all]"), Run: listSkills},
		{Command: command("disable", "Disable a skill by name, in the user's settings or the workspace's", "<name> [--scope user|workspace]"), Run: disableSkill, Changes: skillsChange},
		{Command: command("enable", "Enable a disabled skill by name", "<name>"), Run: enableSkill, Changes: skillsChange},
		{Command: also(command("reload", "Find the agent skills again (and read skills.disabled again)", ""), "refresh"), Run: reloadSkills},
		{Command: command("link", "Link the agent skills of a local directory, for you (user) or this workspace", linkSkillsHint), Run: linkSkills, Changes: skillsChange},
	}
}

// disableSkill adds a skill to skills.disabled in the settings file of
// the scope (the user's unless --scope workspace), as Gemini CLI does,
// and applies the change at once.
func disableSkill(ctx context.Context, env Env, args string) (Reply, error) {
	name, scope, err := skillAndScope(args, "disable", "<name> [--scope user|workspace]", "Please provide a skill name to disable")
	if err != nil {
		return Reply{}, err
	}
	if env.Built.Skills == nil {
		return Reply{}, errSkillsOff
	}
	var skill skills.Skill
	for _, s := range env.Built.Skills.All() {
		if strings.EqualFold(s.Name, name) {
			skill = s
		}
	}
	if skill.Name == "" {
		return Reply{}, fmt.Errorf("Skill %q not found.", name)
	}
	user, workspace := env.Built.SkillSettingsFiles()
	path := user
	if scope == "workspace" {
		path = workspace
	}
	if path == "" {
		return Reply{}, fmt.Errorf("there is no %s settings file to write: %s", scope, noScopeFile(scope))
	}
	already := false
	err = settings.EditSkillsDisabled(ctx, path, func(old []string) []string {
		already = slices.ContainsFunc(old, func(n string) bool { return strings.EqualFold(n, skill.Name) })
		if already {
			return old
		}
		return append(old, skill.Name)
	})
	if err != nil {
		return Reply{}, fmt.Errorf("An error occurred while attempting to disable skill %q: %w", skill.Name, err)
	}
	if already {
		return Reply{Text: fmt.Sprintf("Skill %q is already disabled.", skill.Name)}, nil
	}
	text := fmt.Sprintf("Skill %q disabled by adding it to the disabled list in %s (%s) settings.", skill.Name, scope, path)
	return applySkillChange(env, text)
}

// enableSkill takes a skill out of skills.disabled in the workspace's and
// the user's settings files, as Gemini CLI does, and applies the change
// at once.
func enableSkill(ctx context.Context, env Env, args string) (Reply, error) {
	name := strings.TrimSpace(args)
	if name == "" {
		return Reply{}, subUsage("skills", "enable", "<name>", "Please provide a skill name to enable")
	}
	if env.Built.Skills == nil {
		return Reply{}, errSkillsOff
	}
	user, workspace := env.Built.SkillSettingsFiles()
	var changed []string
	for _, f := range []struct{ scope, path string }{{"workspace", workspace}, {"user", user}} {
		if f.path == "" {
			continue
		}
		removed := false
		err := settings.EditSkillsDisabled(ctx, f.path, func(old []string) []string {
			kept := slices.DeleteFunc(slices.Clone(old), func(n string) bool { return strings.EqualFold(n, name) })
			removed = len(kept) < len(old)
			return kept
		})
		if err != nil {
			return Reply{}, fmt.Errorf("An error occurred while attempting to enable skill %q: %w", name, err)
		}
		if removed {
			changed = append(changed, fmt.Sprintf("%s (%s)", f.scope, f.path))
		}
	}
	if len(changed) == 0 {
		return Reply{Text: fmt.Sprintf("Skill %q is already enabled.", name)}, nil
	}
	text := fmt.Sprintf("Skill %q enabled by removing it from the disabled list in %s settings.", name, strings.Join(changed, " and "))
	reply, err := applySkillChange(env, text)
	if err == nil {
		if _, ok := env.Built.Skills.Get(name); !ok {
			reply.Text += fmt.Sprintf("\nSkill %q is still not enabled: another settings file (the system's) disables it, or it is not found.", name)
		}
	}
	return reply, err
}

var errSkillsOff = errors.New("agent skills are off: skills.enabled is false in the settings")

// noScopeFile says why scope has no settings file to write.
func noScopeFile(scope string) string {
	if scope == "workspace" {
		return "the workspace is not a trusted folder (its settings are not read), or it is the home directory"
	}
	return "neither GEMINI_CLI_HOME nor " + settings.HomeVariable + " is set"
}

// skillAndScope reads "<name> [--scope user|workspace]", /skills sub's
// arguments (hint), missing the error without a name.
func skillAndScope(args, sub, hint, missing string) (name, scope string, err error) {
	scope = "user"
	fields := strings.Fields(args)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "--scope" && i+1 < len(fields):
			scope = fields[i+1]
			i++
		case strings.HasPrefix(f, "--scope="):
			scope = strings.TrimPrefix(f, "--scope=")
		case strings.HasPrefix(f, "--"), name != "":
			return "", "", subUsage("skills", sub, hint, fmt.Sprintf("unexpected %q", f))
		default:
			name = f
		}
	}
	switch {
	case name == "":
		return "", "", subUsage("skills", sub, hint, missing)
	case scope != "user" && scope != "workspace":
		return "", "", subUsage("skills", sub, hint, fmt.Sprintf("the scope is user or workspace, not %q", scope))
	}
	return name, scope, nil
}

const linkSkillsHint = "<path> [--scope user|workspace] [--consent]"

// linkSkills is Gemini CLI's /skills link: the skills of the directory
// at path linked into ~/.gemini/skills (--scope user, the default) or
// the workspace's .gemini/skills, as `gemini-ls skills link` links them,
// once the user consents (--consent, as the command line's, consents
// where nobody can be asked); then the skills are found again.
func linkSkills(ctx context.Context, env Env, args string) (Reply, error) {
	fields := strings.Fields(args)
	consented := slices.Contains(fields, "--consent")
	fields = slices.DeleteFunc(fields, func(f string) bool { return f == "--consent" })
	path, scope, err := skillAndScope(strings.Join(fields, " "), "link", linkSkillsHint, "Please provide the path of a directory of skills")
	if err != nil {
		return Reply{}, err
	}
	ask, consentedTo := askInChat(ctx, env), ""
	if consented {
		ask = func(text, _ string, _ bool) (bool, error) {
			consentedTo = "You have consented to the following:\n" + text + "\n"
			return true, nil
		}
	}
	chat := manage.Chat{Getenv: env.Built.Getenv, Workspace: env.Root, Ask: ask}
	said, err := chat.LinkSkills(path, scope)
	said = consentedTo + said
	if err != nil {
		return Reply{}, fmt.Errorf("%sFailed to link skills: %w", withNewline(said), err)
	}
	text := fmt.Sprintf("%sSuccessfully linked skills from \"%s\" (%s).", withNewline(said), path, scope)
	if env.Built.Skills == nil {
		return Reply{Text: text + "\nAgent skills are off (skills.enabled is false in the settings): they are not offered."}, nil
	}
	return applySkillChange(env, text)
}

// withNewline is s and a line break, "" for "".
func withNewline(s string) string {
	if s == "" {
		return ""
	}
	return s + "\n"
}

// applySkillChange reloads the skills after a settings change, so the
// next request follows it (where Gemini CLI asks for /skills reload).
func applySkillChange(env Env, text string) (Reply, error) {
	problems, err := env.Built.ReloadSkills()
	if err != nil {
		return Reply{}, fmt.Errorf("%s But the skills could not be reloaded: %w", text, err)
	}
	text += " It applies from the next request."
	for _, p := range problems {
		text += "\n- " + p.Error()
	}
	return Reply{Text: text}, nil
}

// listSkills lists the skills as Gemini CLI's SkillsList shows them: the
// enabled, then the disabled, each by name with its description unless
// "nodesc" is given. ("all" adds Gemini CLI's built-in skills, of which
// gemini-ls has none.)
func listSkills(_ context.Context, env Env, args string) (Reply, error) {
	showDescriptions := true
	for _, arg := range strings.Fields(args) {
		switch arg {
		case "nodesc", "--nodesc":
			showDescriptions = false
		case "all", "--all":
		default:
			return Reply{}, subUsage("skills", "list", "[nodesc] [all]", fmt.Sprintf("unknown /skills list option %q", arg))
		}
	}
	if env.Built.Skills == nil {
		return Reply{Text: "Agent skills are off: `skills.enabled` is false in settings.json."}, nil
	}
	all := env.Built.Skills.All()
	if len(all) == 0 {
		return Reply{Text: "No skills available.\nLearn how to add skills: " + skillsDocsURL}, nil
	}
	byName := func(a, b skills.Skill) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) }
	var enabled, disabled []skills.Skill
	for _, s := range all {
		if s.Disabled {
			disabled = append(disabled, s)
		} else {
			enabled = append(enabled, s)
		}
	}
	slices.SortFunc(enabled, byName)
	slices.SortFunc(disabled, byName)
	var parts []string
	if len(enabled) > 0 {
		parts = append(parts, "Available Agent Skills:\n\n"+skillItems(enabled, showDescriptions))
	}
	if len(disabled) > 0 {
		parts = append(parts, "Disabled Skills:\n\n"+skillItems(disabled, showDescriptions))
	}
	return Reply{Text: strings.Join(parts, "\n\n"+strings.Repeat("-", 20)+"\n\n")}, nil
}

func skillItems(list []skills.Skill, showDescriptions bool) string {
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "- **%s**", s.Name)
		if s.Extension != "" {
			fmt.Fprintf(&b, " (extension %s)", s.Extension)
		}
		if showDescriptions && s.Description != "" {
			b.WriteString("\n  " + strings.ReplaceAll(strings.TrimSpace(s.Description), "\n", "\n  "))
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// reloadSkills finds the skills again, and says what changed in Gemini
// CLI's words, and what was skipped.
func reloadSkills(_ context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("skills", "reload", "", fmt.Sprintf("/skills reload takes no arguments, not %q", args))
	}
	before := map[string]bool{}
	for _, s := range env.Built.Skills.Enabled() {
		before[s.Name] = true
	}
	problems, err := env.Built.ReloadSkills()
	if err != nil {
		return Reply{}, fmt.Errorf("Failed to reload skills: %w", err)
	}
	after := env.Built.Skills.Enabled()
	added, stillThere := 0, 0
	for _, s := range after {
		if before[s.Name] {
			stillThere++
		} else {
			added++
		}
	}
	removed := len(before) - stillThere
	text := "Agent skills reloaded successfully."
	var details []string
	if added > 0 {
		details = append(details, fmt.Sprintf("%d %s", added, plural(added, "newly available skill", "newly available skills")))
	}
	if removed > 0 {
		details = append(details, fmt.Sprintf("%d %s", removed, plural(removed, "skill no longer available", "skills no longer available")))
	}
	if len(details) > 0 {
		text += " " + strings.Join(details, " and ") + "."
	}
	for _, p := range problems {
		text += "\n- " + p.Error()
	}
	return Reply{Text: text}, nil
}
