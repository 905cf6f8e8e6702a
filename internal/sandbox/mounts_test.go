//go:build !windows

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SANDBOX_MOUNTS reads as 0.61 reads it: FROM[:TO[:OPTS]], TO FROM and
// OPTS ro when not given, both paths absolute; SANDBOX_ENV is KEY=VALUE
// pairs; SANDBOX_PORTS needs a container with the network.
func TestResolveReadsSandboxMountsEnvAndPorts(t *testing.T) {
	docker := fakeEnv([]string{"docker", "bwrap"}, []string{"docker", "bwrap"})
	resolveWith := func(command string, network bool, vars map[string]string) (*Config, error) {
		vars["GEMINI_SANDBOX"] = command
		return Resolve(context.Background(), Request{NetworkAccess: &network, Getenv: envOf(vars)}, docker)
	}
	cfg, err := resolveWith("docker", true, map[string]string{
		"SANDBOX_MOUNTS": " /a , /b:/in/b , /c::rw,/d:/d/:z,",
		"SANDBOX_ENV":    "A=1, B=x=y ,",
		"SANDBOX_PORTS":  "8080, 9000",
	})
	if err != nil {
		t.Fatal(err)
	}
	wantMounts := []Mount{{"/a", "/a", "ro"}, {"/b", "/in/b", "ro"}, {"/c", "/c", "rw"}, {"/d", "/d", "z"}}
	if !slices.Equal(cfg.Mounts, wantMounts) || !slices.Equal(cfg.Env, []string{"A=1", "B=x=y"}) || !slices.Equal(cfg.Ports, []string{"8080", "9000"}) {
		t.Errorf("mounts %v, env %q, ports %q", cfg.Mounts, cfg.Env, cfg.Ports)
	}
	for _, c := range []struct {
		command string
		network bool
		vars    map[string]string
		want    string
	}{
		{"docker", false, map[string]string{"SANDBOX_MOUNTS": "data"}, "Path 'data' listed in SANDBOX_MOUNTS must be absolute"},
		{"bwrap", false, map[string]string{"SANDBOX_MOUNTS": "/data:rel"}, "Path 'rel' listed in SANDBOX_MOUNTS must be absolute"},
		{"docker", false, map[string]string{"SANDBOX_MOUNTS": "/a:/b:ro:x"}, "is not FROM[:TO[:OPTS]]"},
		{"docker", false, map[string]string{"SANDBOX_ENV": "A=1,B"}, "SANDBOX_ENV must be a comma-separated list of key=value pairs"},
		{"docker", false, map[string]string{"SANDBOX_ENV": "=1"}, "key=value pairs"},
		{"docker", false, map[string]string{"SANDBOX_PORTS": "8080"}, "SANDBOX_PORTS publishes a container's ports, which needs docker or podman with the network on"},
		{"bwrap", true, map[string]string{"SANDBOX_PORTS": "8080"}, "under bubblewrap with the network on, commands use the host's ports"},
	} {
		_, err := resolveWith(c.command, c.network, c.vars)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err = %v, want %q", c.command, c.vars, err, c.want)
		}
	}
}

