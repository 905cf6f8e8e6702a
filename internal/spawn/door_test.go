package spawn_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// testHelper is the reason of the programs these tests start.
var testHelper = spawn.Helper{Name: "test"}

// recorder is a Confiner that records what it confined, by reason.
type recorder struct{ confined []string }

func (r *recorder) Enabled() bool { return true }
func (r *recorder) Confine(c *spawn.Cmd) error {
	r.confined = append(r.confined, c.Why().String())
	return nil
}

// trueProgram is a program that exits 0 at once, found on PATH.
func trueProgram(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("starts Unix programs")
	}
	path, err := spawn.LookPath("true")
	if err != nil {
		t.Skip("no true on PATH")
	}
	return path
}

// Every reason's program is confined as its rule says: commands,
// language servers and discovered tools always, hooks and MCP servers
// where the rules ask, helpers never.
func TestTheDoorConfinesByReason(t *testing.T) {
	prog := trueProgram(t)
	reasons := []spawn.Reason{
		spawn.UserCommand{What: "run_shell_command"},
		spawn.Configured{Setting: "hooks.BeforeTool", Kind: spawn.Hook},
		spawn.Configured{Setting: "mcpServers.a", Kind: spawn.MCPServer},
		spawn.Configured{Setting: "tools.discoveryCommand", Kind: spawn.DiscoveredTool},
		spawn.LanguageServer{Name: "gopls", Confined: true},
		spawn.Helper{Name: "git"},
	}
	for _, servers := range []bool{false, true} {
		rec := &recorder{}
		door := spawn.NewDoor(spawn.Rules{Sandbox: rec, SandboxServers: servers})
		for _, why := range reasons {
			if err := door.Command(t.Context(), why, prog).Run(); err != nil {
				t.Fatalf("%s: %v", why, err)
			}
		}
		want := []string{reasons[0].String(), reasons[3].String(), reasons[4].String()}
		if servers {
			want = []string{reasons[0].String(), reasons[1].String(), reasons[2].String(), reasons[3].String(), reasons[4].String()}
		}
		if got := strings.Join(rec.confined, "; "); got != strings.Join(want, "; ") {
			t.Errorf("SandboxServers %v: confined %q, want %q", servers, got, want)
		}
	}
}

// A language server that may run the workspace's code starts only with
// a yes, asked once a session; a no holds for the session too; nobody to
// ask is a refusal.
func TestALanguageServerThatMayRunTheWorkspaceStartsOnlyWithAYes(t *testing.T) {
	prog := trueProgram(t)
	ts := spawn.LanguageServer{Name: "typescript-language-server", Risk: "the workspace's own TypeScript"}
	ra := spawn.LanguageServer{Name: "rust-analyzer", Risk: "build scripts"}
	ctx := t.Context()

	var refused *spawn.RefusedError
	if err := spawn.Command(ctx, ts, prog).Run(); !errors.As(err, &refused) {
		t.Fatalf("a nil door started it: %v", err)
	}
	door := spawn.NewDoor(spawn.Rules{})
	if err := door.Command(ctx, ts, prog).Run(); !errors.As(err, &refused) {
		t.Fatalf("started without Allow: %v", err)
	}
	if err := door.Allow(ctx, ts, nil); !errors.As(err, &refused) || !strings.Contains(err.Error(), "nobody can be asked") {
		t.Fatalf("Allow with nobody to ask = %v", err)
	}

	var asked []string
	answer := true
	ask := func(_ context.Context, q spawn.Question) (bool, error) {
		asked = append(asked, q.Title)
		if !strings.Contains(q.Details, ts.Risk) && !strings.Contains(q.Details, ra.Risk) {
			t.Errorf("the question does not say what it may run: %q", q.Details)
		}
		return answer, nil
	}
	if err := door.Allow(ctx, ts, ask); err != nil {
		t.Fatal(err)
	}
	if err := door.Allow(ctx, ts, ask); err != nil {
		t.Fatal(err)
	}
	if err := door.Command(ctx, ts, prog).Run(); err != nil {
		t.Fatalf("started after a yes: %v", err)
	}
	answer = false
	for range 2 {
		if err := door.Allow(ctx, ra, ask); !errors.As(err, &refused) || !strings.Contains(err.Error(), "declined") {
			t.Fatalf("Allow after a no = %v", err)
		}
	}
	if want := "Start typescript-language-server?|Start rust-analyzer?"; strings.Join(asked, "|") != want {
		t.Errorf("asked %q, want each once: %q", asked, want)
	}
}

