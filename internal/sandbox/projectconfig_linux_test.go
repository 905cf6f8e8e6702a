package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// configFiles are what a test makes for each of rootConfigs' names: a
// file in it for those that are directories, the name itself for the
// others.
var configFiles = map[string]string{
	".vscode": "tasks.json", ".idea": "workspace.xml", ".zed": "settings.json", ".helix": "languages.toml",
	".husky": "pre-commit", ".ssh": "config", ".config/git": "config", ".config/nvim": "init.lua", ".config/fish": "config.fish",
}

// makeConfigScript is a shell script that makes each of names in the
// current directory, going on past one it cannot make.
func makeConfigScript(names []string) string {
	var b strings.Builder
	for _, n := range names {
		if inside, ok := configFiles[n]; ok {
			b.WriteString("mkdir -p " + n + " && echo x > " + n + "/" + inside + "; ")
		} else {
			b.WriteString("mkdir -p $(dirname " + n + ") && echo x > " + n + "; ")
		}
	}
	return b.String() + "echo made"
}

// Each of the editors' and tools' project configuration (protected's
// names: .vscode's tasks, .helix's language servers, .nvim.lua, .exrc,
// .dir-locals.el, .envrc…) that a sandboxed command makes in a root is
// set aside when the command ends, and TakeBack, which the shell tool's
// result carries, says where each went; the next command sees none.
// The user's stay: one there before (read-only), one open in the
// editor, one the agent's edit tools wrote with the user's approval.
func TestBubblewrapProjectConfigurationACommandMadeIsSetAside(t *testing.T) {
	names := rootConfigs()
	var root string
	open := func(p string) bool { return p == filepath.Join(root, ".nvimrc") }
	var sb *Sandbox
	sb, root, _ = sandboxFor(t, Config{Command: Bubblewrap, Why: "test", OpenInEditor: open})
	if err := os.MkdirAll(filepath.Join(root, ".idea"), 0o755); err != nil {
		t.Fatal(err)
	}
	users := []string{".idea", ".nvimrc", ".exrc"}
	if out, err := run(t, sb, root, "true"); err != nil { // the first look
		t.Fatal(err, out)
	}
	// The agent's edit, approved: written outside, then Approve.
	if err := os.WriteFile(filepath.Join(root, ".exrc"), []byte("set ts=4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Approve(filepath.Join(root, ".exrc"))
	if out, err := run(t, sb, root, makeConfigScript(names)); err != nil || !strings.HasSuffix(out, "made\n") {
		t.Fatalf("inside: %v %q", err, out)
	}
	said := sb.TakeBack()
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		_, errThere := os.Lstat(p)
		_, errAside := os.Lstat(p + MadeSuffix)
		switch {
		case slices.Contains(users, n):
			if errThere != nil || errAside == nil || strings.Contains(said, p+" ") {
				t.Errorf("%s, the user's, was set aside: %v %v", n, errThere, errAside)
			}
		case errThere == nil || errAside != nil:
			t.Errorf("%s was not set aside: %v %v", n, errThere, errAside)
		case !strings.Contains(said, p+" appeared while commands ran in the sandbox") || !strings.Contains(said, "renamed "+p+MadeSuffix):
			t.Errorf("TakeBack does not say where %s went:\n%s", n, said)
		}
	}
	out, err := run(t, sb, root, "ls -a")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if first, _, _ := strings.Cut(n, "/"); strings.Contains(out, "\n"+first+"\n") && !slices.Contains(users, n) && first != ".config" {
			t.Errorf("the next command sees %s:\n%s", n, out)
		}
	}
}

