package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// skillWorld is a workspace whose trusted root holds one skill, and the
// catalog and registry over it.
func skillWorld(t *testing.T) (*skills.Catalog, *tools.Registry, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".gemini", "skills", "release", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	content := "---\nname: release\ndescription: Cut a release of this project.\n---\nBUMP THE VERSION IN version.txt, THEN TAG.\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, workspace.NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	catalog, problems := skills.Discover(skills.Config{Roots: []string{root}, Trusted: func(string) bool { return true }})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return catalog, tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, Skills: catalog})...), path
}

// The enabled skills are listed in the system instruction as Gemini CLI
// lists them; the model activates one, the user is asked as Gemini CLI
// asks, and the skill's instructions are in the next request.
func TestModelActivatesSkill(t *testing.T) {
	catalog, registry, path := skillWorld(t)
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(call("c1", tools.ActivateSkillName, map[string]any{"name": "release"})),
		geminitest.TextTurn("done"),
	)
	asked := always(dialog.ProceedOnce)
	ui := front{confirmer: asked}
	a, _ := newAgent(t, srv, agent.Config{Tools: registry, Skills: catalog})
	s := a.NewSession()
	ui.prompt(t, s, "cut a release")

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}
	system := reqs[0].SystemInstruction.Parts[0].Text
	listed := "<available_skills>\n  <skill>\n    <name>release</name>\n    <description>Cut a release of this project.</description>\n    <location>" + path + "</location>\n  </skill>\n</available_skills>"
	if !strings.Contains(system, listed) || !strings.Contains(system, "# Available Agent Skills") {
		t.Errorf("system instruction does not list the skill as Gemini CLI does:\n%s", system)
	}
	if got := asked.asked(); len(got) != 1 || got[0].Title != "Activate Skill: release" ||
		!strings.Contains(got[0].Details, "You are about to enable the specialized agent skill **release**.") {
		t.Errorf("asked %+v; want Gemini CLI's activation question", got)
	}
	answer := responses(t, reqs[1])
	if len(answer) != 1 || !strings.HasPrefix(fmt.Sprint(answer[0].Response["output"]),
		"<activated_skill name=\"release\">\n  <instructions>\n    BUMP THE VERSION IN version.txt, THEN TAG.\n  </instructions>") {
		t.Errorf("the next request's answer to the call = %s; want the skill's instructions", toJSON(answer))
	}
}

// A disabled skill is neither listed nor offered.
func TestDisabledSkillIsNotListed(t *testing.T) {
	catalog, registry, _ := skillWorld(t)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: registry, Skills: noSkills{catalog}})
	prompt(t, a.NewSession(), "hi")
	if system := toJSON(srv.Requests()[0].SystemInstruction); strings.Contains(system, "Available Agent Skills") {
		t.Errorf("system instruction lists skills when none is enabled:\n%s", system)
	}
}

type noSkills struct{ *skills.Catalog }

func (noSkills) Enabled() []skills.Skill { return nil }

// Plan mode lets a skill be activated, asking first, as Gemini CLI's
// plan.toml does.
func TestPlanModeActivatesSkillAfterAsking(t *testing.T) {
	catalog, registry, _ := skillWorld(t)
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(call("c1", tools.ActivateSkillName, map[string]any{"name": "release"})),
		geminitest.TextTurn("planned"),
	)
	asked := always(dialog.ProceedOnce)
	ui := front{confirmer: asked}
	a, _ := newAgent(t, srv, agent.Config{Tools: registry, Skills: catalog, ApprovalMode: dialog.ApprovalPlan})
	ui.prompt(t, a.NewSession(), "plan a release")
	answer := responses(t, srv.Requests()[1])
	if len(asked.asked()) != 1 || len(answer) != 1 || !strings.HasPrefix(fmt.Sprint(answer[0].Response["output"]), "<activated_skill") {
		t.Errorf("in plan mode: asked %d times, answer %s; want one question and the skill", len(asked.asked()), toJSON(answer))
	}
}
