package manage

import (
	"bytes"
	"context"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// extEnv is a home and a workspace for the extensions tests: the whole
// temporary directory trusted, so neither tool asks about trust.
type extEnv struct {
	root, home, work string
}

func newExtEnv(t *testing.T) extEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := extEnv{root: root, home: filepath.Join(root, "home"), work: filepath.Join(root, "work")}
	for _, d := range []string{filepath.Join(e.home, ".gemini"), e.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.write(t, filepath.Join(e.home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(root)+`: "TRUST_FOLDER"}`)
	return e
}

func (e extEnv) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// source writes an extension named name at version into dir.
func (e extEnv) source(t *testing.T, dir, name, version string) string {
	t.Helper()
	e.write(t, filepath.Join(dir, "gemini-extension.json"), `{"name":"`+name+`","version":"`+version+`","contextFileName":"GEMINI.md","mcpServers":{"s1":{"command":"node","args":["x.js"]}}}`)
	e.write(t, filepath.Join(dir, "GEMINI.md"), "be kind\n")
	return dir
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) all() string { return r.stdout + r.stderr }

// gls runs `gemini-ls extensions args...` in the workspace, stdin given.
func (e extEnv) gls(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	platformtest.SetHome(t, e.home)
	for _, k := range []string{"GEMINI_CLI_HOME", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"} {
		t.Setenv(k, "")
	}
	t.Chdir(e.work)
	var stdout, stderr bytes.Buffer
	code := extensionsCommand(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return result{stdout.String(), stderr.String(), code}
}

// gemini runs Gemini CLI 0.61's `gemini extensions args...` in the
// workspace.
func (e extEnv) gemini(t *testing.T, args ...string) result {
	t.Helper()
	cmd := geminicli.Command(t, e.home, e.work, "", append([]string{"extensions"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), code}
}

func (e extEnv) extDir(name string) string {
	return filepath.Join(e.home, ".gemini", "extensions", name)
}

func mustOK(t *testing.T, what string, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", what, r.code, r.stdout, r.stderr)
	}
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Fatalf("%s: want %q in\n%s", what, w, got)
		}
	}
}

func readExtFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestExtensionsInstallRoundTrip: an extension gemini-ls installs from a
// local path, Gemini CLI 0.61 lists (the same way as its own) and
// uninstalls; one Gemini CLI installs, gemini-ls lists and uninstalls.
// The files each writes are byte for byte the other's.
func TestExtensionsInstallRoundTrip(t *testing.T) {
	e := newExtEnv(t)
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")

	mustOK(t, "gemini-ls install", e.gls(t, "", "install", src, "--consent"))
	ours := map[string]string{}
	for _, f := range []string{filepath.Join(e.extDir("greet"), ".gemini-extension-install.json"), filepath.Join(e.extDir(""), "extension-enablement.json")} {
		ours[f] = readExtFile(t, f)
	}
	if got := readExtFile(t, filepath.Join(e.extDir("greet"), "GEMINI.md")); got != "be kind\n" {
		t.Fatalf("the copy's GEMINI.md = %q", got)
	}
	theirList := e.gemini(t, "list")
	mustOK(t, "gemini list", theirList)
	mustContain(t, "gemini list", theirList.all(), "✓ greet (1.0.0)", "Source: "+src+" (Type: local)", "Enabled (User): true", "MCP servers:\n  s1")
	ourList := e.gls(t, "", "list")
	mustOK(t, "gemini-ls list", ourList)
	if strings.TrimSpace(ourList.stdout) != strings.TrimSpace(theirList.stderr) {
		t.Fatalf("gemini-ls list:\n%s\nGemini CLI's:\n%s", ourList.stdout, theirList.stderr)
	}
	r := e.gemini(t, "uninstall", "greet")
	mustOK(t, "gemini uninstall", r)
	if _, err := os.Stat(e.extDir("greet")); !os.IsNotExist(err) {
		t.Fatalf("Gemini CLI's uninstall left %s: %v", e.extDir("greet"), err)
	}

	// The reverse: Gemini CLI installs, gemini-ls lists and uninstalls.
	mustOK(t, "gemini install", e.gemini(t, "install", src, "--consent"))
	for f, want := range ours {
		if got := readExtFile(t, f); got != want {
			t.Errorf("%s: Gemini CLI wrote\n%s\ngemini-ls\n%s", f, got, want)
		}
	}
	ourList = e.gls(t, "", "list")
	mustContain(t, "gemini-ls list", ourList.stdout, "✓ greet (1.0.0)", "Source: "+src+" (Type: local)")
	r = e.gls(t, "", "uninstall", "greet")
	mustOK(t, "gemini-ls uninstall", r)
	mustContain(t, "gemini-ls uninstall", r.stdout, `Extension "greet" successfully uninstalled.`)
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "No extensions installed.")
	if got := readExtFile(t, filepath.Join(e.extDir(""), "extension-enablement.json")); got != "{}" {
		t.Fatalf("the enablement file after uninstall = %q, want {} as Gemini CLI leaves it", got)
	}
}

