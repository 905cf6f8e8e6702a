package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// sandboxFor is a real sandbox of command over a fresh workspace and home.
func sandboxFor(t *testing.T, cfg Config) (sb *Sandbox, root, home string) {
	t.Helper()
	if cfg.Command == Bubblewrap {
		sandboxtest.NeedBubblewrap(t)
	}
	root, home = t.TempDir(), t.TempDir()
	sb, err := New(cfg, func() []string { return []string{root} }, home, "")
	if err != nil {
		t.Fatal(err)
	}
	return sb, root, home
}

// run runs bash -c script in the sandbox, in root.
func run(t *testing.T, sb *Sandbox, root, script string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "bash", "-c", script)
	cmd.Dir = root
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func loopback(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// The network is off unless allowed, and then the host's loopback is
// reachable; /tmp is private either way.
func TestBubblewrapNetworkAndTmp(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	port := loopback(t)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	for _, network := range []bool{false, true} {
		sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Network: network, Why: "test"})
		out, err := run(t, sb, root, connect)
		if (err == nil) != network {
			t.Errorf("network %v: connect err = %v, output %q", network, err, out)
		}
	}
	marker := filepath.Join(os.TempDir(), "gemini-ls-sandbox-"+strconv.Itoa(os.Getpid()))
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	if out, err := run(t, sb, root, "echo x > "+marker+" && cat "+marker); err != nil || out != "x\n" {
		t.Fatalf("writing the private /tmp: %v %q", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		os.Remove(marker)
		t.Error("the sandbox's /tmp is the host's")
	}
}

// Allowed paths are writable like the workspace; the rest is not.
func TestBubblewrapAllowedPaths(t *testing.T) {
	allowed := t.TempDir()
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, AllowedPaths: []string{allowed}, Why: "test"})
	if out, err := run(t, sb, root, "echo a > "+allowed+"/a && echo w > w"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out, err := run(t, sb, root, "echo h > "+home+"/h")
	if err == nil || !strings.Contains(out, "Read-only file system") {
		t.Errorf("writing home: %v %q", err, out)
	}
}

// Podman, as 0.61 uses it, a real one (sandboxtest.Podman), a container
// for the command: the workspace writable at its own path, the program
// found in the image (whose bash is /bin/bash alone) and called by its
// name, the home absent, the network off, nothing left behind (--rm).
func TestPodmanRunsTheCommandInTheImage(t *testing.T) {
	image, _ := sandboxtest.Podman(t)
	sb, root, home := sandboxFor(t, Config{Command: Podman, Image: image, Why: "test"})
	out, err := run(t, sb, root, `echo w > w && cat w && echo "$SANDBOX $0 $PWD"; ls -d /usr/bin/bash `+home+` 2>/dev/null | wc -l`)
	if want := "w\ngemini-ls-podman bash " + root + "\n0\n"; err != nil || out != want {
		t.Errorf("in the container: %v %q, want %q", err, out, want)
	}
	if data, err := os.ReadFile(filepath.Join(root, "w")); err != nil || string(data) != "w\n" {
		t.Errorf("the workspace's file: %q %v", data, err)
	}
	if out, err := run(t, sb, root, "exec 3<>/dev/tcp/1.1.1.1/53"); err == nil {
		t.Errorf("network on: %q", out)
	}
	ps, err := exec.Command("podman", "ps", "--all", "--quiet", "--filter", "ancestor="+image).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(ps)) > 0 {
		t.Errorf("containers of the image left: %v %q", err, ps)
	}
}

