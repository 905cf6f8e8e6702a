package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// fakeEnv is a Linux machine with installed tools, of which answering
// ones answer their probes.
func fakeEnv(installed, answering []string) Env {
	return Env{
		GOOS: "linux",
		LookPath: func(name string) (string, error) {
			if slices.Contains(installed, name) {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		},
		Probe: func(_ context.Context, argv ...string) (string, bool) {
			return "", slices.Contains(answering, argv[0])
		},
	}
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func ptr[T any](v T) *T { return &v }

// Resolve follows 0.61's precedence: GEMINI_SANDBOX over -s over
// tools.sandbox; SANDBOX means already inside; true picks a daemon that
// answers, else bubblewrap on Linux.
func TestResolveChoosesAs061(t *testing.T) {
	bwrapOnly := fakeEnv([]string{"bwrap", "docker"}, []string{"bwrap"})
	withDocker := fakeEnv([]string{"bwrap", "docker"}, []string{"bwrap", "docker"})
	for _, c := range []struct {
		name    string
		r       Request
		env     Env
		want    string // "" none
		network bool
		why     string
	}{
		{name: "nothing", r: Request{}, env: bwrapOnly},
		{name: "flag", r: Request{Flag: ptr(true)}, env: bwrapOnly, want: Bubblewrap, why: "--sandbox"},
		{name: "flag false over setting", r: Request{Flag: ptr(false), Setting: true}, env: bwrapOnly},
		{name: "setting true", r: Request{Setting: true}, env: bwrapOnly, want: Bubblewrap, why: "tools.sandbox"},
		{name: "setting string", r: Request{Setting: "true"}, env: bwrapOnly, want: Bubblewrap},
		{name: "setting object", r: Request{Setting: map[string]any{"enabled": true, "networkAccess": true}}, env: bwrapOnly, want: Bubblewrap, network: true},
		{name: "setting object disabled", r: Request{Setting: map[string]any{"enabled": false, "command": "docker"}}, env: withDocker},
		{name: "env over flag", r: Request{Flag: ptr(false), Getenv: envOf(map[string]string{"GEMINI_SANDBOX": " TRUE "})}, env: bwrapOnly, want: Bubblewrap, why: "GEMINI_SANDBOX"},
		{name: "env false over setting", r: Request{Setting: true, Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "0"})}, env: bwrapOnly},
		{name: "inside a sandbox", r: Request{Flag: ptr(true), Getenv: envOf(map[string]string{"SANDBOX": "x"})}, env: bwrapOnly},
		{name: "docker answering", r: Request{Flag: ptr(true)}, env: withDocker, want: Docker},
		{name: "named bwrap", r: Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "bwrap"})}, env: withDocker, want: Bubblewrap},
		{name: "network setting", r: Request{Flag: ptr(true), NetworkAccess: ptr(true)}, env: bwrapOnly, want: Bubblewrap, network: true},
		{name: "tool sandboxing", r: Request{ToolSandboxing: true}, env: withDocker, want: Bubblewrap, why: "security.toolSandboxing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.r.Getenv == nil {
				c.r.Getenv = envOf(nil)
			}
			cfg, err := Resolve(context.Background(), c.r, c.env)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if cfg != nil {
				got = cfg.Command
			}
			if got != c.want {
				t.Fatalf("command = %q, want %q", got, c.want)
			}
			if cfg == nil {
				return
			}
			if cfg.Network != c.network {
				t.Errorf("network = %v, want %v", cfg.Network, c.network)
			}
			if c.why != "" && cfg.Why != c.why {
				t.Errorf("why = %q, want %q", cfg.Why, c.why)
			}
		})
	}
}

// What cannot be set up is an error naming the fix, wrapping ErrSetup.
func TestResolveRefusesWhatCannotRun(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Request
		env  Env
		want string
	}{
		{"no bwrap", Request{Flag: ptr(true)}, fakeEnv(nil, nil), "apt-get install bubblewrap"},
		{"userns refused", Request{Flag: ptr(true)}, fakeEnv([]string{"bwrap"}, nil), "user namespaces are refused"},
		{"invalid", Request{Setting: "jail"}, fakeEnv(nil, nil), "Invalid sandbox command 'jail'. Must be one of docker, podman"},
		{"missing podman", Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "podman"})}, fakeEnv(nil, nil), "Missing sandbox command 'podman' (from GEMINI_SANDBOX)"},
		{"docker without daemon", Request{Setting: "docker"}, fakeEnv([]string{"docker"}, nil), "no daemon answers"},
		{"runsc without docker", Request{Setting: "runsc"}, fakeEnv([]string{"runsc"}, nil), "runsc (gVisor) requires Docker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.r.Getenv == nil {
				c.r.Getenv = envOf(nil)
			}
			_, err := Resolve(context.Background(), c.r, c.env)
			if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrSetup saying %q", err, c.want)
			}
		})
	}
}

