package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// The sandbox commands, as GEMINI_SANDBOX and tools.sandbox name them.
const (
	Bubblewrap    = "bwrap" // gemini-ls's own, the Linux default
	Docker        = "docker"
	Podman        = "podman"
	SandboxExec   = "sandbox-exec"
	Runsc         = "runsc"
	LXC           = "lxc"
	WindowsNative = "windows-native"
)

// validCommands are 0.61's VALID_SANDBOX_COMMANDS, and bubblewrap.
var validCommands = []string{Docker, Podman, SandboxExec, Runsc, LXC, WindowsNative, Bubblewrap}

// DefaultImage is the image docker and podman run, as 0.61 names it;
// GEMINI_SANDBOX_IMAGE replaces it.
const DefaultImage = "us-docker.pkg.dev/gemini-code-dev/gemini-cli/sandbox:0.61.0"

// ErrSetup wraps every error saying that the sandbox asked for cannot be
// had; a front end stops on it (headless exits 44, as 0.61's
// FatalSandboxError).
var ErrSetup = errors.New("the sandbox cannot be set up")

// Request is what the user asked for, from every place 0.61 reads.
type Request struct {
	// Flag is -s/--sandbox; nil when not given.
	Flag *bool
	// Setting is tools.sandbox: a boolean, a command name, or an object
	// {enabled, command, allowedPaths, networkAccess, image}; nil unset.
	Setting any
	// AllowedPaths and NetworkAccess are tools.sandboxAllowedPaths and
	// tools.sandboxNetworkAccess (nil unset).
	AllowedPaths  []string
	NetworkAccess *bool
	// AllowedSockets is tools.sandboxAllowedSockets, gemini-ls's own.
	AllowedSockets []string
	// ToolSandboxing is security.toolSandboxing: sandbox the tools with
	// the native sandbox even when nothing else asks for one.
	ToolSandboxing bool
	// Getenv reads GEMINI_SANDBOX, GEMINI_SANDBOX_IMAGE, SANDBOX and
	// SANDBOX_FLAGS.
	Getenv func(string) string
}

// Config is the sandbox a session runs its commands in.
type Config struct {
	// Command is the backend: Bubblewrap, Docker, Podman or Runsc.
	Command string
	// AllowedPaths are writable besides the workspace roots.
	AllowedPaths []string
	// Network says whether commands may use the network.
	Network bool
	// AllowedSockets are the host's Unix sockets commands may connect
	// to; with none, they can make no Unix socket at all.
	AllowedSockets []string
	// Rootless says podman (under its name or docker's) runs its
	// containers in the user's own user namespace, where the user is the
	// container's root and --user's uid one of the user's subordinate
	// ids, which may not write the workspace: its containers then keep
	// the user's id as itself (--userns=keep-id), as 0.61's do not
	// (google-gemini/gemini-cli#29338).
	Rootless bool
	// Image is what docker and podman run.
	Image string
	// Flags are SANDBOX_FLAGS, given to docker and podman run.
	Flags []string
	// Mounts are SANDBOX_MOUNTS: more of the host's paths in the
	// sandbox, checked by New.
	Mounts []Mount
	// Env is SANDBOX_ENV: KEY=VALUE entries every command gets.
	Env []string
	// Ports are SANDBOX_PORTS: a container's ports published at the
	// host's same ports (needs the network).
	Ports []string
	// Why names the switch that asked for the sandbox, for the user.
	Why string
	// Redaction is security.environmentVariableRedaction. Inside the
	// sandbox it is always on; its Allowed still lets a variable in.
	Redaction envredact.Policy
	// Supervisor, when set, is the program (and its arguments) that
	// answers SupervisorArg: with bubblewrap, Run's commands then share
	// one persistent sandbox (Session) instead of a bwrap each.
	Supervisor []string
	// UserConfig are directories of the user's configuration, outside
	// the roots' names, through which programs run outside the sandbox
	// later (git's, Neovim's and fish's where XDG_CONFIG_HOME puts
	// them): kept read-only where they lie in the writable paths, made
	// empty first when missing so that none can be planted.
	UserConfig []string
	// StartupFiles are the files gemini-ls reads as it starts, outside
	// any sandbox (the .env files its loader looks for), which no
	// command may make (startFiles); Warn tells the user when one was
	// moved aside.
	StartupFiles []string
	Warn         func(string)
	// OpenInEditor reports whether the editor has the file open: a
	// start-up file the user made there, or looks at, is theirs, not
	// moved aside (nil: none is).
	OpenInEditor func(path string) bool
	// WatchDir is where the sandbox records the start-up files it
	// watches, for a gemini-ls that starts beside it or after it died
	// (MoveAsideWatched): in gemini-ls's state directory; "" records
	// nothing.
	WatchDir string
	// Trail is where the sandbox records when its commands could write
	// where (internal/sandboxtrail), before the first runs: a folder
	// below a root whose configuration they changed is asked about
	// again. The zero Trail records nothing.
	Trail sandboxtrail.Trail
	// DeniedPrograms, when set, answers the programs the policy denies
	// outright (policy.Engine.DeniedPrograms), asked for each command:
	// under bubblewrap none of them starts (execLocks), whatever the
	// spelling that names it.
	DeniedPrograms func() []string
}