// A program found in the workspace is the workspace's: a helper found
// there is refused, and a language server found there is not confined,
// whatever its switches.
func TestProgramsFoundInTheWorkspaceAreTheWorkspaces(t *testing.T) {
	prog := trueProgram(t)
	root := t.TempDir()
	bin := filepath.Join(root, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Reached through a link from outside: still the workspace's.
	outside := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(outside, "bin")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(bin, "git")
	if err := os.WriteFile(planted, data, 0o755); err != nil {
		t.Fatal(err)
	}
	door := spawn.NewDoor(spawn.Rules{Roots: func() []string { return []string{root} }})
	var refused *spawn.RefusedError
	for _, path := range []string{planted, filepath.Join(outside, "bin", "git")} {
		if err := door.Command(t.Context(), spawn.Helper{Name: "git"}, path).Run(); !errors.As(err, &refused) {
			t.Errorf("the helper %s ran: %v", path, err)
		}
		if err := door.Command(t.Context(), spawn.LanguageServer{Name: "gopls", Confined: true}, path).Run(); !errors.As(err, &refused) {
			t.Errorf("the confined server %s ran: %v", path, err)
		}
	}
	if err := door.Command(t.Context(), spawn.Helper{Name: "true"}, prog).Run(); err != nil {
		t.Errorf("a helper from outside the workspace: %v", err)
	}
}

// Helpers and language servers find programs, and start with a PATH,
// without the workspace's directories: an activated project's
// node_modules/.bin or .venv/bin is not taken for the user's.
func TestThePathLeavesTheWorkspaceOut(t *testing.T) {
	prog := trueProgram(t)
	root := t.TempDir()
	bin := filepath.Join(root, ".venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "true"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"relative"+string(os.PathListSeparator)+os.Getenv("PATH"))
	door := spawn.NewDoor(spawn.Rules{Roots: func() []string { return []string{root} }})
	if found, err := door.LookPath("true"); err != nil || strings.HasPrefix(found, root) {
		t.Errorf("LookPath = %q, %v: want the user's true, outside the workspace", found, err)
	}
	for _, why := range []spawn.Reason{spawn.Helper{Name: "env"}, spawn.LanguageServer{Name: "env", Confined: true}} {
		out, err := door.Command(t.Context(), why, "sh", "-c", `printf %s "$PATH"`).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range filepath.SplitList(string(out)) {
			if strings.HasPrefix(dir, root) || !filepath.IsAbs(dir) {
				t.Errorf("%s started with %q on PATH", why, dir)
			}
		}
	}
}

// A helper named by its bare name is the user's, found past one the
// workspace put first on PATH: that one never runs.
func TestAHelperIsFoundOutsideTheWorkspace(t *testing.T) {
	trueProgram(t)
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(root, "ran")
	if err := os.WriteFile(filepath.Join(bin, "true"), []byte("#!/bin/sh\necho ran > "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	door := spawn.NewDoor(spawn.Rules{Roots: func() []string { return []string{root} }})
	if err := door.Command(t.Context(), spawn.Helper{Name: "true"}, "true").Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the workspace's true ran")
	}
}

// The nil door knows no roots, but a helper it runs in the workspace
// (/setup-github's git) is not the workspace's own: a workspace bin/ on
// PATH, named as it is or through a link from outside, is passed over,
// the helper is found outside, and its PATH leaves both out.
func TestTheNilDoorPassesOverTheWorkspaceOnPath(t *testing.T) {
	trueProgram(t)
	if _, err := spawn.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho ran >> "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "bin")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	for name, entry := range map[string]string{"as it is": bin, "through a link": link} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PATH", entry+string(os.PathListSeparator)+os.Getenv("PATH"))
			cmd := spawn.Command(t.Context(), spawn.Helper{Name: "git"}, "git", "--version")
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil || !strings.HasPrefix(string(out), "git version") {
				t.Errorf("git --version = %q, %v: want the user's git", out, err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("the workspace's git ran")
			}
			env := spawn.Command(t.Context(), spawn.Helper{Name: "env"}, "sh", "-c", `printf %s "$PATH"`)
			env.Dir = root
			path, err := env.Output()
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(filepath.SplitList(string(path)), entry) {
				t.Errorf("the helper started with %s on PATH", entry)
			}
		})
	}
}

// No program the door starts gets the editor's key, whatever its reason,
// whether it inherits the process's environment or is given one that
// holds it; the rest of its environment is kept.
func TestNoProgramGetsTheEditorsKey(t *testing.T) {
	trueProgram(t)
	t.Setenv(spawn.EditorKeyVar, "editor-secret")
	t.Setenv("GEMINI_LS_TEST_KEPT", "kept")
	door := spawn.NewDoor(spawn.Rules{Sandbox: &recorder{}, SandboxServers: true})
	reasons := []spawn.Reason{
		spawn.UserCommand{}, spawn.Helper{Name: "sh"}, spawn.LanguageServer{Name: "sh", Confined: true},
		spawn.Configured{Setting: "hooks", Kind: spawn.Hook}, spawn.Configured{Setting: "mcpServers.x", Kind: spawn.MCPServer},
	}
	for _, d := range []*spawn.Door{nil, door} {
		for _, why := range reasons {
			for _, given := range [][]string{nil, append(os.Environ(), strings.ToLower(spawn.EditorKeyVar)+"=editor-secret")} {
				cmd := d.Command(t.Context(), why, "sh", "-c", "env")
				cmd.Env = given
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%s: %v", why, err)
				}
				if strings.Contains(string(out), "editor-secret") || !strings.Contains(string(out), "GEMINI_LS_TEST_KEPT=kept") {
					t.Errorf("%s (door %v, env given %v) started with:\n%s", why, d != nil, given != nil, out)
				}
			}
		}
	}
}
