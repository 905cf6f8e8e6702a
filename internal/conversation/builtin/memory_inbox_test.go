package builtin_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
)

// Without experimental.autoMemory, /memory inbox answers 0.61's sentence,
// whatever follows it.
func TestMemoryInboxNeedsAutoMemory(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	want := "The memory inbox requires Auto Memory. Enable it with: experimental.autoMemory = true in settings."
	for _, line := range []string{"/memory inbox", "/memory inbox apply private", "/memory inbox dismiss global"} {
		if got := h.answer(env, line); got != want {
			t.Errorf("%s said %q", line, got)
		}
	}
}

// inboxPatches puts in the private memory's inbox what 0.61's extraction
// writes: a private patch adding a note and its MEMORY.md entry, a global
// one to GEMINI.md, and one aimed outside the memory, which is left out.
func inboxPatches(t *testing.T, h *harness, env builtin.Env) (dir, global string) {
	t.Helper()
	dir = env.Built.Memory().PrivateDir()
	global = env.Built.Memory().GlobalFile()
	if dir == "" || global == "" {
		t.Fatalf("private dir %q, global file %q", dir, global)
	}
	h.write(filepath.Join(dir, "MEMORY.md"), "# Project Memory\n- Use the staging DB\n")
	h.write(global, "Use tabs.\n")
	note := filepath.Join(dir, "deploy.md")
	h.write(filepath.Join(dir, ".inbox", "private", "extraction.patch"),
		"--- /dev/null\n+++ "+note+"\n@@ -0,0 +1,2 @@\n+# Deploy\n+Run ./ship --prod.\n"+
			"--- "+filepath.Join(dir, "MEMORY.md")+"\n+++ "+filepath.Join(dir, "MEMORY.md")+"\n@@ -1,2 +1,3 @@\n # Project Memory\n - Use the staging DB\n+- Deploys: see deploy.md\n")
	h.write(filepath.Join(dir, ".inbox", "global", "extraction.patch"),
		"--- "+global+"\n+++ "+global+"\n@@ -1 +1,2 @@\n Use tabs.\n+Prefers Go.\n")
	h.write(filepath.Join(dir, ".inbox", "private", "escape.patch"),
		"--- /dev/null\n+++ "+filepath.Join(h.root, "x.md")+"\n@@ -0,0 +1 @@\n+x\n")
	return dir, global
}