// TestExtensionsEnableDisableRoundTrip: what gemini-ls enables and
// disables, per scope, Gemini CLI 0.61 sees, and the reverse; the
// enablement file is the one Gemini CLI writes.
func TestExtensionsEnableDisableRoundTrip(t *testing.T) {
	e := newExtEnv(t)
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")
	mustOK(t, "install", e.gls(t, "", "install", src, "--consent"))

	r := e.gls(t, "", "disable", "greet", "--scope", "workspace")
	mustOK(t, "gemini-ls disable", r)
	mustContain(t, "gemini-ls disable", r.stdout, `Extension "greet" successfully disabled for scope "workspace".`)
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "✗ greet (1.0.0)", "Enabled (User): true", "Enabled (Workspace): false")

	mustOK(t, "gemini enable", e.gemini(t, "enable", "greet", "--scope", "workspace"))
	mustContain(t, "gemini-ls list", e.gls(t, "", "list").stdout, "✓ greet (1.0.0)", "Enabled (Workspace): true")

	r = e.gls(t, "", "disable", "greet")
	mustContain(t, "gemini-ls disable", r.stdout, `successfully disabled for scope "User".`)
	want := "{\n  \"greet\": {\n    \"overrides\": [\n      \"" + e.work + "/*\",\n      \"!" + e.home + "/*\"\n    ]\n  }\n}"
	if got := readExtFile(t, filepath.Join(e.extDir(""), "extension-enablement.json")); got != want {
		t.Fatalf("enablement file:\n%s\nwant\n%s", got, want)
	}
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "Enabled (User): false")
	r = e.gls(t, "", "enable", "greet")
	mustContain(t, "gemini-ls enable", r.stdout, `Extension "greet" successfully enabled in all scopes.`)
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "Enabled (User): true")

	// An unknown extension: 0.61's messages and exit statuses.
	r = e.gls(t, "", "enable", "nope")
	if r.code != exitFatalConfig || !strings.Contains(r.stderr, "Extension with name nope does not exist.") {
		t.Fatalf("enable nope: %d %q", r.code, r.stderr)
	}
	r = e.gls(t, "", "disable", "nope")
	if r.code != 1 || !strings.Contains(r.stderr, "Extension with name nope does not exist.") {
		t.Fatalf("disable nope: %d %q", r.code, r.stderr)
	}
	r = e.gls(t, "", "disable", "greet", "--scope", "bogus")
	if r.code != 1 || !strings.Contains(r.stderr, "Invalid scope: bogus.") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("--scope bogus: %d %q", r.code, r.stderr)
	}
}

