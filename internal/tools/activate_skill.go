package tools

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// activateSkillTool is Gemini CLI's activate_skill (activate-skill.ts):
// its declaration names the enabled skills as they are now.
type activateSkillTool struct {
	*Defined[activateSkillParams]
	catalog *skills.Catalog

	mu       sync.Mutex
	declared []string                   // the names of the skills decl offers
	decl     *genai.FunctionDeclaration // nil until first asked
}

// activateSkill is activate_skill over the skills of catalog, whose
// resources it reads through ws. Its spec has no description: its
// declaration, which names the skills enabled now, is its own
// (Declaration).
func activateSkill(catalog *skills.Catalog, ws *workspace.Workspace) *activateSkillTool {
	t := &activateSkillTool{catalog: catalog}
	t.Defined = Define(Spec{
		Name:        ActivateSkillName,
		Annotations: Annotations{Kind: dialog.KindOther, ReadOnly: true},
		Aliases:     []string{"ActivateSkillTool"},
	}, func(p activateSkillParams) (Call, error) { return t.build(p, ws) })
	return t
}

// Redeclares: /skills enable, disable and reload change the declaration.
func (t *activateSkillTool) Redeclares() {}

// Declaration is the declaration for the skills enabled now: the last
// one while they are the same skills.
func (t *activateSkillTool) Declaration() *genai.FunctionDeclaration {
	var enabled []string
	for _, s := range t.catalog.Enabled() {
		enabled = append(enabled, s.Name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.decl == nil || !slices.Equal(enabled, t.declared) {
		t.decl, t.declared = activateSkillDeclaration(enabled), enabled
	}
	return t.decl
}

// activateSkillDeclaration is Gemini CLI's getActivateSkillDeclaration,
// word for word, for the enabled skills called enabled.
func activateSkillDeclaration(enabled []string) *genai.FunctionDeclaration {
	var quoted []string
	for _, name := range enabled {
		quoted = append(quoted, "'"+name+"'")
	}
	hint := ""
	if len(enabled) > 0 {
		hint = " (Available: " + strings.Join(quoted, ", ") + ")"
	}
	return declareWith[activateSkillParams](ActivateSkillName, "Activates a specialized agent skill by name"+hint+". "+
		"Returns the skill's instructions wrapped in `<activated_skill>` tags. "+
		"These provide specialized guidance for the current task. "+
		"Use this when you identify a task that matches a skill's description. "+
		"ONLY use names exactly as they appear in the `<available_skills>` section.",
		&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[skillName](): skillNameSchema(enabled)}})
}

// skillName is a skill's name as activate_skill takes it: declared with
// the skills enabled at the time (skillNameSchema), checked by Build
// against those enabled when the call is made.
type skillName string

// skillNameSchema is the schema of a skillName while the skills called
// enabled are: one of them, or none.
func skillNameSchema(enabled []string) *jsonschema.Schema {
	if len(enabled) == 0 {
		return &jsonschema.Schema{Type: "string", Description: "No skills are currently available."}
	}
	s := &jsonschema.Schema{Type: "string", Description: "The name of the skill to activate."}
	for _, name := range enabled {
		s.Enum = append(s.Enum, name)
	}
	return s
}

type activateSkillParams struct {
	Name skillName `json:"name"`
}

// extendSchema: no other properties, as Gemini CLI declares them.
func (activateSkillParams) extendSchema(s *jsonschema.Schema) {
	s.AdditionalProperties = closed()
}

// build finds the skill; an unknown one is Gemini CLI's error, naming
// those there are.
func (t *activateSkillTool) build(p activateSkillParams, ws *workspace.Workspace) (Call, error) {
	name := string(p.Name)
	skill, ok := t.catalog.Get(name)
	if !ok {
		var names []string
		for _, s := range t.catalog.Enabled() {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("Skill %q not found. Available skills are: %s", name, strings.Join(names, ", "))
	}
	return &activateSkillCall{name: name, skill: skill, resources: skills.FolderStructure(skill.Dir()), ws: ws}, nil
}

type activateSkillCall struct {
	name      string // as the model gave it
	skill     skills.Skill
	resources string // the skill directory's structure, read once per call
	ws        *workspace.Workspace
}

func (c *activateSkillCall) Title() string {
	return fmt.Sprintf("%q: %s", c.name, c.skill.Description)
}

// Confirmation asks as Gemini CLI asks: the skill, what it is for and
// every file its directory shares with the model. Always Allow covers
// later activations, as Gemini CLI's policy update for the tool does.
func (c *activateSkillCall) Confirmation() *Confirmation {
	return &Confirmation{
		Kind:  dialog.ConfirmInfo,
		Title: "Activate Skill: " + c.name,
		Details: "You are about to enable the specialized agent skill **" + c.name + "**.\n\n" +
			"**Description:**\n" + c.skill.Description + "\n\n" +
			"**Resources to be shared with the model:**\n" + c.resources,
		AllowKeys: []string{ActivateSkillName},
	}
}

// Execute lets the model read the skill's directory and gives it the
// instructions, in Gemini CLI's llmContent.
func (c *activateSkillCall) Execute(_ context.Context, _ CallInfo) (Result, error) {
	dir := c.skill.Dir()
	if c.ws != nil {
		if _, err := c.ws.Allow(dir); err != nil {
			return failure(fmt.Sprintf("Skill %q could not be activated: %v", c.name, err)), nil
		}
	}
	return Result{
		Output: "<activated_skill name=\"" + c.name + "\">\n" +
			"  <instructions>\n" +
			"    " + c.skill.Body + "\n" +
			"  </instructions>\n\n" +
			"  <available_resources>\n" +
			"    " + c.resources + "\n" +
			"  </available_resources>\n" +
			"</activated_skill>",
		Display: fmt.Sprintf("Skill **%s** activated. Resources loaded from `%s`:\n\n%s", c.name, dir, c.resources),
	}, nil
}