// In the session's sandbox (bubblewrap, and a container through the
// fake docker) a task file a command made is set aside before the next
// command, which does not see it.
func TestSessionSetsAsideTheProjectConfigurationACommandMade(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		se, root, _ := sessionFor(t, backend)
		// Made whole (written beside, renamed into place): the watch
		// sets .vscode aside as soon as it appears, so a mkdir and then
		// a write could lose the race and fail the command.
		mustSh(t, se, root, `mkdir -p stage/.vscode && echo '{"tasks": [{"command": "x", "runOptions": {"runOn": "folderOpen"}}]}' > stage/.vscode/tasks.json && mv stage/.vscode .vscode`)
		if out := mustSh(t, se, root, "ls -a"); strings.Contains(out, ".vscode\n") || !strings.Contains(out, ".vscode"+MadeSuffix) {
			t.Errorf("the next command sees:\n%s", out)
		}
		if said := se.sb.TakeBack(); !strings.Contains(said, "renamed "+filepath.Join(root, ".vscode"+MadeSuffix)) {
			t.Errorf("TakeBack = %q", said)
		}
	})
}

// A real podman's container shares the watch: a .envrc, and a
// repository armed thirty levels deep (made without git, which the
// image lacks), that a command made there are set aside.
func TestPodmanSetsAsideWhatACommandMadeToRunOutside(t *testing.T) {
	image, _ := sandboxtest.Podman(t)
	sb, root, _ := sandboxFor(t, Config{Command: Podman, Image: image, Why: "test"})
	if out, err := run(t, sb, root, "true"); err != nil {
		t.Fatal(err, out)
	}
	deep := strings.Repeat("n/", 30) + "sub"
	script := `echo 'curl x | sh' > .envrc; D=` + deep + `/.git; mkdir -p $D/hooks $D/objects $D/refs && echo 'ref: refs/heads/main' > $D/HEAD && printf '[core]\n\tfsmonitor = touch /tmp/x #\n' > $D/config; echo made`
	if out, err := run(t, sb, root, script); err != nil || out != "made\n" {
		t.Fatalf("in the container: %v %q", err, out)
	}
	said := sb.TakeBack()
	for _, p := range []string{".envrc", deep + "/.git"} {
		if _, err := os.Lstat(filepath.Join(root, p+MadeSuffix)); err != nil || !strings.Contains(said, "renamed "+filepath.Join(root, p)) {
			t.Errorf("%s was not set aside: %v\n%s", p, err, said)
		}
	}
}

// The user's configuration stays theirs when their editor saves it as a
// new file in its place; once gone (removed outside), it is no longer
// theirs: one a command makes in its place is set aside. Where the
// kernel cannot tell what was made, every name is looked at.
func TestProjectConfigsKnowTheUsersByWhatIsThere(t *testing.T) {
	root := t.TempDir()
	envrc := filepath.Join(root, ".envrc")
	if err := os.WriteFile(envrc, []byte("use nix\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newProjectConfigs()
	if said := c.check([]string{root}, nil, false); said != nil {
		t.Fatalf("the first look set aside %q", said)
	}
	// The user's editor saves it as a new file put in its place.
	if err := os.WriteFile(envrc+".new", []byte("use flake\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(envrc+".new", envrc); err != nil {
		t.Fatal(err)
	}
	if said := c.check([]string{root}, []madeEntry{{path: envrc}}, false); said != nil {
		t.Fatalf("the user's .envrc saved anew: %q", said)
	}
	if err := os.Remove(envrc); err != nil {
		t.Fatal(err)
	}
	if said := c.check([]string{root}, nil, false); said != nil {
		t.Fatalf("the user's .envrc removed: %q", said)
	}
	if err := os.WriteFile(envrc, []byte("curl x | sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if said := c.check([]string{root}, []madeEntry{{path: envrc}}, false); len(said) != 1 || !strings.Contains(said[0], "renamed "+envrc+MadeSuffix) {
		t.Errorf("a .envrc made in place of the user's: %q", said)
	}
	locals := filepath.Join(root, ".dir-locals.el")
	if err := os.WriteFile(locals, []byte("((nil . ((eval . (shell-command \"x\")))))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if said := c.check([]string{root}, nil, true); len(said) != 1 || !strings.Contains(said[0], "renamed "+locals+MadeSuffix) {
		t.Errorf("where the kernel could not tell: %q", said)
	}
}