// The Gemini directory's credentials are hidden where GEMINI_CLI_HOME
// puts it, not only under $HOME; the rest of it stays readable.
func TestBubblewrapHidesTheGeminiDirectorysCredentials(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	root, home := t.TempDir(), t.TempDir()
	gemini := filepath.Join(t.TempDir(), ".gemini")
	for name, content := range map[string]string{"oauth_creds.json": "SECRET", "settings.json": "{}"} {
		if err := os.MkdirAll(gemini, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gemini, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(Config{Command: Bubblewrap, AllowedPaths: []string{filepath.Dir(gemini)}, Why: "test"}, func() []string { return []string{root} }, home, gemini)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, sb, root, "cat "+gemini+"/oauth_creds.json; echo; cat "+gemini+"/settings.json")
	if strings.Contains(out, "SECRET") || !strings.HasSuffix(out, "\n{}") {
		t.Errorf("reading the Gemini directory: %q, want the settings alone", out)
	}
}

// What configures the commands run outside the sandbox later (the
// project's .gemini, git's hooks and config, the editors' project
// configuration that is there) is read-only inside it; the rest of .git
// stays writable, for git itself.
func TestBubblewrapKeepsTheProjectsConfigurationReadOnly(t *testing.T) {
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	for _, dir := range []string{".gemini", ".git/hooks", ".git/objects", ".vscode", ".zed"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".git/config", ".vscode/tasks.json", ".envrc", ".nvim.lua"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".gemini/settings.json", ".git/hooks/pre-commit", ".git/config", ".vscode/tasks.json", ".vscode/settings.json", ".zed/settings.json", ".envrc", ".nvim.lua"} {
		if out, err := run(t, sb, root, "echo planted >> "+name); err == nil {
			t.Errorf("writing %s: allowed (%q)", name, out)
		}
	}
	if out, err := run(t, sb, root, "echo x > .git/objects/x"); err != nil {
		t.Errorf("writing .git/objects: %v %q", err, out)
	}
}

// Inside the sandbox the environment's secrets are gone whatever the
// settings say (redaction is off here), whether the command's Env is
// gemini-ls's own (nil) or has more; a variable the settings allow, and
// one no rule matches, get through.
func TestBubblewrapRedactsTheEnvironment(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "gemini-secret")
	t.Setenv("GOOGLE_API_KEY", "google-secret")
	t.Setenv("MY_TOKEN", "allowed-token")
	t.Setenv("PLAIN_VAR", "plain")
	// Not a GitHub Actions run, which 0.61's rules sanitize strictly.
	t.Setenv("GITHUB_SHA", "")
	t.Setenv("SURFACE", "")
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test", Redaction: envredact.Policy{Allowed: []string{"MY_TOKEN"}}})
	const probe = `echo "[$GEMINI_API_KEY][$GOOGLE_API_KEY][$MY_TOKEN][$PLAIN_VAR][$ADDED_SECRET]"`
	for _, env := range [][]string{nil, append(os.Environ(), "ADDED_SECRET=added")} {
		cmd := exec.CommandContext(t.Context(), "bash", "-c", probe)
		cmd.Dir, cmd.Env = root, env
		if err := sb.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if want := "[][][allowed-token][plain][]\n"; err != nil || string(out) != want {
			t.Errorf("env %d entries: %v %q, want %q", len(env), err, out, want)
		}
	}
}

// Docker and podman get only what the caller added to gemini-ls's own
// environment, and of that not what may hold a secret.
func TestContainerPassesTheAddedEnvironmentRedacted(t *testing.T) {
	t.Setenv("GITHUB_SHA", "") // not a GitHub Actions run, sanitized strictly
	t.Setenv("SURFACE", "")
	root := t.TempDir()
	sb := &Sandbox{cfg: Config{Command: Docker, Image: DefaultImage, Redaction: envredact.Policy{Allowed: []string{"MY_TOKEN"}}},
		roots: func() []string { return []string{root} }, tool: "/usr/bin/docker"}
	cmd := exec.Command("true")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ADDED_TOKEN=secret", "ADDED_URL=https://u:p@example.com", "ADDED_PLAIN=plain", "MY_TOKEN=allowed")
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	var passed []string
	for i, a := range cmd.Args {
		if a == "--env" {
			passed = append(passed, cmd.Args[i+1])
		}
	}
	if want := []string{"SANDBOX=gemini-ls-docker", "ADDED_PLAIN=plain", "MY_TOKEN=allowed"}; !slices.Equal(passed, want) {
		t.Errorf("--env %q, want %q", passed, want)
	}
}

// What configures the commands run outside the sandbox later cannot be
// planted where it does not exist yet (as 0.61, the sandbox makes it
// empty first and keeps it read-only), nor by moving .git aside.
func TestBubblewrapCannotPlantTheProjectsConfiguration(t *testing.T) {
	plants := map[string]string{
		"mkdir -p .gemini && echo x > .gemini/settings.json":                                      ".gemini/settings.json",
		"mkdir -p .git/hooks && echo x > .git/hooks/pre-commit":                                   ".git/hooks/pre-commit",
		"git init -q . && echo x > .git/hooks/pre-commit":                                         ".git/hooks/pre-commit",
		"mv .git .git.old && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit":               ".git/hooks/pre-commit",
		"rm -rf .git; mkdir -p .git/hooks && echo x > .git/hooks/pre-commit":                      ".git/hooks/pre-commit",
		"printf '[core]\\n\\thooksPath = h\\n' > .git/config && mkdir h && echo x > h/pre-commit": ".git/config",
	}
	for script, planted := range plants {
		sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
		out, err := run(t, sb, root, script)
		data, _ := os.ReadFile(filepath.Join(root, planted))
		if err == nil || len(data) != 0 {
			t.Errorf("%s: err %v, %s holds %q (output %q)", script, err, planted, data, out)
		}
	}
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	if out, err := run(t, sb, root, "echo w > w && mkdir -p .git/objects && echo o > .git/objects/o"); err != nil {
		t.Errorf("writing the workspace and .git's other files: %v %q", err, out)
	}
}

// A git worktree's .git, a file naming the git directory, is read-only:
// pointing it elsewhere would choose the hooks the user's git runs.
func TestBubblewrapKeepsAWorktreesGitFileReadOnly(t *testing.T) {
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, sb, root, "echo 'gitdir: evil' > .git"); err == nil {
		t.Errorf("rewriting .git: allowed (%q)", out)
	}
}