// /memory inbox lists the private and global patches as 0.61 lists them,
// with their diffs; apply writes the private ones and takes them out of
// the inbox, dismiss deletes the global one and leaves GEMINI.md alone.
func TestMemoryInbox(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/settings.json", `{"experimental": {"autoMemory": true}}`)
	env := h.conversation()
	if got := h.answer(env, "/memory inbox"); got != "No items in inbox." {
		t.Errorf("an empty inbox: %q", got)
	}
	dir, global := inboxPatches(t, h, env)
	note := filepath.Join(dir, "deploy.md")

	got := h.answer(env, "/memory inbox")
	for _, want := range []string{
		"Memory inbox (2):\n- **Private memory** (1 source patch, 2 hunks): targets " + note + ", " + filepath.Join(dir, "MEMORY.md") + " (latest extract: ",
		"- **Global memory** (1 source patch, 1 hunks): targets " + global,
		"+Run ./ship --prod.",
		"+Prefers Go.",
		"/memory inbox apply <private|global> [patch]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/memory inbox lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "x.md") {
		t.Errorf("the patch aimed outside the memory is listed:\n%s", got)
	}

	if got := h.answer(env, "/memory inbox apply private extraction.patch"); got != "Applied memory patch to 2 files." {
		t.Errorf("apply said %q", got)
	}
	if b, _ := os.ReadFile(note); string(b) != "# Deploy\nRun ./ship --prod.\n" {
		t.Errorf("the note is %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "MEMORY.md")); string(b) != "# Project Memory\n- Use the staging DB\n- Deploys: see deploy.md\n" {
		t.Errorf("MEMORY.md is %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".inbox", "private", "extraction.patch")); !os.IsNotExist(err) {
		t.Errorf("the applied patch is still in the inbox: %v", err)
	}
	if !strings.Contains(h.answer(env, "/memory show"), "- Deploys: see deploy.md") {
		t.Error("the applied index is not in the memory")
	}

	if got := h.answer(env, "/memory inbox dismiss global"); got != "Dismissed 1 global memory patch from inbox." {
		t.Errorf("dismiss said %q", got)
	}
	if b, _ := os.ReadFile(global); string(b) != "Use tabs.\n" {
		t.Errorf("GEMINI.md after dismiss is %q", b)
	}
	if got := h.answer(env, "/memory inbox"); got != "No items in inbox." {
		t.Errorf("after apply and dismiss: %q", got)
	}
	if err := h.fails(env, "/memory inbox apply global"); err.Error() != "No global memory patches in inbox." {
		t.Errorf("apply with none: %v", err)
	}
	if err := h.fails(env, "/memory inbox apply private ../../x.patch"); err.Error() != "Invalid memory patch path." {
		t.Errorf("apply of a path leaving the inbox: %v", err)
	}
	if err := h.fails(env, "/memory inbox apply"); !strings.Contains(err.Error(), "usage: /memory inbox apply <private|global> [patch]") {
		t.Errorf("apply without a kind: %v", err)
	}
}

// Applying changes the memory every later session is given, so text from
// a pipe or -p does not; listing does.
func TestMemoryInboxApplyTypedOnly(t *testing.T) {
	h := newHarness(t)
	h.unattended = true
	h.write("~/.gemini/settings.json", `{"experimental": {"autoMemory": true}}`)
	env := h.conversation()
	env.Unattended = true
	inboxPatches(t, h, env)
	if got := h.answer(env, "/memory inbox"); !strings.HasPrefix(got, "Memory inbox (2):") {
		t.Errorf("headless list: %q", got)
	}
	var refused *builtin.TypedOnlyError
	if err := h.fails(env, "/memory inbox apply private"); !errors.As(err, &refused) || refused.Command != "memory inbox apply" {
		t.Errorf("headless apply: %v", err)
	}
}

// An extracted skill is listed as 0.61 lists it, moved to the user's
// skills (and offered from then on) or dismissed; a skill of the same
// name already there is not overwritten.
func TestMemoryInboxSkills(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/settings.json", `{"experimental": {"autoMemory": true}}`)
	env := h.conversation()
	dir := env.Built.Memory().PrivateDir()
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does " + name + ".\n---\nSteps.\n"
	}
	h.write(filepath.Join(dir, "skills", "release-notes", "SKILL.md"), skill("release-notes"))
	h.write(filepath.Join(dir, "skills", "lint-fix", "SKILL.md"), skill("lint-fix"))
	h.write(filepath.Join(dir, "skills", "taken", "SKILL.md"), skill("taken"))
	h.write("~/.gemini/skills/taken/SKILL.md", skill("taken"))

	got := h.answer(env, "/memory inbox")
	for _, want := range []string{"Memory inbox (3):", "- **release-notes**: Does release-notes.", "- **lint-fix**: Does lint-fix.", "/memory inbox move <skill> <global|project>"} {
		if !strings.Contains(got, want) {
			t.Errorf("/memory inbox lacks %q:\n%s", want, got)
		}
	}
	if got := h.answer(env, "/memory inbox move release-notes global"); got != `Moved "release-notes" to ~/.gemini/skills.` {
		t.Errorf("move said %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".gemini", "skills", "release-notes", "SKILL.md")); err != nil {
		t.Errorf("the skill is not in ~/.gemini/skills: %v", err)
	}
	if !strings.Contains(h.answer(env, "/skills list"), "release-notes") {
		t.Error("the moved skill is not offered")
	}
	if err := h.fails(env, "/memory inbox move taken global"); err.Error() != `A skill named "taken" already exists in ~/.gemini/skills.` {
		t.Errorf("move onto a taken name: %v", err)
	}
	if got := h.answer(env, "/memory inbox dismiss skill lint-fix"); got != `Dismissed "lint-fix" from inbox.` {
		t.Errorf("dismiss said %q", got)
	}
	if err := h.fails(env, "/memory inbox dismiss skill ../x"); err.Error() != "Invalid skill name." {
		t.Errorf("dismiss of a path: %v", err)
	}
	if got := h.answer(env, "/memory inbox"); !strings.HasPrefix(got, "Memory inbox (1):\n- **taken**") {
		t.Errorf("after move and dismiss: %q", got)
	}
}
