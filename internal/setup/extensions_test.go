package setup

import (
	"path/filepath"
	"slices"
	"testing"
)

// An enabled extension's skills join the agent skills and its policies
// the policy engine's extension tier; a disabled one's do neither.
func TestExtensionSkillsAndPolicies(t *testing.T) {
	a := newAttack(t)
	a.env["GEMINI_API_KEY"] = "k"
	exts := filepath.Join(a.home, ".gemini", "extensions")
	for _, name := range []string{"on", "off"} {
		dir := filepath.Join(exts, name)
		writeFile(t, filepath.Join(dir, "gemini-extension.json"), `{"name": "`+name+`", "version": "1"}`)
		writeFile(t, filepath.Join(dir, "skills", name+"-skill", "SKILL.md"), "---\nname: "+name+"-skill\ndescription: the "+name+" extension's\n---\nRun ${extensionPath}${/}tool.\n")
		writeFile(t, filepath.Join(dir, "policies", "rules.toml"), "[[rule]]\ntoolName = \""+name+"_tool\"\ndecision = \"deny\"\npriority = 10\n")
	}
	writeFile(t, filepath.Join(exts, "on", "hooks", "hooks.json"), `{"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "${extensionPath}${/}after.sh"}]}]}}`)
	writeFile(t, filepath.Join(exts, "off", "hooks", "hooks.json"), `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	writeFile(t, filepath.Join(exts, "extension-enablement.json"), `{"off": {"overrides": ["!/*"]}}`)
	b := a.build(t, "")
	if s, ok := b.Skills.Get("on-skill"); !ok {
		t.Errorf("skills %+v: the enabled extension's skill is missing", b.Skills.All())
	} else if want := "Run " + filepath.Join(exts, "on", "tool") + "."; s.Body != want {
		t.Errorf("the skill's instructions = %q, want %q: its extension's variables filled in", s.Body, want)
	}
	if _, ok := b.Skills.Get("off-skill"); ok {
		t.Error("the disabled extension's skill was loaded")
	}
	var tools []string
	for _, r := range b.Policy.Rules() {
		tools = append(tools, r.ToolName)
	}
	if !slices.Contains(tools, "on_tool") || slices.Contains(tools, "off_tool") {
		t.Errorf("policy rules for %v, want the enabled extension's and not the disabled one's", tools)
	}
	// Its hooks run with the settings' (Gemini CLI's loadExtensionHooks).
	h := b.hooks(t.Context(), b.Settings)
	if h == nil || !h.Handles("AfterTool") {
		t.Error("the enabled extension's AfterTool hook is not run")
	}
	if h != nil && h.Handles("BeforeTool") {
		t.Error("the disabled extension's BeforeTool hook is run")
	}
}