// TestExtensionsLinkRoundTrip: a link gemini-ls makes, Gemini CLI 0.61
// lists as a link to the source and unlinks leaving the source; and one
// it makes gemini-ls lists and removes.
func TestExtensionsLinkRoundTrip(t *testing.T) {
	e := newExtEnv(t)
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")
	r := e.gls(t, "", "link", src, "--consent")
	mustOK(t, "gemini-ls link", r)
	mustContain(t, "gemini-ls link", r.stdout, `Extension "greet" linked successfully and enabled.`)
	if got, want := readExtFile(t, filepath.Join(e.extDir("greet"), ".gemini-extension-install.json")), "{\n  \"source\": "+strconv.Quote(src)+",\n  \"type\": \"link\"\n}"; got != want {
		t.Fatalf("link metadata %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.extDir("greet"), "gemini-extension.json")); !os.IsNotExist(err) {
		t.Fatalf("a link copied the manifest: %v", err)
	}
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "Path: "+src+"\n", "(Type: link)")
	mustOK(t, "gemini uninstall", e.gemini(t, "uninstall", "greet"))
	if _, err := os.Stat(filepath.Join(src, "gemini-extension.json")); err != nil {
		t.Fatalf("uninstalling the link removed its source: %v", err)
	}
	mustOK(t, "gemini link", e.gemini(t, "link", src, "--consent"))
	mustContain(t, "gemini-ls list", e.gls(t, "", "list").stdout, "Path: "+src+"\n", "(Type: link)")
	r = e.gls(t, "", "update", "greet")
	mustContain(t, "gemini-ls update of a link", r.stdout, `Extension "greet" is already up to date.`)
	mustOK(t, "gemini-ls uninstall", e.gls(t, "", "uninstall", src))
	if _, err := os.Stat(e.extDir("greet")); !os.IsNotExist(err) {
		t.Fatalf("uninstall by source left %s", e.extDir("greet"))
	}
	if _, err := os.Stat(filepath.Join(src, "gemini-extension.json")); err != nil {
		t.Fatalf("uninstalling the link removed its source: %v", err)
	}
}

// TestExtensionsUpdateLocalRoundTrip: a local extension installed by one
// tool, whose source moved on, is updated by the other, the enablement
// and the settings (.env) kept.
func TestExtensionsUpdateLocalRoundTrip(t *testing.T) {
	e := newExtEnv(t)
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")
	mustOK(t, "gemini install", e.gemini(t, "install", src, "--consent"))
	mustOK(t, "disable", e.gls(t, "", "disable", "greet", "--scope", "workspace"))
	e.write(t, filepath.Join(e.extDir("greet"), ".env"), "KEY=kept\n")
	r := e.gls(t, "", "update", "greet")
	mustContain(t, "gemini-ls update", r.stdout, `Extension "greet" is already up to date.`)

	e.source(t, src, "greet", "1.1.0")
	e.write(t, filepath.Join(src, "NEW.md"), "new\n")
	r = e.gls(t, "", "update", "greet")
	mustOK(t, "gemini-ls update", r)
	mustContain(t, "gemini-ls update", r.stdout, `Extension "greet" successfully updated: 1.0.0 → 1.1.0.`)
	if got := readExtFile(t, filepath.Join(e.extDir("greet"), "NEW.md")); got != "new\n" {
		t.Fatalf("the update did not copy the source again: %q", got)
	}
	if got := readExtFile(t, filepath.Join(e.extDir("greet"), ".env")); got != "KEY=kept\n" {
		t.Fatalf("the update lost the settings: %q", got)
	}
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "✗ greet (1.1.0)", "Enabled (Workspace): false")

	e.source(t, src, "greet", "1.2.0")
	r = e.gemini(t, "update", "--all")
	mustContain(t, "gemini update", r.all(), `Extension "greet" successfully updated: 1.1.0 → 1.2.0.`)
	mustContain(t, "gemini-ls list", e.gls(t, "", "list").stdout, "greet (1.2.0)")
	r = e.gls(t, "", "update", "--all")
	mustContain(t, "gemini-ls update --all", r.stdout, "No extensions to update.")

	r = e.gls(t, "", "update", "nope")
	if r.code != 0 || !strings.Contains(r.stderr, "Extension \"nope\" not found.\n\nInstalled extensions:\ngreet (1.2.0)") {
		t.Fatalf("update nope: %d %q", r.code, r.stderr)
	}
}

// gitRepo is a bare repository served over HTTP on loopback by git's own
// http-backend (Gemini CLI takes only URLs for git sources), and a clone
// to push new versions from.
type gitRepo struct {
	bare, wc, url string
}

