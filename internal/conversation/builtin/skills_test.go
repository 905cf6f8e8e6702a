package builtin_test

import (
	"os"
	"path/filepath"
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
		!strings.Contains(got, filepath.Join(h.root, ".gemini", "skills", "broken", "SKILL.md")+": skipped, not a skill") {
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

// /skills disable writes skills.disabled where Gemini CLI writes it (the
// user's settings, or the workspace's with --scope workspace), keeping
// the rest of the file, and applies at once; /skills enable takes it out
// of both.
func TestSkillsDisableEnable(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/skills/alpha/SKILL.md", "---\nname: alpha\ndescription: First letter.\n---\nA.\n")
	userFile := h.write("~/.gemini/settings.json", "{\n  // mine\n  \"model\": {\"name\": \"m\"}\n}\n")
	env := h.conversation()
	enabled := func() bool { _, ok := env.Built.Skills.Get("alpha"); return ok }

	got := h.answer(env, "/skills disable ALPHA")
	if !strings.HasPrefix(got, `Skill "alpha" disabled by adding it to the disabled list in user (`+userFile+`) settings.`) || enabled() {
		t.Errorf("/skills disable = %q, enabled %v", got, enabled())
	}
	if text := readText(t, userFile); text != "{\n  \"skills\": {\n    \"disabled\": [\"alpha\"]\n  },\n  // mine\n  \"model\": {\"name\": \"m\"}\n}\n" {
		t.Errorf("user settings =\n%s", text)
	}
	if got := h.answer(env, "/skills disable alpha"); got != `Skill "alpha" is already disabled.` {
		t.Errorf("again: %q", got)
	}
	got = h.answer(env, "/skills disable alpha --scope workspace")
	workspaceFile := filepath.Join(h.root, ".gemini", "settings.json")
	if !strings.Contains(got, "workspace ("+workspaceFile+")") || !strings.Contains(readText(t, workspaceFile), `"disabled": ["alpha"]`) {
		t.Errorf("/skills disable --scope workspace = %q", got)
	}

	got = h.answer(env, "/skills enable alpha")
	if !strings.HasPrefix(got, `Skill "alpha" enabled by removing it from the disabled list in workspace (`+workspaceFile+`) and user (`+userFile+`) settings.`) || !enabled() {
		t.Errorf("/skills enable = %q, enabled %v", got, enabled())
	}
	if got := h.answer(env, "/skills enable alpha"); got != `Skill "alpha" is already enabled.` {
		t.Errorf("again: %q", got)
	}
	for _, line := range []string{"/skills disable", "/skills disable nope", "/skills disable alpha --scope system"} {
		if err := h.fails(env, line); err == nil {
			t.Errorf("%s succeeded", line)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
