package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// reviewCommand is a user's custom command with all three injections.
const reviewCommand = `description = "Review a file"
prompt = """
Review {{args}} with care.
Notes: @{notes.txt}
Branch: !{echo branch-{{args}}}
"""
`

// commandHome is a HOME whose ~/.gemini/commands holds files.
func commandHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		writeFiles(t, filepath.Join(home, ".gemini", "commands"), map[string]string{name: content})
	}
	return home
}

// lastUserText is the text of the last user content of a model request,
// without the session context and the memory (<context_files>) the
// agent puts before a prompt.
func lastUserText(t *testing.T, reqs []geminitest.Request, i int) string {
	t.Helper()
	if i >= len(reqs) {
		t.Fatalf("model request %d was not made (%d were)", i, len(reqs))
	}
	contents := reqs[i].Contents
	var b strings.Builder
	for _, p := range contents[len(contents)-1].Parts {
		if !isSessionContext(p) && !isContextFiles(p) {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// One custom command, run from ACP's session/prompt and from headless
// `run -p`, sends the model the same expanded prompt: {{args}} in place,
// the @{file}'s text, the !{cmd}'s output (asked about first in ACP).
func TestCustomCommandSameInACPAndHeadless(t *testing.T) {
	files := map[string]string{"notes.txt": "the notes"}
	home := commandHome(t, map[string]string{"git/review.toml": reviewCommand})
	want := "Review main with care.\nNotes: the notes\nBranch: branch-main\n\n"

	h := startACP(t, acpSetup{files: files, home: home, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}}, geminitest.TextTurn("Reviewed."))
	h.mustPrompt("/git:review main", sdk.StopReasonEndTurn)
	acpText := lastUserText(t, h.model.Requests(), 0)
	if acpText != want {
		t.Errorf("ACP sent the model %q, want %q", acpText, want)
	}
	perms := h.client.Permissions()
	if len(perms) != 1 || perms[0].ToolCall.Title == nil || *perms[0].ToolCall.Title != "echo branch-main" {
		t.Errorf("permission requests %+v, want one about echo branch-main", perms)
	}
	var listed *sdk.AvailableCommand
	h.client.Wait(h.ctx, "the available commands", func(c *acptest.Client) bool {
		for _, u := range c.Updates() {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for i, c := range a.AvailableCommands {
					if c.Name == "git:review" {
						listed = &a.AvailableCommands[i]
					}
				}
				return true
			}
		}
		return false
	})
	if listed == nil || listed.Description != "Review a file" || listed.Input == nil || listed.Input.Unstructured == nil || listed.Input.Unstructured.Hint == "" {
		t.Errorf("available commands list /git:review as %+v, want it with its description and an input hint", listed)
	}

	hl := newHeadless(t, files, geminitest.TextTurn("Reviewed."))
	env := append(hl.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true")
	hl.runIn(hl.root, env, "run", "--approval-mode", "yolo", "-p", "/git:review main").wantExit(t, 0)
	if got := lastUserText(t, hl.model.Requests(), 0); got != acpText {
		t.Errorf("headless sent the model %q, ACP %q", got, acpText)
	}
}

// A !{cmd} the user declines is not run, and nothing reaches the model;
// headless, which cannot ask, refuses it in the default mode.
func TestCustomCommandShellDeclined(t *testing.T) {
	home := commandHome(t, map[string]string{"mark.toml": "prompt = \"Marked: !{touch marker}\""})
	h := startACP(t, acpSetup{home: home, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, cfg: acptest.Config{
		Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce },
	}})
	h.mustPrompt("/mark", sdk.StopReasonEndTurn)
	if n := len(h.client.Permissions()); n != 1 {
		t.Errorf("%d permission requests, want 1", n)
	}
	if _, err := os.Stat(h.path("marker")); err == nil {
		t.Error("the declined command ran")
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	if msg := h.client.MessageText(h.session); !strings.Contains(msg, "/mark") || !strings.Contains(msg, "declined") {
		t.Errorf("message %q, want one saying /mark was declined", msg)
	}

	hl := newHeadless(t, nil)
	env := append(hl.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true")
	res := hl.runIn(hl.root, env, "run", "-p", "/mark")
	res.wantExit(t, exitInput)
	if !strings.Contains(res.stderr, "--approval-mode yolo") || !strings.Contains(res.stderr, "touch marker") {
		t.Errorf("stderr %q, want it to name the command and how to allow it", res.stderr)
	}
	if hl.exists("marker") {
		t.Error("headless ran the command it could not ask about")
	}
	if n := len(hl.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// A project's command replaces the user's of its name in a trusted root.
// (An untrusted one loads only the user's, as in Gemini CLI 0.61; a
// headless run refuses such a folder, TestRunRefusesAnUntrustedFolder,
// and the editors' chat shows it: TestCustomCommandsOfAnUntrustedFolder.)
func TestCustomCommandProjectOverridesUserWhenTrusted(t *testing.T) {
	home := commandHome(t, map[string]string{"test.toml": `prompt = "User prompt"`, "broken.toml": `prompt = `})
	files := map[string]string{
		".gemini/commands/test.toml": `prompt = "Project prompt"`,
		".gemini/commands/team.toml": `prompt = "Team prompt"`,
	}
	broken := filepath.Join(home, ".gemini", "commands", "broken.toml")
	for _, c := range []struct{ trust, test, team string }{
		{"true", "Project prompt", "Team prompt"},
	} {
		hl := newHeadless(t, files, geminitest.TextTurn("ok"), geminitest.TextTurn("ok"))
		env := append(hl.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE="+c.trust)
		for i, prompt := range []struct{ typed, want string }{{"/test", c.test}, {"/team", c.team}} {
			res := hl.runIn(hl.root, env, "run", "-p", prompt.typed)
			res.wantExit(t, 0)
			if got := lastUserText(t, hl.model.Requests(), i); got != prompt.want {
				t.Errorf("trusted=%s: %s sent the model %q, want %q", c.trust, prompt.typed, got, prompt.want)
			}
			// The user's files load in either folder, and every prompt
			// starting with / reports those skipped.
			if !strings.Contains(res.stderr, broken) {
				t.Errorf("trusted=%s: stderr %q does not report %s", c.trust, res.stderr, broken)
			}
		}
	}
}

// An MCP server's prompt is a command in ACP (listed with its arguments
// once the server is up) and headless; its arguments are parsed as Gemini
// CLI parses them, and the model is sent the text the server made.
func TestMCPPromptAsCommand(t *testing.T) {
	files := map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}})}
	want := "Greet Ada Lovelace in a warm way."

	h := startACP(t, acpSetup{files: files, env: trustTheWorkspace()}, geminitest.TextTurn("Hello."))
	var listed *sdk.AvailableCommand
	h.client.Wait(h.ctx, "the MCP prompts among the available commands", func(c *acptest.Client) bool {
		for _, u := range c.Updates() {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for i, c := range a.AvailableCommands {
					if c.Name == "greet" {
						listed = &a.AvailableCommands[i]
					}
				}
			}
		}
		return listed != nil
	})
	if listed.Description != "Greets someone." || listed.Input == nil || listed.Input.Unstructured.Hint != `--name="…" [--style="…"]` {
		t.Errorf("/greet listed as %+v", listed)
	}
	h.mustPrompt(`/greet --style=warm "Ada Lovelace"`, sdk.StopReasonEndTurn)
	if got := lastUserText(t, h.model.Requests(), 0); got != want {
		t.Errorf("ACP sent the model %q, want %q", got, want)
	}

	hl := newHeadless(t, files, geminitest.TextTurn("Hello."))
	hl.runIn(hl.root, append(hl.env, trustTheWorkspace()...), "run", "-p", `/greet Ada Lovelace --style=warm`).wantExit(t, 0)
	if got := lastUserText(t, hl.model.Requests(), 0); got != want {
		t.Errorf("headless sent the model %q, want %q", got, want)
	}
}

// A !{cmd} passes the approval door run_shell_command calls pass:
// headless in the default mode runs it unasked when tools.allowed names
// its command; in ACP the user may always allow it, which covers the
// model's later call of that command and the command's next run.
func TestCustomCommandShellThroughApprovalDoor(t *testing.T) {
	home := commandHome(t, map[string]string{"say.toml": `prompt = "Said: !{echo said-{{args}}}"`})
	writeFiles(t, filepath.Join(home, ".gemini"), map[string]string{"settings.json": `{"tools":{"allowed":["run_shell_command(echo)"]}}`})
	hl := newHeadless(t, nil, geminitest.TextTurn("ok"))
	env := append(hl.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true")
	hl.runIn(hl.root, env, "run", "-p", "/say hi").wantExit(t, 0)
	if got := lastUserText(t, hl.model.Requests(), 0); !strings.Contains(got, "Said: said-hi") {
		t.Errorf("headless sent the model %q, want the command's output", got)
	}

	acpHome := commandHome(t, map[string]string{"say.toml": `prompt = "Said: !{echo said-{{args}}}"`})
	h := startACP(t, acpSetup{home: acpHome, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, cfg: acptest.Config{
		Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.AllowAlways },
	}},
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo from-the-model"})), geminitest.TextTurn("ran"),
		geminitest.TextTurn("again"))
	h.mustPrompt("/say hi", sdk.StopReasonEndTurn)
	h.mustPrompt("/say there", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1 (the first !{echo …}, always allowed)", len(perms))
	}
	var kinds []sdk.PermissionOptionKind
	for _, o := range perms[0].Options {
		kinds = append(kinds, o.Kind)
	}
	if !slices.Contains(kinds, sdk.PermissionOptionKindAllowAlways) || perms[0].ToolCall.Title == nil || *perms[0].ToolCall.Title != "echo said-hi" {
		t.Errorf("the !{…} was asked about as %q offering %v, want its command with Always allow", *perms[0].ToolCall.Title, kinds)
	}
	if got := lastUserText(t, h.model.Requests(), 2); !strings.Contains(got, "Said: said-there") {
		t.Errorf("the second /say sent the model %q", got)
	}
	if fr := h.model.Requests()[1]; !strings.Contains(fmt.Sprint(fr.Contents[len(fr.Contents)-1].Parts[0].FunctionResponse.Response), "from-the-model") {
		t.Errorf("the model's echo call answered %v, want its output", fr.Contents[len(fr.Contents)-1].Parts[0].FunctionResponse.Response)
	}
}

// In a folder nobody trusted only the user's commands load (as in Gemini
// CLI 0.61): over ACP /test is the user's, and the project's /team is no
// command, refused with nothing sent (0.61 sends it as typed).
func TestCustomCommandsOfAnUntrustedFolder(t *testing.T) {
	home := commandHome(t, map[string]string{"test.toml": `prompt = "User prompt"`})
	files := map[string]string{
		".gemini/commands/test.toml": `prompt = "Project prompt"`,
		".gemini/commands/team.toml": `prompt = "Team prompt"`,
	}
	h := startACP(t, acpSetup{files: files, home: home, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=false"}}, geminitest.TextTurn("ok"))
	h.mustPrompt("/test", sdk.StopReasonEndTurn)
	if got := lastUserText(t, h.model.Requests(), 0); got != "User prompt" {
		t.Errorf("/test sent the model %q, want the user's command", got)
	}
	if got := h.command("/team"); !strings.Contains(got, "/team is not a command") {
		t.Errorf("/team said %q", got)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want only /test's", n)
	}
}