func newGitRepo(t *testing.T, e extEnv, name string) gitRepo {
	t.Helper()
	platformtest.Tool(t, "git")
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git: %v", err)
	}
	repos := filepath.Join(e.root, "repos")
	g := gitRepo{bare: filepath.Join(repos, name+".git"), wc: filepath.Join(e.root, "wc-"+name)}
	gitRun(t, "", "init", "-q", "--bare", g.bare)
	gitRun(t, "", "init", "-q", "-b", "main", g.wc)
	srv := httptest.NewServer(&cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"},
	})
	t.Cleanup(srv.Close)
	g.url = srv.URL + "/" + name + ".git"
	gitRun(t, g.wc, "remote", "add", "origin", g.bare)
	return g
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// push commits the extension at version and pushes it.
func (g gitRepo) push(t *testing.T, e extEnv, name, version string) {
	t.Helper()
	e.source(t, g.wc, name, version)
	gitRun(t, g.wc, "add", "-A")
	gitRun(t, g.wc, "commit", "-qm", version)
	gitRun(t, g.wc, "push", "-q", "origin", "HEAD:main")
	gitRun(t, g.bare, "symbolic-ref", "HEAD", "refs/heads/main")
}

// TestExtensionsGitRoundTrip: an extension gemini-ls clones from a git
// repository, Gemini CLI 0.61 lists and updates when the repository
// moves on; one Gemini CLI clones, gemini-ls updates; --ref is kept.
func TestExtensionsGitRoundTrip(t *testing.T) {
	sandboxtest.NeedGit(t)
	e := newExtEnv(t)
	g := newGitRepo(t, e, "greet")
	g.push(t, e, "greet", "1.0.0")

	r := e.gls(t, "", "install", g.url, "--consent")
	mustOK(t, "gemini-ls install", r)
	if got, want := readExtFile(t, filepath.Join(e.extDir("greet"), ".gemini-extension-install.json")), "{\n  \"source\": \""+g.url+"\",\n  \"type\": \"git\"\n}"; got != want {
		t.Fatalf("git metadata %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.extDir("greet"), ".git")); err != nil {
		t.Fatalf("the install has no .git, which updates need: %v", err)
	}
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "✓ greet (1.0.0)", "(Type: git)")
	mustContain(t, "gemini update", e.gemini(t, "update", "greet").all(), `Extension "greet" is already up to date.`)
	g.push(t, e, "greet", "1.1.0")
	mustContain(t, "gemini update", e.gemini(t, "update", "greet").all(), `Extension "greet" successfully updated: 1.0.0 → 1.1.0.`)
	g.push(t, e, "greet", "1.2.0")
	r = e.gls(t, "", "update", "greet")
	mustContain(t, "gemini-ls update", r.stdout, `Extension "greet" successfully updated: 1.1.0 → 1.2.0.`)
	mustContain(t, "gemini-ls update", e.gls(t, "", "update", "greet").stdout, "already up to date")
	mustOK(t, "gemini uninstall", e.gemini(t, "uninstall", "greet"))

	// Installed by Gemini CLI, updated by gemini-ls.
	mustOK(t, "gemini install", e.gemini(t, "install", g.url, "--consent"))
	g.push(t, e, "greet", "1.3.0")
	r = e.gls(t, "", "update", "--all")
	mustContain(t, "gemini-ls update --all", r.stdout, `Extension "greet" successfully updated: 1.2.0 → 1.3.0.`)
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "greet (1.3.0)")
	mustOK(t, "gemini-ls uninstall", e.gls(t, "", "uninstall", "greet"))

	// --ref: the tag, recorded.
	gitRun(t, g.wc, "tag", "v1")
	gitRun(t, g.wc, "push", "-q", "origin", "v1")
	g.push(t, e, "greet", "2.0.0")
	mustOK(t, "install --ref", e.gls(t, "", "install", g.url, "--ref", "v1", "--auto-update", "--consent"))
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "greet (1.3.0)", "Ref: v1")
	if got := readExtFile(t, filepath.Join(e.extDir("greet"), ".gemini-extension-install.json")); !strings.Contains(got, "\"ref\": \"v1\",\n  \"autoUpdate\": true") {
		t.Fatalf("metadata %q", got)
	}
}

