package builtin_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// confirmer is a front end's confirmation door: it answers every
// question with answer, or fails as one that cannot ask.
type confirmer struct {
	answer dialog.ConfirmOutcome
	asked  []dialog.ConfirmRequest
}

func (c *confirmer) Confirm(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	c.asked = append(c.asked, req)
	if c.answer == "" {
		return dialog.Cancel, dialog.ErrCannotAsk
	}
	return c.answer, nil
}

// The rest of a port: a command shows nothing and asks nothing else here.
func (c *confirmer) Show(context.Context, dialog.Subagent, dialog.Event) {}

func (c *confirmer) Land(context.Context, dialog.LandRequest) (dialog.Landing, error) {
	return dialog.Landing{}, dialog.ErrCannotAsk
}

func (c *confirmer) LandFiles(context.Context, dialog.LandFilesRequest) ([]dialog.Decision, error) {
	return nil, dialog.ErrCannotAsk
}

func (c *confirmer) Ask(context.Context, dialog.AskRequest) (dialog.Answer, error) {
	return dialog.Answer{}, dialog.ErrCannotAsk
}

// extensionSource is a developer's extension directory: its manifest at
// version, a context file and a /hello command.
func (h *harness) extensionSource(dir, version string) string {
	h.t.Helper()
	h.write(filepath.Join(dir, "gemini-extension.json"), `{"name": "greeter", "version": "`+version+`", "mcpServers": {"greet": {"command": "greet-server"}}}`)
	h.write(filepath.Join(dir, "GEMINI.md"), "GREETER-CONTEXT")
	h.write(filepath.Join(dir, "commands", "hello.toml"), `prompt = "say hello"`)
	return dir
}

// /extensions install asks the user through the front end's door, with
// Gemini CLI's consent text, installs as `gemini-ls extensions install`
// does, and has the session load the extensions again before its next
// prompt: a new build lists the extension and offers its command.
func TestExtensionsInstallInChat(t *testing.T) {
	h := newHarness(t)
	src := h.extensionSource(filepath.Join(t.TempDir(), "greeter-src"), "1.0.0")
	env := h.conversation()
	door := &confirmer{answer: dialog.ProceedOnce}
	env.Port = door
	got := h.answer(env, "/extensions install "+src)
	if !strings.Contains(got, `Extension "greeter" installed successfully and enabled.`) || !strings.Contains(got, "before its next prompt") {
		t.Errorf("/extensions install said %q", got)
	}
	if len(door.asked) != 1 || door.asked[0].Kind != dialog.ConfirmExtension || door.asked[0].Title != "Do you want to continue?" ||
		!strings.Contains(door.asked[0].Details, `Installing extension "greeter".`) || !strings.Contains(door.asked[0].Details, "greet (local): greet-server") {
		t.Errorf("asked %+v, want the consent once, naming the extension and its server", door.asked)
	}
	if !env.Built.Stale() {
		t.Error("the build is not stale after the install: the session would not load the extension")
	}
	next := h.conversation()
	if got := h.answer(next, "/extensions list"); !strings.Contains(got, "`greeter` 1.0.0 — enabled") || !strings.Contains(got, "`/hello`") {
		t.Errorf("after the install, /extensions list said %q", got)
	}
	if !slices.ContainsFunc(next.User.List, func(c commands.Command) bool { return c.Name == "hello" }) {
		t.Errorf("the extension's /hello is not offered: %v", next.User.List)
	}

	// Installing it again fails, and says why.
	if err := h.fails(next, "/extensions install "+src+" --consent"); !strings.Contains(err.Error(), "already installed") {
		t.Errorf("a second install: %v", err)
	}

	if got := h.answer(next, "/extensions uninstall greeter"); !strings.Contains(got, `Extension "greeter" successfully uninstalled.`) || !next.Built.Stale() {
		t.Errorf("/extensions uninstall said %q (stale %v)", got, next.Built.Stale())
	}
	if got := h.answer(h.conversation(), "/extensions list"); strings.Contains(got, "greeter") {
		t.Errorf("after the uninstall, /extensions list said %q", got)
	}
}