// A mount is refused, as the sandbox is set up, where it is missing or
// would show what the sandbox hides: 0.61's sensitive paths (the home
// directory and those above it, the Gemini directory, .env files, the
// files of Gemini's credentials) and gemini-ls's hidden credentials, the
// paths that hold them too; a writable mount elsewhere than at its own
// path; under bubblewrap, a mount where nothing is on the host.
func TestNewRefusesMountsThatCannotOrMustNotBe(t *testing.T) {
	home, data, root := t.TempDir(), t.TempDir(), t.TempDir()
	mk := func(dir, rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk(home, ".ssh/id_ed25519")
	mk(home, ".config/gcloud/credentials.db")
	mk(home, ".gemini/settings.json")
	mk(home, "work/.keep")
	env := mk(data, "proj/.env")
	creds := mk(data, "backup/oauth_creds.json")
	link := filepath.Join(data, "to-ssh")
	if err := os.Symlink(filepath.Join(home, ".ssh"), link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command string
		mount   Mount
		want    string // "" accepted
	}{
		{Docker, Mount{data, "/in/data", "ro"}, ""},
		{Docker, Mount{filepath.Join(home, "work"), filepath.Join(home, "work"), "rw"}, ""},
		{Docker, Mount{filepath.Join(home, ".config"), "/c", "ro"}, "the user's credentials, ~/.config/gcloud"},
		{Docker, Mount{filepath.Join(data, "missing"), "/m", "ro"}, "Missing mount path"},
		{Docker, Mount{home, home, "ro"}, "the home directory"},
		{Docker, Mount{"/", "/host", "ro"}, "the home directory"},
		{Docker, Mount{filepath.Join(home, ".gemini"), "/g", "ro"}, "the Gemini directory"},
		{Docker, Mount{filepath.Join(home, ".gemini/settings.json"), "/s", "ro"}, "the Gemini directory"},
		{Docker, Mount{filepath.Join(home, ".ssh"), "/s", "ro"}, "~/.ssh"},
		{Docker, Mount{link, "/s", "ro"}, "~/.ssh"},
		{Docker, Mount{env, "/e", "ro"}, "a .env file"},
		{Docker, Mount{creds, "/o", "ro"}, "a file of Gemini's credentials"},
		{Docker, Mount{data, "/in/data", "rw"}, "mounts a writable path at its own path only"},
		{Bubblewrap, Mount{data, "/nowhere/data", "ro"}, "and /nowhere/data does not"},
		{Bubblewrap, Mount{data, "/usr/share", "ro"}, ""},
		{Bubblewrap, Mount{data, home, "ro"}, home + " holds " + home + ", which the sandbox mounts itself"},
		{Docker, Mount{data, filepath.Dir(root), "ro"}, " holds " + root},
	} {
		cfg := Config{Command: c.command, Image: DefaultImage, Mounts: []Mount{c.mount}}
		sb := &Sandbox{cfg: cfg, home: home, geminiDir: filepath.Join(home, ".gemini"), roots: func() []string { return []string{root} }}
		err := sb.checkMounts()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.command, c.mount, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: err = %v, want %q", c.command, c.mount, err, c.want)
		}
	}
}

// A container gets each mount as a --volume with its options, a writable
// one once, at its own path, with the protections of a writable path
// over it (its .env files masked); SANDBOX_PORTS as --publish; SANDBOX_ENV
// as --env, whatever the names.
func TestContainerMountsPublishesAndSetsWhatTheUserAsked(t *testing.T) {
	root, data, cache := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cache, ".env"), []byte("K=V"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := &Sandbox{cfg: Config{Command: Podman, Image: DefaultImage, Network: true,
		Mounts: []Mount{{data, "/in/data", "ro"}, {cache, cache, "Z"}},
		Env:    []string{"GITHUB_TOKEN=for-the-sandbox"}, Ports: []string{"8080"}},
		roots: func() []string { return []string{root} }, tool: "/usr/bin/podman"}
	if err := sb.checkMounts(); err != nil { // as New checks them
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	cmd.Dir = root
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	flags := map[string][]string{}
	for i, a := range cmd.Args[:len(cmd.Args)-1] {
		if strings.HasPrefix(a, "--") {
			flags[a] = append(flags[a], cmd.Args[i+1])
		}
	}
	for _, v := range []string{data + ":/in/data:ro", cache + ":" + cache + ":Z", os.DevNull + ":" + filepath.Join(cache, ".env") + ":ro"} {
		if !slices.Contains(flags["--volume"], v) {
			t.Errorf("no --volume %s: %q", v, flags["--volume"])
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(flags["--volume"]), func(v string) bool { return !strings.HasPrefix(v, cache+":") })); n != 1 {
		t.Errorf("%d volumes of %s, want 1: %q", n, cache, flags["--volume"])
	}
	if !slices.Equal(flags["--publish"], []string{"8080:8080"}) {
		t.Errorf("--publish %q", flags["--publish"])
	}
	if !slices.Contains(flags["--env"], "GITHUB_TOKEN=for-the-sandbox") {
		t.Errorf("--env %q lacks SANDBOX_ENV's", flags["--env"])
	}
}