// TestExtensionsGitFileURL: gemini-ls takes a file:// repository too.
func TestExtensionsGitFileURL(t *testing.T) {
	e := newExtEnv(t)
	g := newGitRepo(t, e, "greet")
	g.push(t, e, "greet", "1.0.0")
	mustOK(t, "install file://", e.gls(t, "", "install", "file://"+g.bare, "--consent"))
	mustContain(t, "list", e.gls(t, "", "list").stdout, "greet (1.0.0)", "Source: file://"+g.bare+" (Type: git)")
}

// TestExtensionsInstallRefusals: what cannot be installed is refused in
// one line, exit 1, and nothing is written.
func TestExtensionsInstallRefusals(t *testing.T) {
	e := newExtEnv(t)
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"github", "", []string{"install", "https://github.com/someone/ext", "--consent"}, "GitHub's release downloads, which gemini-ls does not reach"},
		{"missing", "", []string{"install", filepath.Join(e.root, "nothere")}, "Install source not found."},
		{"ref on local", "", []string{"install", src, "--ref", "v1"}, "--ref and --auto-update are not applicable for local extensions."},
		{"no answer", "", []string{"install", src}, "pass --consent"},
		{"answered no", "n\n", []string{"install", src}, `Installation cancelled for "greet".`},
		{"no manifest", "", []string{"install", e.root, "--consent"}, "Configuration file not found at " + filepath.Join(e.root, "gemini-extension.json")},
	} {
		r := e.gls(t, c.stdin, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.name, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(e.extDir("greet")); !os.IsNotExist(err) {
			t.Fatalf("%s: something was installed", c.name)
		}
	}
	r := e.gls(t, "y\n", "install", src)
	mustOK(t, "answered yes", r)
	mustContain(t, "the consent asked", r.stderr, `Installing extension "greet".`, "* s1 (local): node x.js", "Config signature: f7d60df3b2c10766a28bd4478b15b40efeced9fd38b19faf28ef9b293b1e8289", "Do you want to continue? [Y/n]: ")
	r = e.gls(t, "", "install", src, "--consent")
	if r.code != 1 || !strings.Contains(r.stderr, `Extension "greet" is already installed. Please uninstall it first.`) {
		t.Fatalf("installed twice: %d %q", r.code, r.stderr)
	}
	r = e.gls(t, "", "uninstall", "greet", "nope")
	if r.code != 1 || !strings.Contains(r.stdout, `Extension "greet" successfully uninstalled.`) || !strings.Contains(r.stderr, `Failed to uninstall "nope": Extension not found.`) {
		t.Fatalf("uninstall greet nope: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestExtensionsUntrustedFolders: installing from a folder that is not
// trusted asks, as Gemini CLI does (no by default, and --consent does
// not answer it); yes records it in trustedFolders.json; so does the
// workspace's trust, which --consent gives.
func TestExtensionsUntrustedFolders(t *testing.T) {
	e := newExtEnv(t)
	trusted := filepath.Join(e.home, ".gemini", "trustedFolders.json")
	e.write(t, trusted, "{}")
	src := e.source(t, filepath.Join(e.root, "src", "greet"), "greet", "1.0.0")
	r := e.gls(t, "", "install", src, "--consent")
	if r.code != 1 || !strings.Contains(r.stderr, `Installation aborted: Folder "`+src+`" is not trusted`) {
		t.Fatalf("untrusted source: %d %q", r.code, r.stderr)
	}
	r = e.gls(t, "y\n", "install", src, "--consent")
	mustOK(t, "trusted now", r)
	want := "{\n  " + strconv.Quote(trustKey(src)) + ": \"TRUST_FOLDER\",\n  " + strconv.Quote(trustKey(e.work)) + ": \"TRUST_FOLDER\"\n}"
	if got := readExtFile(t, trusted); got != want {
		t.Fatalf("trustedFolders.json:\n%s\nwant\n%s", got, want)
	}
	mustContain(t, "gemini list", e.gemini(t, "list").all(), "greet (1.0.0)")
}

// trustKey is folder as trustedFolders.json keys it: lower-cased where
// file names ignore case (macOS, Windows), as 0.61's normalizePath has it.
func trustKey(folder string) string {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return strings.ToLower(folder)
	}
	return folder
}

// TestExtensionsNewAndValidate: new makes what Gemini CLI 0.61's new
// makes, from nothing or a template; validate says what its validate says.
func TestExtensionsNewAndValidate(t *testing.T) {
	e := newExtEnv(t)
	r := e.gls(t, "", "new", "../mine")
	mustOK(t, "new", r)
	mustContain(t, "new", r.stdout, "Successfully created new extension at ../mine.", `"gemini extensions link ../mine"`)
	if got := readExtFile(t, filepath.Join(e.root, "mine", "gemini-extension.json")); got != "{\n  \"name\": \"mine\",\n  \"version\": \"1.0.0\"\n}" {
		t.Fatalf("new manifest %q", got)
	}
	mustOK(t, "gemini new", e.gemini(t, "new", "../theirs", "mcp-server"))
	mustOK(t, "new from a template", e.gls(t, "", "new", "../ours", "mcp-server"))
	sameTree(t, filepath.Join(e.root, "theirs"), filepath.Join(e.root, "ours"))
	r = e.gls(t, "", "new", "../ours", "hooks")
	if r.code != 1 || !strings.Contains(r.stderr, "Path already exists: ../ours") {
		t.Fatalf("new over a path: %d %q", r.code, r.stderr)
	}
	r = e.gls(t, "", "new", "../x", "bogus")
	if r.code != 1 || !strings.Contains(r.stderr, `Given: "bogus", Choices: "custom-commands"`) {
		t.Fatalf("new bogus: %d %q", r.code, r.stderr)
	}

	for _, c := range []struct{ name, manifest string }{
		{"ok", `{"name":"v","version":"1.0.0"}`},
		{"bad", `{"name":"v","version":"x","contextFileName":["A.md","../b.md"]}`},
		{"badname", `{"name":"v w","version":"1.0.0"}`},
		{"noversion", `{"name":"v"}`},
	} {
		dir := filepath.Join(e.root, "v-"+c.name)
		e.write(t, filepath.Join(dir, "gemini-extension.json"), c.manifest)
		ours, theirs := e.gls(t, "", "validate", dir), e.gemini(t, "validate", dir)
		if ours.code != theirs.code || strings.TrimSpace(ours.all()) != strings.TrimSpace(theirs.all()) {
			t.Errorf("validate %s: gemini-ls (%d)\n%s\nGemini CLI (%d)\n%s", c.name, ours.code, ours.all(), theirs.code, theirs.all())
		}
	}
}

// sameTree fails unless dirs a and b hold the same files.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	err := filepath.Walk(a, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(a, path)
		other, err := os.Stat(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s: missing in %s", rel, b)
			return nil
		}
		if other.Mode() != info.Mode() {
			t.Errorf("%s: mode %v, want %v", rel, other.Mode(), info.Mode())
		}
		if !info.IsDir() && readExtFile(t, path) != readExtFile(t, filepath.Join(b, rel)) {
			t.Errorf("%s differs", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExtensionsUsage: a bad command line is one line and exit 1, as
// Gemini CLI's yargs exits; help is not an error.
func TestExtensionsUsage(t *testing.T) {
	e := newExtEnv(t)
	for _, args := range [][]string{
		{}, {"frob"}, {"list", "--bogus"}, {"list", "-o", "yaml"}, {"uninstall"},
		{"update"}, {"update", "x", "--all"}, {"install"}, {"enable"}, {"config"},
	} {
		r := e.gls(t, "", args...)
		if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and one line", args, r.code, r.stdout, r.stderr)
		}
	}
	r := e.gls(t, "", "--help")
	if r.code != 0 || !strings.Contains(r.stderr, "install <source>") {
		t.Fatalf("--help: %d %q", r.code, r.stderr)
	}
	mustContain(t, "list -o json", e.gls(t, "", "list", "-o", "json").stdout, "[]")
}

// TestExtensionsMissingSettings: an extension declaring settings installs
// with --skip-settings (gemini-ls never asks for them), and gemini-ls
// warns of those without a value as Gemini CLI does.
func TestExtensionsMissingSettings(t *testing.T) {
	e := newExtEnv(t)
	src := filepath.Join(e.root, "src", "cfg")
	e.write(t, filepath.Join(src, "gemini-extension.json"), `{"name":"cfg","version":"1.0.0","settings":[{"name":"API host","description":"d","envVar":"HOST"}]}`)
	r := e.gls(t, "", "install", src, "--consent", "--skip-settings")
	mustOK(t, "install", r)
	mustContain(t, "install", r.stderr, `Extension "cfg" has missing settings: API host. Please run "gemini extensions config cfg [setting-name]" to configure them.`)
	ours, theirs := e.gls(t, "", "list"), e.gemini(t, "list")
	mustContain(t, "list", ours.stdout, " Settings:\n  API host: [not set] ")
	if strings.TrimSpace(ours.stdout) != strings.TrimSpace(theirs.stderr) {
		t.Fatalf("gemini-ls list:\n%s\nGemini CLI's:\n%s", ours.stdout, theirs.stderr)
	}
}

// TestExtensionsIntegrityRecord: gemini-ls records its install in Gemini
// CLI 0.61's signed extension_integrity.json (the key read from its file
// keychain), so a record 0.61 left for an earlier install of the same
// name does not make 0.61 refuse to update it.
func TestExtensionsIntegrityRecord(t *testing.T) {
	e := newExtEnv(t)
	a := e.source(t, filepath.Join(e.root, "src", "a"), "greet", "1.0.0")
	b := e.source(t, filepath.Join(e.root, "src", "b"), "greet", "1.0.0")
	mustOK(t, "gemini install", e.gemini(t, "install", a, "--consent"))
	mustOK(t, "gemini uninstall", e.gemini(t, "uninstall", "greet"))
	store := filepath.Join(e.home, ".gemini", "extension_integrity.json")
	before := readExtFile(t, store)
	r := e.gls(t, "", "install", b, "--consent")
	mustOK(t, "gemini-ls install", r)
	if strings.Contains(r.stderr, "integrity") {
		t.Fatalf("the integrity record was not written: %s", r.stderr)
	}
	if readExtFile(t, store) == before {
		t.Fatal("extension_integrity.json was not updated")
	}
	e.source(t, b, "greet", "1.1.0")
	r = e.gemini(t, "update", "greet")
	mustContain(t, "gemini update", r.all(), `Extension "greet" successfully updated: 1.0.0 → 1.1.0.`)
}

// TestExtensionsConsentText: what an install asks consent to is Gemini
// CLI 0.61's text, for an extension with servers (secrets masked),
// excluded tools, hooks and skills.
func TestExtensionsConsentText(t *testing.T) {
	e := newExtEnv(t)
	src := filepath.Join(e.root, "src", "rich")
	e.write(t, filepath.Join(src, "gemini-extension.json"), `{"name":"rich","version":"1.0.0",
		"mcpServers":{"zeta":{"httpUrl":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer x","X-Plain":"p"},"timeout":5000},
		"alpha":{"command":"node","args":["${extensionPath}/s.js","--flag"],"cwd":"/tmp","env":{"API_TOKEN":"t","MODE":"fast"},"trust":true,"includeTools":["a","b"]}},
		"excludeTools":["run_shell_command","web_fetch"],"contextFileName":["A.md","B.md"]}`)
	e.write(t, filepath.Join(src, "hooks", "hooks.json"), `{"hooks":{}}`)
	e.write(t, filepath.Join(src, "skills", "greeter", "SKILL.md"), "---\nname: greeter\ndescription: Says hello\n---\nHello.\n")

	ours := e.gls(t, "y\n", "install", src)
	mustOK(t, "gemini-ls install", ours)
	ourText, _, _ := strings.Cut(ours.stderr, "Do you want to continue? [Y/n]: ")
	mustOK(t, "gemini-ls uninstall", e.gls(t, "", "uninstall", "rich"))

	cmd := geminicli.Command(t, e.home, e.work, "", "extensions", "install", src)
	cmd.Stdin = strings.NewReader("y\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini install: %v\n%s", err, stderr.String())
	}
	theirText, _, _ := strings.Cut(stderr.String(), "Extension \"rich\" installed")
	if strings.TrimSpace(ourText) != strings.TrimSpace(theirText) {
		t.Fatalf("gemini-ls asked:\n%s\nGemini CLI asked:\n%s", ourText, theirText)
	}
}