// Declined, or where nobody can answer (headless), nothing is installed,
// and the user is told why; --consent, typed by the user, is the answer.
func TestExtensionsInstallRefused(t *testing.T) {
	h := newHarness(t)
	src := h.extensionSource(filepath.Join(t.TempDir(), "greeter-src"), "1.0.0")
	installed := filepath.Join(h.home, ".gemini", "extensions", "greeter")

	env := h.conversation()
	env.Port = &confirmer{answer: dialog.Cancel}
	if err := h.fails(env, "/extensions install "+src); !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("declined: %v", err)
	}
	env.Port = &confirmer{} // cannot ask
	err := h.fails(env, "/extensions install "+src)
	if !strings.Contains(err.Error(), "pass --consent") {
		t.Errorf("nobody to ask: %v", err)
	}
	if _, err := os.Stat(installed); !errors.Is(err, os.ErrNotExist) || env.Built.Stale() {
		t.Fatalf("a refused install left %s (%v), stale %v", installed, err, env.Built.Stale())
	}
	door := &confirmer{}
	env.Port = door
	if got := h.answer(env, "/extensions install "+src+" --consent"); !strings.Contains(got, "installed successfully") || len(door.asked) != 0 {
		t.Errorf("--consent: %q, asked %+v", got, door.asked)
	}
	if err := h.fails(env, "/extensions install"); !strings.Contains(err.Error(), "usage: /extensions install <source>") {
		t.Errorf("no source: %v", err)
	}
}

// A relative path is the workspace's, whatever the process's directory.
func TestExtensionsRelativePathsAreTheWorkspaces(t *testing.T) {
	h := newHarness(t)
	h.extensionSource(filepath.Join(h.root, "vendor", "greeter"), "1.0.0")
	h.write(filepath.Join(h.root, "my-skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: tidies up\n---\nTidy.\n")
	env := h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	if got := h.answer(env, "/extensions install vendor/greeter"); !strings.Contains(got, "installed successfully") {
		t.Errorf("install of a relative path: %q", got)
	}
	if got := h.answer(h.conversation(), "/extensions list"); !strings.Contains(got, "`greeter` 1.0.0") {
		t.Errorf("/extensions list: %q", got)
	}
	canLink(t) // last, since where links cannot be made the test ends here
	if got := h.answer(env, "/skills link my-skills"); !strings.Contains(got, "Successfully linked skills") {
		t.Errorf("/skills link of a relative path: %q", got)
	}
	if target, err := os.Readlink(filepath.Join(h.home, ".gemini", "skills", "tidy")); err != nil || target != filepath.Join(h.root, "my-skills", "tidy") {
		t.Errorf("the linked skill: %q %v", target, err)
	}
}

// /extensions link links a directory; /extensions update copies a local
// install again from its source once its version changed.
func TestExtensionsLinkAndUpdateInChat(t *testing.T) {
	h := newHarness(t)
	src := h.extensionSource(filepath.Join(t.TempDir(), "greeter-src"), "1.0.0")
	env := h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	if got := h.answer(env, "/extensions link "+src); !strings.Contains(got, `Extension "greeter" linked successfully and enabled.`) {
		t.Errorf("/extensions link said %q", got)
	}
	if got := h.answer(h.conversation(), "/extensions list"); !strings.Contains(got, "`greeter` 1.0.0 — enabled, linked to "+src) {
		t.Errorf("after the link, /extensions list said %q", got)
	}
	h.answer(env, "/extensions uninstall greeter")

	env = h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	h.answer(env, "/extensions install "+src)
	env = h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	if got := h.answer(env, "/extensions update greeter"); !strings.Contains(got, `Extension "greeter" is already up to date.`) || env.Built.Stale() {
		t.Errorf("update, nothing new: %q (stale %v)", got, env.Built.Stale())
	}
	h.extensionSource(src, "1.1.0")
	if got := h.answer(env, "/extensions update --all"); !strings.Contains(got, `Extension "greeter" successfully updated: 1.0.0 → 1.1.0.`) || !env.Built.Stale() {
		t.Errorf("update: %q (stale %v)", got, env.Built.Stale())
	}
	if got := h.answer(h.conversation(), "/extensions list"); !strings.Contains(got, "`greeter` 1.1.0") {
		t.Errorf("after the update, /extensions list said %q", got)
	}
}

// /extensions reload has the session load the extensions again; explore
// says where the gallery is.
func TestExtensionsReloadAndExplore(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/extensions/helper/gemini-extension.json", `{"name": "helper", "version": "1.0.0"}`)
	env := h.conversation()
	if got := h.answer(env, "/extensions reload nothere"); !strings.Contains(got, "not found or not active: nothere") || env.Built.Stale() {
		t.Errorf("reload of none: %q", got)
	}
	if got := h.answer(env, "/extensions restart --all"); !strings.Contains(got, "loaded again before the next prompt") || !env.Built.Stale() {
		t.Errorf("reload --all: %q (stale %v)", got, env.Built.Stale())
	}
	if got := h.answer(env, "/extensions explore"); got != "View available extensions at https://geminicli.com/extensions/" {
		t.Errorf("explore: %q", got)
	}
}

// /skills link links a directory's skills, once the user consents, and
// the session finds them at once.
func TestSkillsLinkInChat(t *testing.T) {
	canLink(t)
	h := newHarness(t)
	src := t.TempDir()
	h.write(filepath.Join(src, "tidy", "SKILL.md"), "---\nname: tidy\ndescription: tidies up\n---\nTidy.\n")
	env := h.conversation()
	door := &confirmer{answer: dialog.ProceedOnce}
	env.Port = door
	got := h.answer(env, "/skills link "+src+" --scope workspace")
	if !strings.Contains(got, `Successfully linked skills from "`+src+`" (workspace).`) || !strings.Contains(got, "applies from the next request") {
		t.Errorf("/skills link said %q", got)
	}
	if len(door.asked) != 1 || !strings.Contains(door.asked[0].Details, `Linking agent skill(s) from "`+src+`".`) {
		t.Errorf("asked %+v", door.asked)
	}
	if target, err := os.Readlink(filepath.Join(h.root, ".gemini", "skills", "tidy")); err != nil || target != filepath.Join(src, "tidy") {
		t.Errorf("the workspace's skill is not a link to the source: %q %v", target, err)
	}
	if got := h.answer(env, "/skills list"); !strings.Contains(got, "**tidy**") {
		t.Errorf("/skills list after the link: %q", got)
	}
	env.Port = &confirmer{answer: dialog.Cancel}
	if err := h.fails(env, "/skills link "+src); !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("declined: %v", err)
	}
	if err := h.fails(env, "/skills link"); !strings.Contains(err.Error(), "usage: /skills link <path>") {
		t.Errorf("no path: %v", err)
	}
}