// Resolve is the sandbox r asks for, nil when none, or an error saying
// why the one asked for cannot be had. env probes whether tools work.
func Resolve(ctx context.Context, r Request, env Env) (*Config, error) {
	cfg, err := resolve(ctx, r, env)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	return cfg, nil
}

func resolve(ctx context.Context, r Request, env Env) (*Config, error) {
	if r.Getenv("SANDBOX") != "" {
		// Already inside a sandbox, as 0.61 takes it.
		return nil, nil
	}
	value, why := r.Setting, "tools.sandbox"
	if r.Flag != nil {
		value, why = *r.Flag, "--sandbox"
	}
	cfg := &Config{}
	if obj, ok := value.(map[string]any); ok {
		value = false
		if enabled, _ := obj["enabled"].(bool); enabled {
			value = true
			if c, ok := obj["command"].(string); ok {
				value = c
			}
		}
		cfg.AllowedPaths = stringsOf(obj["allowedPaths"])
		cfg.Network, _ = obj["networkAccess"].(bool)
		cfg.Image, _ = obj["image"].(string)
	}
	if v := strings.ToLower(strings.TrimSpace(r.Getenv("GEMINI_SANDBOX"))); v != "" {
		value, why = v, "GEMINI_SANDBOX"
	}
	chosen, err := chooseCommand(ctx, value, why, env)
	if err != nil {
		return nil, err
	}
	if chosen.command == "" && r.ToolSandboxing {
		chosen, why = backend{command: Bubblewrap}, "security.toolSandboxing"
		if err := env.bubblewrapWorks(ctx); err != nil {
			return nil, err
		}
	}
	if chosen.command == "" {
		return nil, nil
	}
	cfg.Command, cfg.Rootless, cfg.Why = chosen.command, chosen.rootless, why
	for _, p := range r.AllowedPaths {
		if !slices.Contains(cfg.AllowedPaths, p) {
			cfg.AllowedPaths = append(cfg.AllowedPaths, p)
		}
	}
	cfg.AllowedSockets = r.AllowedSockets
	if r.NetworkAccess != nil {
		cfg.Network = cfg.Network || *r.NetworkAccess
	}
	if img := r.Getenv("GEMINI_SANDBOX_IMAGE"); img != "" {
		cfg.Image = img
	} else if cfg.Image == "" {
		cfg.Image = DefaultImage
	}
	cfg.Flags = strings.Fields(r.Getenv("SANDBOX_FLAGS"))
	if cfg.Mounts, err = parseMounts(r.Getenv("SANDBOX_MOUNTS")); err != nil {
		return nil, err
	}
	if cfg.Env, err = parseEnvList(r.Getenv("SANDBOX_ENV")); err != nil {
		return nil, err
	}
	for p := range strings.SplitSeq(r.Getenv("SANDBOX_PORTS"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.Ports = append(cfg.Ports, p)
		}
	}
	if len(cfg.Ports) > 0 && (cfg.Command == Bubblewrap || !cfg.Network) {
		return nil, fmt.Errorf("SANDBOX_PORTS publishes a container's ports, which needs docker or podman with the network on (tools.sandboxNetworkAccess); under bubblewrap with the network on, commands use the host's ports as they are")
	}
	return cfg, nil
}

// backend is the sandbox command chosen ("" none), and what its probe
// found.
type backend struct {
	command string
	// rootless: a podman that runs its containers in the user's own
	// user namespace (Config.Rootless).
	rootless bool
}

// chooseCommand is getSandboxCommand: value is a boolean, a truthy or
// falsy string, or a command name.
func chooseCommand(ctx context.Context, value any, why string, env Env) (backend, error) {
	switch v := value.(type) {
	case nil:
		return backend{}, nil
	case bool:
		if !v {
			return backend{}, nil
		}
		return env.defaultCommand(ctx)
	case string:
		switch v {
		case "", "0", "false":
			return backend{}, nil
		case "1", "true":
			return env.defaultCommand(ctx)
		}
		return env.namedCommand(ctx, v, why)
	default:
		return backend{}, fmt.Errorf("%s must be a boolean, a sandbox command or an object, not %v", why, value)
	}
}

// Env is the machine the sandbox runs on: what is installed and answers.
type Env struct {
	GOOS     string
	LookPath func(string) (string, error)
	// Probe runs a probe command: what it printed, and whether it
	// exited 0.
	Probe func(ctx context.Context, argv ...string) (string, bool)
}

// HostEnv is this machine.
func HostEnv() Env {
	return Env{GOOS: runtime.GOOS, LookPath: spawn.LookPath, Probe: runProbe}
}

