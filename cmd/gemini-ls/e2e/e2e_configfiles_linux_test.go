//go:build linux

package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/memory"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Every file a start of gemini-ls looks at beneath the workspace or the
// home, or beside a folder above the workspace, is declared
// (internal/configfiles, so protected, kept in the sandbox and checked
// by the trail) or is not configuration: a context file, a .gitignore, a
// directory on the way or listed. Traced with strace as gemini-ls runs
// a prompt in a trusted folder below a git toplevel, with every kind of
// configuration there to be read: a loader that reads a path no
// declaration covers fails it.
func TestEveryConfigurationReadIsDeclared(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("this test needs strace: apt-get install strace (make test-go installs it)")
	}
	top := newRoot(t, map[string]string{".gitignore": "*.log\n", "GEMINI.md": "top context\n"})
	gitInit(t, top)
	root := filepath.Join(top, "app")
	writeFiles(t, root, map[string]string{
		"main.go":                            "package main\n",
		"pkg/a.go":                           "package pkg\n",
		"GEMINI.md":                          "app context\n",
		"AGENTS.md":                          "agents context\n",
		".geminiignore":                      "secret/\n",
		".env":                               "FOO=bar\n",
		".gemini/settings.json":              `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".gemini/commands/c.toml":            "prompt = \"hi\"\n",
		".gemini/policies/p.toml":            "[[rule]]\ntoolName = \"glob\"\ndecision = \"allow\"\npriority = 1\n",
		".gemini/agents/a.md":                "---\nname: helper\ndescription: helps\n---\nHelp.\n",
		".gemini/skills/s/SKILL.md":          "---\nname: s\ndescription: a skill\n---\nDo it.\n",
		".agents/skills/t/SKILL.md":          "---\nname: t\ndescription: another skill\n---\nDo it.\n",
		".agents/rules/r.md":                 "---\ntrigger: always_on\n---\nA rule.\n",
		".agents/mcp_config.json":            antigravityMCP(t, "agyproject"),
		".gemini/extensions/e/README.md":     "not an extension of the workspace\n",
		".gemini/system.md":                  "unused\n",
		".gemini/.env":                       "BAR=baz\n",
		"node_modules/x/package.json":        "{}\n",
		"pkg/.gitignore":                     "*.tmp\n",
		"pkg/GEMINI.md":                      "pkg context\n",
		".vscode/settings.json":              "{}\n",
		"secret/.gemini/settings.json":       "{}\n",
		".agents/workflows/deploy.md":        "deploy\n",
		".gemini/commands/nested/d.toml":     "prompt = \"hi\"\n",
		".gemini/policies/more/q.toml":       "",
		".gemini/agents/nested/b.md":         "",
		".agents/rules/nested/q.md":          "",
		".gemini/mcp-server-enablement.json": "{}",
	})
	model := geminitest.NewTestServer(t, geminitest.TextTurn("hi"))
	home := t.TempDir()
	trustFolder(t, home, root)
	writeFiles(t, home, map[string]string{
		".gemini/settings.json":                        `{"experimental": {"enableAgents": true}}`,
		".gemini/skills/us/SKILL.md":                   "---\nname: us\ndescription: the user's skill\n---\nDo it.\n",
		".agents/skills/ua/SKILL.md":                   "---\nname: ua\ndescription: the user's other skill\n---\nDo it.\n",
		".gemini/agents/ua.md":                         "---\nname: uhelper\ndescription: helps\n---\nHelp.\n",
		".gemini/commands/uc.toml":                     "prompt = \"hi\"\n",
		".gemini/policies/up.toml":                     "",
		".gemini/config/mcp_config.json":               antigravityMCP(t, "agyuser"),
		".gemini/extensions/ext/gemini-extension.json": `{"name": "ext", "version": "1.0.0"}`,
		".gemini/extensions/ext/GEMINI.md":             "extension context\n",
		".gemini/extensions/extension-enablement.json": "{}",
		".gemini/GEMINI.md":                            "user context\n",
		".env":                                         "HOMEVAR=1\n",
		".gitconfig":                                   "[user]\n\tname = x\n",
	})
	trace := filepath.Join(t.TempDir(), "trace")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_API_KEY=test-key", pinnedModel}
	cmd := exec.Command("strace", "-f", "-qq", "-y", "-e", "trace=%file,getdents64", "-o", trace, binary, "run", "-p", "hi")
	cmd.Dir, cmd.Env = root, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gemini-ls run under strace: %v\n%s", err, out)
	}
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	declared := protected.New(protected.Path{Path: settings.StateDir(getenv), What: "gemini-ls's own records"})
	seen := lookedAt(t, trace)
	if len(seen) < 20 {
		t.Fatalf("only %d paths traced: %+v", len(seen), seen)
	}
	var undeclared []string
	for _, l := range seen {
		if !l.configuration(top, root, home) || declared.Why(l.path) != "" {
			continue
		}
		undeclared = append(undeclared, l.call+" "+l.path)
	}
	slices.Sort(undeclared)
	for _, u := range slices.Compact(undeclared) {
		t.Errorf("read, and declared nowhere in internal/configfiles: %s", u)
	}
	// The trace saw what the declarations cover, so the check bites.
	for _, p := range []string{".agents/mcp_config.json", ".agents/rules", ".gemini/settings.json", ".env", ".geminiignore"} {
		if !slices.ContainsFunc(seen, func(l looked) bool { return l.path == filepath.Join(root, p) }) {
			t.Errorf("the trace lacks %s", p)
		}
	}
}

// looked is a path a traced call looked at.
type looked struct {
	call, path string
	dir        bool // opened as a directory, to list
	missing    bool // not there (ENOENT): looked for
}

// tracedCall matches a traced call on a path: its name, the directory a
// relative path is resolved in (strace -y), the path, and the rest.
var tracedCall = regexp.MustCompile(`^\d+\s+(\w+)\((?:(?:AT_FDCWD|-?\d+)(?:<([^>]*)>)?, )?"((?:[^"\\]|\\.)*)"(.*)$`)