// gitCommit commits dir's files in its repository (made on the first
// call) and pushes them to bare's main.
func gitCommit(t *testing.T, dir, bare, message string) {
	t.Helper()
	run := func(in string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = in
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(bare); err != nil {
		run("", "init", "-q", "--bare", "-b", "main", bare)
		run(dir, "init", "-q", "-b", "main")
		run(dir, "remote", "add", "origin", bare)
	}
	run(dir, "add", "-A")
	run(dir, "commit", "-qm", message)
	run(dir, "push", "-q", "origin", "HEAD:main")
}

// /extensions install takes a git repository (here file://) with
// --ref and --auto-update, recorded as the command line records them;
// /extensions update fetches it again.
func TestExtensionsInstallFromGitInChat(t *testing.T) {
	platformtest.Tool(t, "git")
	h := newHarness(t)
	wc := h.extensionSource(filepath.Join(t.TempDir(), "wc"), "1.0.0")
	bare := filepath.Join(t.TempDir(), "greeter.git")
	gitCommit(t, wc, bare, "1.0.0")
	env := h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	if got := h.answer(env, "/extensions install file://"+bare+" --ref main --auto-update"); !strings.Contains(got, `Extension "greeter" installed successfully and enabled.`) {
		t.Fatalf("install from git said %q", got)
	}
	record, err := os.ReadFile(filepath.Join(h.home, ".gemini", "extensions", "greeter", ".gemini-extension-install.json"))
	if err != nil || !strings.Contains(string(record), `"type": "git"`) || !strings.Contains(string(record), `"ref": "main"`) || !strings.Contains(string(record), `"autoUpdate": true`) {
		t.Errorf("the install record: %s %v", record, err)
	}
	h.extensionSource(wc, "2.0.0")
	gitCommit(t, wc, bare, "2.0.0")
	env = h.conversation()
	env.Port = &confirmer{answer: dialog.ProceedOnce}
	if got := h.answer(env, "/extensions update greeter"); !strings.Contains(got, `Extension "greeter" successfully updated: 1.0.0 → 2.0.0.`) || !env.Built.Stale() {
		t.Errorf("update from git said %q (stale %v)", got, env.Built.Stale())
	}
}

// canLink skips t where symbolic links cannot be made, as /skills link
// makes them.
func canLink(t *testing.T) {
	t.Helper()
	platformtest.Symlink(t, "target", filepath.Join(t.TempDir(), "link"))
}
