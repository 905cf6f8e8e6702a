package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// releaseSkill is a workspace skill, with a resource beside it.
var releaseSkill = map[string]string{
	".gemini/skills/release/SKILL.md":       "---\nname: release\ndescription: Cut a release of this project.\n---\nBUMP version.txt, THEN RUN scripts/tag.sh.\n",
	".gemini/skills/release/scripts/tag.sh": "git tag \"$1\"\n",
}

const releaseInstructions = "<activated_skill name=\"release\">\n  <instructions>\n    BUMP version.txt, THEN RUN scripts/tag.sh.\n  </instructions>"

// systemText is the system instruction of the model's request i.
func systemText(t *testing.T, reqs []geminitest.Request, i int) string {
	t.Helper()
	if i >= len(reqs) || reqs[i].SystemInstruction == nil {
		t.Fatalf("the model saw %d requests, want a system instruction in request %d", len(reqs), i)
	}
	var b strings.Builder
	for _, p := range reqs[i].SystemInstruction.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// declares reports whether request r declares tool name, with a schema
// holding want.
func declares(r geminitest.Request, name, want string) bool {
	for _, tool := range r.Tools {
		for _, d := range tool.FunctionDeclarations {
			if d.Name == name {
				schema, _ := json.Marshal(d.ParametersJsonSchema)
				return strings.Contains(string(schema), want)
			}
		}
	}
	return false
}

// Headless, in a trusted folder: the skill is listed to the model, the
// model activates it, and its instructions are in the next request; a
// SKILL.md that is not a skill is named on stderr.
func TestRunActivatesSkill(t *testing.T) {
	files := map[string]string{".gemini/skills/broken/SKILL.md": "# no front matter\n"}
	for k, v := range releaseSkill {
		files[k] = v
	}
	h := newHeadless(t, files,
		call("activate_skill", map[string]any{"name": "release"}),
		geminitest.TextTurn("released"),
	)
	h.env = append(h.env, trustTheWorkspace()...)
	res := h.run("run", "--approval-mode", "yolo", "-p", "cut a release")
	res.wantExit(t, 0)
	contains(t, "stderr", res.stderr, h.path(".gemini/skills/broken/SKILL.md")+": skipped, not a skill")
	reqs := h.model.Requests()
	contains(t, "system instruction", systemText(t, reqs, 0),
		"<skill>\n    <name>release</name>\n    <description>Cut a release of this project.</description>\n    <location>"+h.path(".gemini/skills/release/SKILL.md")+"</location>\n  </skill>")
	if !declares(reqs[0], "activate_skill", `"enum":["release"]`) {
		t.Errorf("the first request does not offer activate_skill with release")
	}
	fr := h.responses(1)
	if len(fr) != 1 || !strings.HasPrefix(responseOutput(fr[0]), releaseInstructions) || !strings.Contains(responseOutput(fr[0]), "tag.sh") {
		t.Errorf("the answer to activate_skill = %+v; want the skill's instructions and resources", fr)
	}
}

// In a folder the user has not trusted, a headless run is refused, and
// an editor's session leaves the repository's skill out: neither listed
// nor offered; the user's own is.
func TestSkillsOfAnUntrustedFolderAreLeftOut(t *testing.T) {
	h := newHeadless(t, releaseSkill, geminitest.TextTurn("ok"))
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".gemini/settings.json":        `{"security": {"folderTrust": {"enabled": true}}}`,
		".gemini/skills/mine/SKILL.md": "---\nname: mine\ndescription: The user's own.\n---\nMine.\n",
	})
	// A headless run refuses the folder (TestRunRefusesAnUntrustedFolder):
	// an editor's session runs in it, without its skills.
	res := h.runIn(h.root, append(h.withoutEnv("HOME"), "HOME="+home), "run", "-p", "hi")
	res.wantExit(t, exitUntrusted)
	a := startACP(t, acpSetup{files: releaseSkill, home: home}, geminitest.TextTurn("ok"))
	a.mustPrompt("hi", sdk.StopReasonEndTurn)
	reqs := a.model.Requests()
	system := systemText(t, reqs, 0)
	if strings.Contains(system, "release") || !strings.Contains(system, "<name>mine</name>") {
		t.Errorf("system instruction lists %q; want the user's skill only", system[strings.Index(system, "# Available Agent Skills"):])
	}
	if declares(reqs[0], "activate_skill", "release") || !declares(reqs[0], "activate_skill", `"enum":["mine"]`) {
		t.Error("activate_skill offers the untrusted repository's skill, or not the user's")
	}
}

// Through the editor: the model activates the skill, the user is asked
// in Gemini CLI's words (gemini/confirm), and the instructions are in the
// next request.
func TestLSPActivatesSkill(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), env: trustTheWorkspace(), files: releaseSkill},
		call("activate_skill", map[string]any{"name": "release"}),
		geminitest.TextTurn("released"),
	)
	var mu sync.Mutex
	var confirms []map[string]any
	h.client.OnConfirm = func(_ context.Context, params json.RawMessage) string {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		confirms = append(confirms, p)
		mu.Unlock()
		return "proceed_once"
	}
	if res := h.prompt(map[string]any{"prompt": "cut a release"}); res.Text != "released" {
		t.Fatalf("prompt = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(confirms) != 1 || confirms[0]["title"] != "Activate Skill: release" ||
		!strings.Contains(confirms[0]["details"].(string), "**Resources to be shared with the model:**") {
		t.Errorf("confirmations = %v; want Gemini CLI's activation question", confirms)
	}
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model saw %d requests, want 2", len(reqs))
	}
	last := reqs[1].Contents[len(reqs[1].Contents)-1]
	if len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil ||
		!strings.HasPrefix(responseOutput(last.Parts[0].FunctionResponse), releaseInstructions) {
		t.Errorf("the second request ends with %+v; want the skill's instructions", last.Parts)
	}
}