// lookedAt are the paths the trace at file shows looked at, absolute.
func lookedAt(t *testing.T, file string) []looked {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []looked
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := tracedCall.FindStringSubmatch(sc.Text())
		if m == nil || m[1] == "execve" || m[3] == "" {
			continue
		}
		p := m[3]
		if !filepath.IsAbs(p) {
			if m[2] == "" {
				continue // relative to a directory strace did not name
			}
			p = filepath.Join(m[2], p)
		}
		out = append(out, looked{call: m[1], path: filepath.Clean(p), dir: strings.Contains(m[4], "O_DIRECTORY"), missing: strings.Contains(m[4], "ENOENT")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// configuration reports whether l could be a read of configuration:
// a file opened, or a path looked for and missing, beneath top (the
// workspace's git toplevel, holding the root) or home, or beside a
// folder above the root; and not a context file, a .gitignore, or a
// directory on the way to the root or the home.
func (l looked) configuration(top, root, home string) bool {
	p := l.path
	switch {
	case !within(top, p) && !within(home, p) && !within(filepath.Dir(p), root):
		return false // elsewhere: the system's files
	case within(p, root) || within(p, home):
		return false // a directory on the way
	case l.dir:
		return false // listed, not read
	case !l.missing && l.call != "openat" && l.call != "open":
		return false // a file found listing a directory, or stat before a read traced too
	}
	base := filepath.Base(p)
	return !slices.Contains(memory.DefaultFileNames(), base) && base != ".gitignore"
}

// makeWhole is a shell command that makes dir in the current directory
// holding file, its text content, at once: it is written in a directory
// beside it and renamed into place. The sandbox sets aside a
// configuration directory as soon as it appears, so one made by mkdir
// and then written could be gone before the write (CI saw "No such file
// or directory"); what a test looks for is the file set aside whole.
func makeWhole(dir, file, content string) string {
	stage := "stage-" + strings.TrimPrefix(dir, ".")
	return "mkdir -p " + stage + "/" + dir + " && cat > " + stage + "/" + dir + "/" + file + " <<'EOF'\n" + content + "\nEOF\n" +
		"mv " + stage + "/" + dir + " " + dir + " && rmdir " + stage
}

// within reports whether p is dir or beneath it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// A sandboxed command cannot plant an Antigravity MCP file that the next
// session would start on the host: the .agents it makes in the root is
// set aside as the command ends, the model is told where it went, and
// the next session, sandboxed and in the default mode, starts nothing.
func TestRunSandboxedCommandCannotPlantAnAgentsMCPConfig(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("this test needs bubblewrap: apt-get install bubblewrap (make test-go installs it)")
	}
	h := newHeadless(t, nil)
	planted := plantedMCP(t, h.path("started"))
	h.model.Push(shellCall(makeWhole(".agents", "mcp_config.json", planted)+" && echo made", nil), geminitest.TextTurn("Done."), geminitest.TextTurn("hi"))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	env := append(h.env, trustTheWorkspace()...)
	h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "plant").wantExit(t, 0)
	out := responseOutput(h.responses(1)[0])
	agents := h.path(".agents")
	if !strings.Contains(out, "Output: made\n") || !strings.Contains(out, "Sandbox: "+agents+" appeared while commands ran in the sandbox") || !strings.Contains(out, "renamed "+agents+".made-in-sandbox") {
		t.Errorf("the model was not told where .agents went:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(agents+".made-in-sandbox", "mcp_config.json")); err != nil || strings.TrimSpace(string(b)) != planted {
		t.Errorf("the file set aside: %q %v", b, err)
	}
	if h.exists(".agents") {
		t.Error("the planted .agents is still there")
	}
	h.runIn(h.root, env, "run", "-p", "hi").wantExit(t, 0)
	if h.exists("started") {
		t.Error("the next session started the planted server")
	}
}

// A root's .agents that is there before the sandbox's first command is
// the user's, and kept read-only: a command cannot add an MCP file to it.
func TestRunSandboxKeepsTheAgentsDirectoryReadOnly(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("this test needs bubblewrap: apt-get install bubblewrap (make test-go installs it)")
	}
	h := newHeadless(t, map[string]string{".agents/rules/r.md": "A rule.\n"},
		shellCall("echo '{}' > .agents/mcp_config.json; echo '# more' >> .agents/rules/r.md; echo done", nil), geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "yolo", "-p", "plant").wantExit(t, 0)
	if out := responseOutput(h.responses(1)[0]); !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "done") {
		t.Errorf("the command's output:\n%s", out)
	}
	if h.exists(".agents/mcp_config.json") || h.disk(".agents/rules/r.md") != "A rule.\n" {
		t.Errorf("a sandboxed command changed .agents: %v %q", h.exists(".agents/mcp_config.json"), h.disk(".agents/rules/r.md"))
	}
}