// The allowed paths of the object and of tools.sandboxAllowedPaths are
// both writable, once each; SANDBOX_FLAGS and GEMINI_SANDBOX_IMAGE reach
// the container.
func TestResolveMergesPathsFlagsAndImage(t *testing.T) {
	cfg, err := Resolve(context.Background(), Request{
		Setting:      map[string]any{"enabled": true, "command": "docker", "allowedPaths": []any{"/a", "/b"}},
		AllowedPaths: []string{"/b", "/c"},
		Getenv:       envOf(map[string]string{"SANDBOX_FLAGS": "--cpus 1", "GEMINI_SANDBOX_IMAGE": "img:1"}),
	}, fakeEnv([]string{"docker"}, []string{"docker"}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.AllowedPaths, []string{"/a", "/b", "/c"}) || !slices.Equal(cfg.Flags, []string{"--cpus", "1"}) || cfg.Image != "img:1" {
		t.Errorf("config = %+v", cfg)
	}
}

// On Windows and macOS there is no bubblewrap: as in 0.61, true takes
// docker or podman where one answers; bwrap named, or tool sandboxing,
// is refused with what to use instead, and macOS's sandbox-exec, which
// gemini-ls does not drive, is refused with the same advice.
func TestResolveOffLinux(t *testing.T) {
	on := func(goos string, installed, answering []string) Env {
		e := fakeEnv(installed, answering)
		e.GOOS = goos
		return e
	}
	for _, c := range []struct {
		name    string
		r       Request
		env     Env
		want    string
		wantErr string
	}{
		{name: "windows docker", r: Request{Flag: ptr(true)}, env: on("windows", []string{"docker"}, []string{"docker"}), want: Docker},
		{name: "windows podman", r: Request{Flag: ptr(true)}, env: on("windows", []string{"docker", "podman"}, []string{"podman"}), want: Podman},
		{name: "windows none", r: Request{Flag: ptr(true)}, env: on("windows", nil, nil), wantErr: "install docker or podman"},
		{name: "windows bwrap", r: Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "bwrap"})}, env: on("windows", nil, nil), wantErr: "Linux only; on Windows use GEMINI_SANDBOX=docker or podman"},
		{name: "windows tool sandboxing", r: Request{ToolSandboxing: true}, env: on("windows", nil, nil), wantErr: "Linux only; on Windows use"},
		{name: "windows runsc", r: Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "runsc"})}, env: on("windows", []string{"docker"}, []string{"docker"}), wantErr: "only supported on Linux"},
		{name: "macos sandbox-exec", r: Request{Flag: ptr(true)}, env: on("darwin", []string{"sandbox-exec", "docker"}, []string{"docker"}), wantErr: "sandbox-exec) is not supported by gemini-ls yet: set GEMINI_SANDBOX=docker or podman"},
		{name: "macos docker", r: Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "docker"})}, env: on("darwin", []string{"sandbox-exec", "docker"}, []string{"docker"}), want: Docker},
		{name: "macos bwrap", r: Request{Getenv: envOf(map[string]string{"GEMINI_SANDBOX": "bwrap"})}, env: on("darwin", nil, nil), wantErr: "Linux only; on macOS use"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.r.Getenv == nil {
				c.r.Getenv = envOf(nil)
			}
			cfg, err := Resolve(context.Background(), c.r, c.env)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, c.wantErr)
				}
				return
			}
			if err != nil || cfg == nil || cfg.Command != c.want {
				t.Fatalf("Resolve = %+v, %v; want %s", cfg, err, c.want)
			}
		})
	}
}

// The probe of docker or podman, `info`, also says whether it is a
// podman that runs rootless, under its own name or docker's
// (podman-docker); the sandbox's containers keep the user's id only then.
func TestResolveAsksPodmanWhetherItIsRootless(t *testing.T) {
	const (
		podmanRootless = "host:\n  security:\n    capabilities: CAP_CHOWN\n    rootless: true\n    seccompEnabled: true\n"
		podmanAsRoot   = "host:\n  security:\n    rootless: false\n"
		dockerRootless = "Server:\n Security Options:\n  seccomp\n   Profile: builtin\n  rootless\n"
	)
	for _, c := range []struct {
		name     string
		setting  string
		says     string // what `NAME info` prints
		rootless bool
	}{
		{name: "rootless podman", setting: "podman", says: podmanRootless, rootless: true},
		{name: "podman as root", setting: "podman", says: podmanAsRoot},
		{name: "podman saying nothing", setting: "podman", says: ""},
		{name: "rootless podman as docker", setting: "docker", says: podmanRootless, rootless: true},
		{name: "by default", setting: "true", says: podmanRootless, rootless: true},
		{name: "rootless docker", setting: "docker", says: dockerRootless},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls [][]string
			env := Env{
				GOOS:     "linux",
				LookPath: func(name string) (string, error) { return "/usr/bin/" + name, nil },
				Probe: func(_ context.Context, argv ...string) (string, bool) {
					calls = append(calls, argv)
					return c.says, slices.Equal(argv[1:], []string{"info"})
				},
			}
			cfg, err := Resolve(context.Background(), Request{Setting: c.setting, Getenv: envOf(nil)}, env)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Rootless != c.rootless {
				t.Errorf("%s: Rootless = %v, want %v (probes %q)", cfg.Command, cfg.Rootless, c.rootless, calls)
			}
			if len(calls) != 1 {
				t.Errorf("%d probes, want one: %q", len(calls), calls)
			}
			box := &Sandbox{cfg: *cfg, roots: func() []string { return []string{t.TempDir()} }}
			args, err := box.containerArgs("/", nil, nil, []string{"bash"})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(args, "--userns=keep-id"); got != c.rootless {
				t.Errorf("--userns=keep-id in the container's arguments: %v, want %v: %q", got, c.rootless, args)
			}
		})
	}
}
