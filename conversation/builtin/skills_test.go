package builtin_test

import (
	"strings"
	"testing"
)

// /skills lists the skills as Gemini CLI does, enabled then disabled,
// with descriptions unless nodesc; /skills reload (or refresh) finds new
// ones and reads skills.disabled again, which the next request's system
// instruction follows.
func TestSkills(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/skills/zeta/SKILL.md", "---\nname: zeta\ndescription: Last letter.\n---\nZ.\n")
	h.write(".gemini/skills/alpha/SKILL.md", "---\nname: alpha\ndescription: First letter.\n---\nA.\n")
	h.write("~/.gemini/settings.json", `{"skills": {"disabled": ["Zeta"]}}`)
	env := h.conversation()
	want := "Available Agent Skills:\n\n- **alpha**\n  First letter.\n\n--------------------\n\nDisabled Skills:\n\n- **zeta**\n  Last letter."
	if got := h.answer(env, "/skills"); got != want {
		t.Errorf("/skills =\n%s\nwant\n%s", got, want)
	}
	if got := h.answer(env, "/skills list nodesc"); strings.Contains(got, "First letter") || !strings.Contains(got, "- **alpha**") {
		t.Errorf("/skills list nodesc = %q", got)
	}
	if err := h.fails(env, "/skills list everything"); !strings.Contains(err.Error(), "usage: /skills list [nodesc] [all]") {
		t.Errorf("/skills list everything: %v", err)
	}

	h.write(".gemini/skills/beta/SKILL.md", "---\nname: beta\ndescription: Second.\n---\n")
	h.write(".gemini/skills/broken/SKILL.md", "no front matter\n")
	h.write("~/.gemini/settings.json", `{"skills": {"disabled": ["alpha"]}}`)
	got := h.answer(env, "/skills reload")
	if !strings.HasPrefix(got, "Agent skills reloaded successfully. 2 newly available skills and 1 skill no longer available.") ||
		!strings.Contains(got, h.root+"/.gemini/skills/broken/SKILL.md: skipped, not a skill") {
		t.Errorf("/skills reload = %q", got)
	}
	if got := h.answer(env, "/skills refresh"); !strings.HasPrefix(got, "Agent skills reloaded successfully.") {
		t.Errorf("/skills refresh = %q", got)
	}
	var enabled []string
	for _, s := range env.Built.Skills.Enabled() {
		enabled = append(enabled, s.Name)
	}
	if strings.Join(enabled, ",") != "zeta,beta" {
		t.Errorf("enabled after reload = %v; want zeta and beta", enabled)
	}
}

// With no skill, /skills says where to learn to add one.
func TestSkillsNone(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/skills list"); !strings.HasPrefix(got, "No skills available.\nLearn how to add skills: ") {
		t.Errorf("/skills list = %q", got)
	}
}