// runProbe runs argv, a few seconds at most: its standard output, and
// whether it exited 0.
func runProbe(ctx context.Context, argv ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := spawn.Command(ctx, spawn.Helper{Name: argv[0]}, argv[0], argv[1:]...)
	// A child the probe left holding its output (a daemon it started)
	// does not hold the start-up past the time-out.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err == nil
}

func (e Env) installed(name string) bool {
	_, err := e.LookPath(name)
	return err == nil
}

// daemon asks docker or podman whether it can run containers here (its
// `info` succeeds) and whether it is a podman that runs them rootless:
// its info, YAML, says "rootless: true", under either name (podman-docker
// makes podman the docker command). A rootless docker's info says
// "rootless" among its security options, which is not told apart yet.
func (e Env) daemon(ctx context.Context, name string) backend {
	if !e.installed(name) {
		return backend{}
	}
	out, ok := e.Probe(ctx, name, "info")
	if !ok {
		return backend{}
	}
	rootless := false
	for line := range strings.Lines(out) {
		if strings.TrimSpace(line) == "rootless: true" {
			rootless = true
		}
	}
	return backend{command: name, rootless: rootless}
}

// defaultCommand is what `true` means: 0.61's choice (sandbox-exec on
// macOS, else docker, else podman), where they answer; on Linux
// bubblewrap when neither does.
func (e Env) defaultCommand(ctx context.Context) (backend, error) {
	if e.GOOS == "darwin" && e.installed(SandboxExec) {
		return backend{}, errors.New("the macOS sandbox (sandbox-exec) is not supported by gemini-ls yet: set GEMINI_SANDBOX=docker or podman, or run without --sandbox")
	}
	for _, name := range []string{Docker, Podman} {
		if d := e.daemon(ctx, name); d.command != "" {
			return d, nil
		}
	}
	if e.GOOS == "linux" {
		return backend{command: Bubblewrap}, e.bubblewrapWorks(ctx)
	}
	return backend{}, errors.New("GEMINI_SANDBOX is true but failed to determine command for sandbox; install docker or podman or specify command in GEMINI_SANDBOX")
}

// namedCommand checks a command named by GEMINI_SANDBOX or tools.sandbox.
func (e Env) namedCommand(ctx context.Context, name, why string) (backend, error) {
	if !slices.Contains(validCommands, name) {
		return backend{}, fmt.Errorf("Invalid sandbox command '%s'. Must be one of %s", name, strings.Join(validCommands, ", "))
	}
	switch name {
	case Bubblewrap:
		return backend{command: name}, e.bubblewrapWorks(ctx)
	case Runsc:
		if e.GOOS != "linux" {
			return backend{}, errors.New("gVisor (runsc) sandboxing is only supported on Linux")
		}
		if !e.installed(Runsc) {
			return backend{}, fmt.Errorf("Missing sandbox command '%s' (from %s)", name, why)
		}
		if !e.installed(Docker) {
			return backend{}, errors.New("runsc (gVisor) requires Docker. Install Docker, or use sandbox: 'docker'.")
		}
		if e.daemon(ctx, Docker).command == "" {
			return backend{}, errors.New("runsc (gVisor) runs through docker, and the docker daemon does not answer (docker info failed): start it, or use GEMINI_SANDBOX=bwrap")
		}
		return backend{command: name}, nil
	case Docker, Podman:
		if !e.installed(name) {
			return backend{}, fmt.Errorf("Missing sandbox command '%s' (from %s)", name, why)
		}
		d := e.daemon(ctx, name)
		if d.command == "" {
			return backend{}, fmt.Errorf("the %s sandbox (from %s) cannot run: `%s info` failed, so no daemon answers; start it, or use GEMINI_SANDBOX=bwrap on Linux", name, why, name)
		}
		return d, nil
	default:
		return backend{}, fmt.Errorf("the %s sandbox (from %s) is not supported by gemini-ls: use docker, podman, or bwrap on Linux", name, why)
	}
}

// osName is goos as its users call it.
func osName(goos string) string {
	switch goos {
	case "windows":
		return "Windows"
	case "darwin":
		return "macOS"
	}
	return goos
}

// bubblewrapWorks checks that bwrap is installed and may make the
// namespaces the sandbox needs.
func (e Env) bubblewrapWorks(ctx context.Context) error {
	if e.GOOS != "linux" {
		return fmt.Errorf("the bubblewrap sandbox runs on Linux only; on %s use GEMINI_SANDBOX=docker or podman (Docker Desktop or Podman running), or run without the sandbox", osName(e.GOOS))
	}
	if !e.installed(Bubblewrap) {
		return errors.New("the sandbox needs bubblewrap (bwrap), which is not installed: install it (apt-get install bubblewrap, dnf install bubblewrap), or use GEMINI_SANDBOX=docker or podman")
	}
	if _, ok := e.Probe(ctx, Bubblewrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "true"); !ok {
		return errors.New("bubblewrap (bwrap) cannot make a sandbox here: unprivileged user namespaces are refused; allow them (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; on Ubuntu keep the bwrap AppArmor profile), or use GEMINI_SANDBOX=docker or podman")
	}
	return nil
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