// Below the root the sandbox cannot set .agents aside; the trail keeps
// it from being obeyed: a later run opened in the folder a sandboxed
// command gave an Antigravity MCP file stops as in an untrusted folder,
// naming the file, and starts nothing.
func TestRunAFolderWhoseAgentsASandboxedCommandMadeIsAskedAboutAgain(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatal("this test needs bubblewrap: apt-get install bubblewrap (make test-go installs it)")
	}
	h := newHeadless(t, nil)
	app := h.path("app")
	planted := plantedMCP(t, filepath.Join(app, "started"))
	h.model.Push(shellCall("mkdir -p app/.agents && cat > app/.agents/mcp_config.json <<'EOF'\n"+planted+"\nEOF\necho made", nil), geminitest.TextTurn("Done."))
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	h.runIn(h.root, h.env, "run", "--approval-mode", "yolo", "-p", "configure app").wantExit(t, 0)
	if out := responseOutput(h.responses(1)[0]); !strings.Contains(out, "Output: made\n") {
		t.Fatalf("the sandboxed command did not write the file:\n%s", out)
	}
	r := h.runIn(app, h.env, "run", "-p", "hi")
	r.wantExit(t, exitUntrusted)
	contains(t, "stderr", r.stderr, filepath.Join(app, ".agents", "mcp_config.json")+" was changed at ")
	if _, err := os.Stat(filepath.Join(app, "started")); err == nil {
		t.Error("the planted server started")
	}
}
