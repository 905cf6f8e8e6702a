package builtin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/skills"
)

// skillsDocsURL is where Gemini CLI sends a user with no skills.
const skillsDocsURL = "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/skills.md"

func skillsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the agent skills found, enabled and disabled", "[nodesc] [all]"), Run: listSkills},
		{Command: command("reload", "Find the agent skills again (and read skills.disabled again)", ""), Run: reloadSkills},
	}
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