// The workspace's .env and .env.* files are masked as 0.61 masks them:
// three levels deep, not inside .git, node_modules and their like. A
// masked one can be neither read nor written.
func TestBubblewrapMasksTheWorkspacesEnvFiles(t *testing.T) {
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	files := map[string]bool{ // masked?
		".env":              true,
		"a/.env.local":      true,
		"a/b/.env.prod":     true,
		"a/b/c/.env":        false, // deeper than find -maxdepth 3
		"node_modules/.env": false,
		"build/.env":        false,
		"a/.environment":    false,
		"a/b/settings.env":  false,
	}
	for name := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte("API_KEY=SECRET"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, masked := range files {
		out, err := run(t, sb, root, "cat "+name)
		if read := err == nil && out == "API_KEY=SECRET"; read == masked || (masked && strings.Contains(out, "SECRET")) {
			t.Errorf("%s: read %v (%v, %q), want masked %v", name, read, err, out, masked)
		}
		if _, err := run(t, sb, root, "echo x > "+name); (err != nil) != masked {
			t.Errorf("%s: write refused = %v, want %v", name, err != nil, masked)
		}
	}
}

// Docker and podman get the governing paths and .env files as bubblewrap
// does: made first where missing, mounted read-only over the writable
// workspace, .git and the directories holding a kept file over
// themselves, the .env masked by /dev/null.
func TestContainerProtectsTheProjectsConfigurationAndEnvFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := &Sandbox{cfg: Config{Command: Podman, Image: DefaultImage}, roots: func() []string { return []string{root} }, tool: "/usr/bin/podman"}
	cmd := exec.Command("true")
	cmd.Dir = root
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	var volumes []string
	for i, a := range cmd.Args {
		if a == "--volume" {
			volumes = append(volumes, cmd.Args[i+1])
		}
	}
	j := func(rel string) string { return filepath.Join(root, rel) }
	want := []string{
		root + ":" + root,
		j(".gemini") + ":" + j(".gemini") + ":ro",
		j(".vscode") + ":" + j(".vscode") + ":ro",
		j(".git") + ":" + j(".git"),
		j(".git/config") + ":" + j(".git/config") + ":ro",
		j(".git/hooks") + ":" + j(".git/hooks") + ":ro",
		j(".git/commondir") + ":" + j(".git/commondir") + ":ro",
		j(".git/config.worktree") + ":" + j(".git/config.worktree") + ":ro",
		j(".git/info/attributes") + ":" + j(".git/info/attributes") + ":ro",
		j(".git/info") + ":" + j(".git/info"), // pinned: it holds a kept file
		os.DevNull + ":" + j(".env") + ":ro",
	}
	if !slices.Equal(volumes, want) {
		t.Errorf("--volume %q, want %q", volumes, want)
	}
	for _, rel := range []string{".gemini", ".git/hooks", ".git/config", ".git/commondir", ".git/config.worktree", ".git/info/attributes"} {
		if _, err := os.Lstat(j(rel)); err != nil {
			t.Errorf("%s was not made before the container: %v", rel, err)
		}
	}
}

// A command has no capability, even where gemini-ls runs as root, where
// bwrap would keep them all: with CAP_SYS_ADMIN a command could unmount a
// read-only governing file and write it.
func TestWrapLeavesNoCapabilities(t *testing.T) {
	sb, root, _ := sandboxFor(t, Config{Command: Bubblewrap})
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, sb, root, `grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status | tr -d '\t'
umount .git/config 2>/dev/null; { echo x >> .git/config; } 2>/dev/null && echo wrote; true`)
	if err != nil {
		t.Fatal(err, out)
	}
	if want := "CapPrm:0000000000000000\nCapEff:0000000000000000\nCapBnd:0000000000000000\nCapAmb:0000000000000000\n"; out != want {
		t.Errorf("a command's capabilities: %q, want %q", out, want)
	}
}

// Gemini CLI's file keychain (~/.gemini/gemini-credentials.json), its
// integrity key (~/.gemini/integrity.key) and git's credential store
// under ~/.config/git are hidden, as ~/.gemini's other credentials are.
func TestTheKeychainAndGitsCredentialsAreHidden(t *testing.T) {
	sb, root, home := sandboxFor(t, Config{Command: Bubblewrap, Why: "test"})
	var files []string
	for _, f := range []string{".gemini/oauth_creds.json", ".gemini/gemini-credentials.json", ".gemini/integrity.key", ".config/git/credentials"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("SECRET:"+f+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out, _ := run(t, sb, root, "cat "+strings.Join(files, " ")+" 2>/dev/null")
	if strings.Contains(out, "SECRET") {
		t.Errorf("read inside the sandbox:\n%s", out)
	}
}
