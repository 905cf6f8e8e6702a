package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// worktreeProject is a git repository with a.txt committed, its path
// real, and a HOME (for 0.61 and gemini-ls alike) that trusts it and
// turns experimental.worktrees on.
func worktreeProject(t *testing.T) (project, home string) {
	t.Helper()
	project = t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{"a.txt": "a\n"})
	gitIn(t, project, "init", "-q", "-b", "main")
	gitIn(t, project, "add", ".")
	gitIn(t, project, "commit", "-qm", "first")
	home = geminiCLIHome(t, project)
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"name": "gemini-2.5-pro", "skipNextSpeakerCheck": true},
  "experimental": {"useModelRouter": false, "worktrees": true},
  "general": {"disableAutoUpdate": true}
}`})
	return project, home
}

// gitIn runs git in dir and returns its output trimmed; a failure fails t.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@e", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// worktreeTool is one of the two programs a worktree scenario runs:
// 0.61 or gemini-ls, in dir with args against a fresh fake model.
type worktreeTool struct {
	name string
	run  func(t *testing.T, home, dir string, model *geminitest.Server, args ...string) cliResult
}

func worktreeTools() []worktreeTool {
	return []worktreeTool{
		{"gemini", func(t *testing.T, home, dir string, model *geminitest.Server, args ...string) cliResult {
			cmd := geminicli.Command(t, home, dir, model.URL, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				res.code = exit.ExitCode()
			} else if err != nil {
				t.Fatalf("gemini %q: %v", args, err)
			}
			return res
		}},
		{"gemini-ls", func(t *testing.T, home, dir string, model *geminitest.Server, args ...string) cliResult {
			h := &headless{t: t, model: model, root: dir}
			env := []string{
				"PATH=" + os.Getenv("PATH"),
				"HOME=" + home,
				"XDG_CACHE_HOME=" + t.TempDir(),
				"GOOGLE_GEMINI_BASE_URL=" + model.URL,
				"GEMINI_API_KEY=test-key",
				pinnedModel,
			}
			return h.runIn(dir, env, append([]string{"run"}, args...)...)
		}},
	}
}

// Gemini CLI 0.61 and gemini-ls run -w NAME on the same script: both make
// .gemini/worktrees/NAME on the branch worktree-NAME from HEAD, the
// model's edit lands there and the main tree is untouched. gemini-ls keeps
// the modified worktree and names it on stderr (never stdout); it removes
// an unmodified one with its branch, which 0.61 keeps (its
// maybeCleanup is never called); a session resumed in the worktree runs
// there.
func TestRunWorktreeIsGeminiCLIs(t *testing.T) {
	for _, tool := range worktreeTools() {
		t.Run(tool.name, func(t *testing.T) {
			project, home := worktreeProject(t)
			head := gitIn(t, project, "rev-parse", "HEAD")
			model := geminitest.NewTestServer(t,
				geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "b.txt", "content": "b\n"})),
				geminitest.TextTurn("done"))
			r := tool.run(t, home, project, model, "-w", "edit", "-p", "write b.txt", "--approval-mode", "yolo")
			if r.code != 0 || !strings.Contains(r.stdout, "done") {
				t.Fatalf("exit %d, stdout %q; want 0 and the answer\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			wt := filepath.Join(project, ".gemini", "worktrees", "edit")
			if got := gitIn(t, wt, "branch", "--show-current"); got != "worktree-edit" {
				t.Errorf("the worktree is on %q, want worktree-edit", got)
			}
			if got := gitIn(t, wt, "rev-parse", "HEAD"); got != head {
				t.Errorf("the worktree's HEAD is %s, want the project's %s", got, head)
			}
			if b, err := os.ReadFile(filepath.Join(wt, "b.txt")); err != nil || string(b) != "b\n" {
				t.Errorf("the edit did not land in the worktree: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(project, "b.txt")); !os.IsNotExist(err) {
				t.Errorf("the edit reached the main tree: %v", err)
			}
			if st := gitIn(t, project, "status", "--porcelain", "--untracked-files=all", "--", ":!.gemini"); st != "" {
				t.Errorf("the main tree changed:\n%s", st)
			}
			if strings.Contains(r.stdout, "worktree") {
				t.Errorf("stdout speaks of the worktree; only the answer belongs there:\n%s", r.stdout)
			}
			if tool.name == "gemini-ls" {
				for _, want := range []string{wt + " holds this session's changes, on the branch worktree-edit, and was kept",
					"To resume work in this worktree: cd " + wt + " && gemini-ls run --resume ",
					"git merge worktree-edit", "git worktree remove --force " + wt + " && git branch -D worktree-edit"} {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
					}
				}
			}

			// A run that changes nothing: 0.61 keeps its worktree,
			// gemini-ls removes it with its branch.
			model = geminitest.NewTestServer(t, geminitest.TextTurn("nothing to do"))
			r = tool.run(t, home, project, model, "-w", "clean", "-p", "hi")
			if r.code != 0 {
				t.Fatalf("unmodified run: exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			clean := filepath.Join(project, ".gemini", "worktrees", "clean")
			_, err := os.Stat(clean)
			branch := gitIn(t, project, "branch", "--list", "worktree-clean")
			switch tool.name {
			case "gemini":
				if err != nil || branch == "" {
					t.Errorf("0.61 no longer keeps an unmodified worktree (%v, branch %q): gemini-ls's removal may now be 0.61's too", err, branch)
				}
			default:
				if !os.IsNotExist(err) || branch != "" {
					t.Errorf("the unmodified worktree was kept: %v, branch %q", err, branch)
				}
				if !strings.Contains(r.stderr, "held no change and was removed") {
					t.Errorf("stderr does not say the worktree was removed:\n%s", r.stderr)
				}
			}

			// Resumed inside its worktree, the session continues there.
			model = geminitest.NewTestServer(t,
				geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "c.txt", "content": "c\n"})),
				geminitest.TextTurn("resumed"))
			r = tool.run(t, home, wt, model, "--resume", "latest", "-p", "write c.txt", "--approval-mode", "yolo")
			if r.code != 0 || !strings.Contains(r.stdout, "resumed") {
				t.Fatalf("resume: exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if reqs := model.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "write b.txt") {
				t.Errorf("the resumed session's first request lacks the first prompt")
			}
			if _, err := os.Stat(filepath.Join(wt, "c.txt")); err != nil {
				t.Errorf("the resumed session's edit is not in the worktree: %v", err)
			}
			if _, err := os.Stat(filepath.Join(project, "c.txt")); !os.IsNotExist(err) {
				t.Errorf("the resumed session's edit reached the main tree: %v", err)
			}
			if tool.name == "gemini-ls" && !strings.Contains(r.stderr, "this session ran in the worktree "+wt+", on the branch worktree-edit, which is kept") {
				t.Errorf("the resumed run does not say where its worktree is:\n%s", r.stderr)
			}
		})
	}
}

// What neither makes a worktree of: a name git refuses and a directory
// outside git, in 0.61's words for both; gemini-ls also refuses a name
// holding "..", a leading "-" or a path separator before git runs (0.61
// makes .gemini/x of ../x when git takes the branch name).
func TestRunWorktreeRefusals(t *testing.T) {
	for _, tool := range worktreeTools() {
		t.Run(tool.name, func(t *testing.T) {
			project, home := worktreeProject(t)
			notRepo := t.TempDir()
			if p, err := filepath.EvalSymlinks(notRepo); err == nil {
				notRepo = p
			}
			trustFolder(t, home, notRepo)
			// trustFolder wrote the trusted folders anew: the project too.
			writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": `{"` + project + `": "TRUST_FOLDER", "` + notRepo + `": "TRUST_FOLDER"}`})
			cases := []struct {
				dir, name, why string
			}{
				{project, "a b", `git refuses "worktree-a b" as a branch name`},
				{notRepo, "x", "is not in a git repository"},
			}
			if tool.name == "gemini-ls" {
				cases = append(cases, []struct{ dir, name, why string }{
					{project, "../x", `holds ".."`},
					{project, "-x", `begins with "-"`},
					{project, "a/b", "path separator"},
				}...)
			}
			for _, c := range cases {
				model := geminitest.NewTestServer(t, geminitest.TextTurn("never asked"))
				r := tool.run(t, home, c.dir, model, "--worktree="+c.name, "-p", "hi")
				if r.code != 1 || !strings.Contains(r.stderr, "Failed to create or switch to worktree: ") {
					t.Errorf("-w %q: exit %d, stderr %q; want 1 and 0.61's words", c.name, r.code, r.stderr)
				}
				if tool.name == "gemini-ls" && !strings.Contains(r.stderr, c.why) {
					t.Errorf("-w %q: stderr %q does not say %s", c.name, r.stderr, c.why)
				}
				if len(model.Requests()) != 0 {
					t.Errorf("-w %q: the model was asked", c.name)
				}
			}
			if _, err := os.Stat(filepath.Join(project, ".gemini")); !os.IsNotExist(err) {
				t.Errorf("a refused name made .gemini: %v", err)
			}
			if b := gitIn(t, project, "branch", "--list", "worktree-*"); b != "" {
				t.Errorf("a refused name made a branch: %q", b)
			}
		})
	}
}
