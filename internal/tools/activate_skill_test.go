package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// skillCatalog is the skills of a user directory holding files (path
// under ~/.gemini/skills → content).
func skillCatalog(t *testing.T, files map[string]string, disabled ...string) (*skills.Catalog, string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(home, ".gemini")
	for name, content := range files {
		path := filepath.Join(user, "skills", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, problems := skills.Discover(skills.Config{UserDir: user, Disabled: disabled})
	if len(problems) > 0 {
		t.Fatalf("discovering skills: %v", problems)
	}
	return c, filepath.Join(user, "skills")
}

// The declaration is Gemini CLI's, word for word, naming the enabled
// skills (coreToolsModelSnapshots' activate_skill); with none, its
// parameter says so.
func TestActivateSkillDeclaration(t *testing.T) {
	catalog, _ := skillCatalog(t, map[string]string{
		"skill1/SKILL.md": "---\nname: skill1\ndescription: one\n---\n",
		"skill2/SKILL.md": "---\nname: skill2\ndescription: two\n---\n",
		"off/SKILL.md":    "---\nname: off\ndescription: disabled\n---\n",
	}, "off")
	tool := activateSkill(catalog, nil)
	decl := tool.Declaration()
	wantDesc := "Activates a specialized agent skill by name (Available: 'skill1', 'skill2'). Returns the skill's instructions wrapped in `<activated_skill>` tags. These provide specialized guidance for the current task. Use this when you identify a task that matches a skill's description. ONLY use names exactly as they appear in the `<available_skills>` section."
	if decl.Name != "activate_skill" || decl.Description != wantDesc {
		t.Errorf("declaration %q: %q\nwant %q", decl.Name, decl.Description, wantDesc)
	}
	schema, _ := json.Marshal(decl.ParametersJsonSchema)
	wantSchema := `{"additionalProperties":false,"properties":{"name":{"description":"The name of the skill to activate.","enum":["skill1","skill2"],"type":"string"}},"required":["name"],"type":"object"}`
	if string(schema) != wantSchema {
		t.Errorf("schema = %s\nwant %s", schema, wantSchema)
	}

	none, _ := skillCatalog(t, map[string]string{"off/SKILL.md": "---\nname: off\ndescription: disabled\n---\n"}, "off")
	decl = activateSkill(none, nil).Declaration()
	schema, _ = json.Marshal(decl.ParametersJsonSchema)
	if !strings.HasPrefix(decl.Description, "Activates a specialized agent skill by name. Returns") ||
		string(schema) != `{"additionalProperties":false,"properties":{"name":{"description":"No skills are currently available.","type":"string"}},"required":["name"],"type":"object"}` {
		t.Errorf("with no skill enabled: %q %s", decl.Description, schema)
	}
}

// Activation asks as Gemini CLI asks, then gives the model the
// instructions and the resources in its <activated_skill> format, and
// makes the skill's directory readable.
func TestActivateSkillResult(t *testing.T) {
	catalog, dir := skillCatalog(t, map[string]string{
		"pdf/SKILL.md":         "---\nname: pdf\ndescription: Fill PDF forms.\n---\n\nRun scripts/fill.py.\n",
		"pdf/scripts/fill.py":  "print(1)\n",
		"other/SKILL.md":       "---\nname: other\ndescription: x\n---\n",
		"other/not-shared.txt": "",
	})
	tw := newTestWorkspace(t, nil)
	tool := activateSkill(catalog, tw.ws)
	call, err := tool.Build(map[string]any{"name": "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	skillDir := filepath.Join(dir, "pdf")
	// Folders end in the system's separator, as in Gemini CLI (path.sep).
	sep := string(filepath.Separator)
	tree := "Showing up to 200 items (files + folders).\n\n" + skillDir + sep + "\n├───SKILL.md\n└───scripts" + sep + "\n    └───fill.py"
	c := call.Confirmation()
	wantPrompt := "You are about to enable the specialized agent skill **pdf**.\n\n**Description:**\nFill PDF forms.\n\n**Resources to be shared with the model:**\n" + tree
	if c == nil || c.Title != "Activate Skill: pdf" || c.Details != wantPrompt {
		t.Fatalf("confirmation = %+v\nwant details %q", c, wantPrompt)
	}
	if call.Title() != `"pdf": Fill PDF forms.` {
		t.Errorf("title = %q", call.Title())
	}
	if _, err := tw.ws.Resolve(filepath.Join(skillDir, "scripts", "fill.py")); err == nil {
		t.Fatal("the skill's directory was readable before activation")
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	want := "<activated_skill name=\"pdf\">\n  <instructions>\n    Run scripts/fill.py.\n  </instructions>\n\n  <available_resources>\n    " + tree + "\n  </available_resources>\n</activated_skill>"
	if res.Output != want {
		t.Errorf("output =\n%s\nwant\n%s", res.Output, want)
	}
	if _, err := tw.ws.Resolve(filepath.Join(skillDir, "scripts", "fill.py")); err != nil {
		t.Errorf("the skill's resources are not readable after activation: %v", err)
	}
}

// An unknown skill is Gemini CLI's error, naming the skills there are.
func TestActivateSkillUnknown(t *testing.T) {
	catalog, _ := skillCatalog(t, map[string]string{
		"a/SKILL.md": "---\nname: a\ndescription: x\n---\n",
		"b/SKILL.md": "---\nname: b\ndescription: x\n---\n",
	}, "b")
	_, err := activateSkill(catalog, nil).Build(map[string]any{"name": "b"})
	if err == nil || err.Error() != `Skill "b" not found. Available skills are: a` {
		t.Errorf("Build = %v; want Gemini CLI's not-found error naming a", err)
	}
}

// The registry keeps activate_skill's declaration while the enabled
// skills stay the same, and takes a new one when /skills disable, enable
// or reload changes them.
func TestActivateSkillRedeclaredWhenSkillsChange(t *testing.T) {
	catalog, dir := skillCatalog(t, map[string]string{
		"skill1/SKILL.md": "---\nname: skill1\ndescription: one\n---\n",
		"skill2/SKILL.md": "---\nname: skill2\ndescription: two\n---\n",
	})
	reg := NewRegistry(activateSkill(catalog, nil))
	enum := func() []any {
		t.Helper()
		decls := reg.Declarations()
		schema := decls[0].ParametersJsonSchema.(map[string]any)
		enum, _ := schema["properties"].(map[string]any)["name"].(map[string]any)["enum"].([]any)
		return enum
	}
	first := reg.Declarations()
	if want := []any{"skill1", "skill2"}; !slices.Equal(enum(), want) {
		t.Fatalf("enum %v, want %v", enum(), want)
	}
	if again := reg.Declarations(); &again[0] != &first[0] {
		t.Error("the same skills, but a new slice")
	}

	catalog.SetDisabled([]string{"skill1"})
	if want := []any{"skill2"}; !slices.Equal(enum(), want) {
		t.Errorf("after disabling skill1: enum %v, want %v", enum(), want)
	}
	catalog.SetDisabled(nil)
	if want := []any{"skill1", "skill2"}; !slices.Equal(enum(), want) {
		t.Errorf("after enabling skill1 again: enum %v, want %v", enum(), want)
	}

	if err := os.MkdirAll(filepath.Join(dir, "skill3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skill3", "SKILL.md"), []byte("---\nname: skill3\ndescription: three\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if problems := catalog.Reload(); len(problems) > 0 {
		t.Fatal(problems)
	}
	if want := []any{"skill1", "skill2", "skill3"}; !slices.Equal(enum(), want) {
		t.Errorf("after a reload found skill3: enum %v, want %v", enum(), want)
	}
	if desc := reg.Declarations()[0].Description; !strings.Contains(desc, "'skill3'") {
		t.Errorf("after a reload found skill3: description %q", desc)
	}
}
