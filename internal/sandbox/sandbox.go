package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Sandbox runs commands inside the sandbox a Config describes. nil is no
// sandbox.
type Sandbox struct {
	cfg Config
	// roots are the workspace roots, asked for each command: an editor's
	// workspace folders change while the server runs.
	roots func() []string
	home  string
	// geminiDir is the user's Gemini directory (~/.gemini, or under
	// GEMINI_CLI_HOME), whose credential files are hidden.
	geminiDir string
	// tool is the backend's executable, found once.
	tool string
	// seccomp holds bubblewrap's seccomp filter (seccomp.go).
	seccomp *os.File
	// session runs Run's commands when cfg.Supervisor is set, on Linux;
	// nil: each gets a bwrap or a container of its own (Confine).
	session *Session
	// mountedReal are cfg.Mounts' paths resolved when checked
	// (checkMounts), index by index; a mount never checked is refused
	// (unchanged).
	mountedReal []string
	// startFiles are the start-up files no command may make.
	startFiles *startFiles
	// gitWatch sets aside the git directories commands made that would
	// run a program in git outside (gitwatch.go).
	gitWatch *gitWatch
	// windows are the trail's windows this sandbox holds open, by the
	// writable paths and roots they cover (cfg.Trail): closed by Close.
	windowsMu sync.Mutex
	windows   map[string]*sandboxtrail.Opened
	// perCommand says why containers get no session though a supervisor
	// was given (Describe says it): "" when they get one, or none was.
	perCommand string
	// closed: Close was called; Session is nil from then on, so a command
	// that comes late (a turn still running in a build replaced) gets a
	// sandbox of its own, which ends with it, rather than a new persistent
	// sandbox nobody would close.
	closed atomic.Bool
}

// New is the sandbox cfg describes for a workspace whose roots are those
// roots answers, for a user whose home is home and Gemini directory
// geminiDir ("": home's .gemini).
func New(cfg Config, roots func() []string, home, geminiDir string) (*Sandbox, error) {
	if geminiDir == "" && home != "" {
		geminiDir = configfiles.GeminiDir(home)
	}
	tool := cfg.Command
	if tool == Runsc {
		tool = Docker
	}
	path, err := spawn.LookPath(tool)
	if err != nil {
		return nil, fmt.Errorf("%w: finding the %s sandbox's command: %w", ErrSetup, cfg.Command, err)
	}
	s := &Sandbox{cfg: cfg, roots: roots, home: home, geminiDir: geminiDir, tool: path}
	if err := s.checkMounts(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	s.startFiles = s.watchStartFiles()
	s.gitWatch = s.watchGitDirs()
	if cfg.Command == Bubblewrap {
		if s.seccomp, err = seccompFile(len(cfg.AllowedSockets) > 0); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSetup, err)
		}
	}
	// Off Linux (Docker Desktop) gemini-ls cannot be the supervisor in a
	// Linux container, nor can a gemini-ls that needs the host's C
	// library (staticExecutable): there each command keeps a container
	// of its own.
	switch {
	case len(cfg.Supervisor) == 0:
	case !persistentSandboxes:
		s.perCommand = "off Linux, gemini-ls cannot run inside a container"
	case cfg.Command != Bubblewrap && !staticExecutable(cfg.Supervisor[0]):
		s.perCommand = "this gemini-ls, built with cgo, needs the host's C library (CGO_ENABLED=0 builds one that does not)"
	default:
		if s.session, err = s.NewSession(cfg.Supervisor...); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSetup, err)
		}
	}
	return s, nil
}

// Of is door's sandbox (spawn.Door.Sandbox): the one a session's
// commands run in; nil when they run in none.
func Of(door *spawn.Door) *Sandbox {
	s, _ := door.Sandbox().(*Sandbox)
	return s
}

// Session is the persistent sandbox foreground commands run in, nil
// when each command is to get a bwrap or a container of its own through
// Confine (no supervisor given, or not on Linux).
func (s *Sandbox) Session() *Session {
	if s == nil || s.closed.Load() {
		return nil
	}
	return s.session
}

// Close ends the persistent sandbox, if any, once its running commands
// ended; later commands get a sandbox each (Session is nil). It moves
// aside the start-up files the last commands made (startFiles), and the
// git directories they made that run a program (gitWatch). A nil
// sandbox has nothing to close.
func (s *Sandbox) Close() error {
	if s == nil || s.closed.Swap(true) {
		return nil
	}
	var err error
	if s.session != nil {
		err = s.session.Close()
	}
	s.startFiles.close()
	s.gitWatch.close()
	return errors.Join(err, s.closeWindows())
}

// openWindow records, before a command runs, that commands may write
// the writable paths from now on (cfg.Trail), unless a window this
// sandbox holds covers them already. A command is not run unrecorded.
func (s *Sandbox) openWindow() error {
	writable, roots := s.writable(), s.roots()
	key := strings.Join(writable, "\x00") + "\x01" + strings.Join(roots, "\x00")
	s.windowsMu.Lock()
	defer s.windowsMu.Unlock()
	if s.windows[key] != nil {
		return nil
	}
	w, err := s.cfg.Trail.Open(writable, roots)
	if err != nil {
		return err
	}
	if w != nil {
		if s.windows == nil {
			s.windows = map[string]*sandboxtrail.Opened{}
		}
		s.windows[key] = w
	}
	return nil
}

// closeWindows closes the windows this sandbox holds: its commands have
// ended. A command that comes after (a turn still running in a build
// replaced) opens one again, which stays open until gemini-ls ends.
func (s *Sandbox) closeWindows() error {
	s.windowsMu.Lock()
	defer s.windowsMu.Unlock()
	var errs []error
	for key, w := range s.windows {
		errs = append(errs, w.Close())
		delete(s.windows, key)
	}
	return errors.Join(errs...)
}

// Enabled says whether commands run sandboxed.
func (s *Sandbox) Enabled() bool { return s != nil }

// InContainer says whether commands run in a container (docker, podman,
// runsc), whose programs are the image's, not the host's.
func (s *Sandbox) InContainer() bool { return s != nil && s.cfg.Command != Bubblewrap }

// None is how Describe says commands are not sandboxed.
const None = "no sandbox"

// Describe says in a few words how commands run, for /about and the
// front ends' status lines.
func (s *Sandbox) Describe() string {
	if s == nil {
		return None
	}
	network := "network off"
	if s.cfg.Network {
		network = "network on"
	}
	what := s.cfg.Command
	switch s.cfg.Command {
	case Bubblewrap:
		what = "bubblewrap"
	case Docker, Podman, Runsc:
		what = s.cfg.Command + " (" + s.cfg.Image + ")"
	}
	if s.perCommand != "" {
		what += ", a container per command: " + s.perCommand
	}
	sockets := "no host sockets"
	if len(s.cfg.AllowedSockets) > 0 {
		sockets = "host sockets " + strings.Join(s.cfg.AllowedSockets, ", ")
	}
	switch {
	case s.abstractSocketsOpen() && s.session != nil && s.sessionScopesAbstractSockets():
		sockets += " and, with the network on, every abstract socket of the host (X11, D-Bus) to background commands, hooks and MCP servers"
	case s.abstractSocketsOpen():
		sockets += " and, with the network on, every abstract socket of the host (X11, D-Bus)"
	}
	extra := ""
	if mounts := s.mountsText(); mounts != "" {
		extra = ", SANDBOX_MOUNTS " + mounts
	}
	if len(s.cfg.Ports) > 0 {
		extra += ", ports " + strings.Join(s.cfg.Ports, ", ") + " published"
	}
	if _, locked := s.execLocks(s.environ(nil)); len(locked) > 0 {
		extra += ", denied programs refused at exec: " + strings.Join(locked, ", ")
	}
	return fmt.Sprintf("%s, from %s: workspace writable, rest read-only, secrets hidden, %s, %s%s", what, s.cfg.Why, network, sockets, extra)
}

// mountsText says where SANDBOX_MOUNTS' paths are, and how: "/data at
// /in/data read-only, /cache writable".
func (s *Sandbox) mountsText() string {
	var out []string
	for _, m := range s.cfg.Mounts {
		text := m.From
		if m.To != m.From {
			text += " at " + m.To
		}
		if m.writable() {
			text += " writable"
		} else {
			text += " read-only"
		}
		out = append(out, text)
	}
	return strings.Join(out, ", ")
}

// Note is what the model is told after a command sandboxed by Confine
// failed, so that it does not retry blindly what the sandbox refuses
// (Session.Note: one that ran in the session's sandbox).
func (s *Sandbox) Note() string {
	return s.note(false)
}

// note is Note of a command run in the session's sandbox (inSession),
// or by Confine.
func (s *Sandbox) note(inSession bool) string {
	if s == nil {
		return ""
	}
	network := "the network is off"
	if s.cfg.Network {
		network = "the network is on"
	}
	sockets := "no Unix socket can be opened (so the Docker daemon, D-Bus and the SSH and GPG agents are unreachable)"
	if len(s.cfg.AllowedSockets) > 0 {
		sockets = "of the host's Unix sockets only " + strings.Join(s.cfg.AllowedSockets, ", ") + " can be reached"
	}
	if s.abstractSocketsOpen() && !(inSession && s.sessionScopesAbstractSockets()) {
		sockets = "of the host's Unix sockets with a path only " + strings.Join(s.cfg.AllowedSockets, ", ") + " can be reached, but, the network being on, every abstract Unix socket of the host (X11's, D-Bus's) can"
	}
	mounted := ""
	if m := s.mountsText(); m != "" {
		mounted = " Mounted for the sandbox: " + m + "."
	}
	return "The command ran in a sandbox: only the workspace" + allowedText(s.cfg.AllowedPaths) +
		" and a private /tmp are writable, the rest of the file system is read-only, the project's settings, the files through which git runs programs (.git/config, .git/hooks, .git/commondir and their like) and the editors' and tools' project configuration in a workspace root (.vscode, .idea, .zed, .helix, .husky, .nvim.lua, .exrc, .dir-locals.el, .envrc, .geminiignore) are read-only, a .env made where gemini-ls reads one at start-up is renamed .env.made-in-sandbox, the user's credentials (~/.ssh, ~/.gemini credentials, cloud credentials, the project's .env files, and environment variables that may hold secrets such as API keys) are hidden, " +
		sockets + ", and " + network + "." + mounted + s.linkedGitNote() + s.linkedWorktreeNote() + s.lockedNote() + " A write, read or connection it refuses fails as above; do not retry it, ask the user."
}

// lockedNote tells the model which programs the sandbox refuses to
// start (execLocks), so that the "Permission denied" of one reads as
// the user's policy, not a fault to work around; "" when none is.
func (s *Sandbox) lockedNote() string {
	_, locked := s.execLocks(s.environ(nil))
	if len(locked) == 0 {
		return ""
	}
	return " The programs the user's policy denies (" + strings.Join(locked, ", ") + ") cannot start in the sandbox: a \"Permission denied\" on running one is that refusal, and running it another way is not allowed either."
}

// abstractSocketsOpen says the host's abstract Unix sockets are
// reachable from a command Confine sandboxes: under bubblewrap with the
// network on, the host's network namespace is shared (--share-net), and
// abstract sockets live in it, not in the file system; a named socket
// lets socket(AF_UNIX) through the filter, which nothing then narrows to
// the named one. Landlock's scoping of abstract sockets (ABI 6) would,
// but a bwrap per command is started through /bin/sh, where nothing can
// apply it.
func (s *Sandbox) abstractSocketsOpen() bool {
	return s.cfg.Command == Bubblewrap && s.cfg.Network && len(s.cfg.AllowedSockets) > 0
}

// sessionScopesAbstractSockets says a session's supervisor confines its
// commands to the abstract sockets made in the sandbox
// (abstractSocketScope): under bubblewrap, on a kernel with Landlock's
// scoping.
func (s *Sandbox) sessionScopesAbstractSockets() bool {
	return s.cfg.Command == Bubblewrap && landlockABI() >= landlockScopeABI
}

func allowedText(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	return " (and " + strings.Join(paths, ", ") + ")"
}

// Confine makes cmd, made by the door (package spawn) and not started,
// run inside the sandbox: its Path and Args become the backend's, with
// cmd's own command inside, in cmd.Dir; its Env, without what may hold a
// secret, is kept (bubblewrap) or, where it differs from gemini-ls's own,
// passed on (docker). It is spawn.Confiner's: the door calls it for the
// programs whose reason runs in the sandbox, never their callers.
// A nil sandbox leaves cmd alone.
func (s *Sandbox) Confine(cmd *spawn.Cmd) error {
	if s == nil {
		return nil
	}
	if cmd.Process != nil {
		return fmt.Errorf("sandboxing %s: already started", cmd.Path)
	}
	s.startFiles.check()
	s.gitWatch.check()
	if err := s.openWindow(); err != nil {
		return fmt.Errorf("sandboxing %s: %w", cmd.Path, err)
	}
	dir := cmd.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("sandboxing %s: %w", cmd.Path, err)
		}
		dir = wd
	}
	cmd.Env = s.environ(cmd.Env)
	// Under bubblewrap the program is the one the door found: the
	// files are the host's, and Go's lookup refuses a program found
	// through a relative PATH entry ("."), which bwrap's execvp would
	// take from the workspace. A container's files are not the host's:
	// there it goes by its name, found on the image's PATH.
	inner := append([]string{cmd.Path}, cmd.Args[1:]...)
	if s.cfg.Command != Bubblewrap && len(cmd.Args) > 0 {
		inner[0] = cmd.Args[0]
	}
	if s.cfg.Command != Bubblewrap {
		args, err := s.containerArgs(dir, cmd.Env, nil, inner)
		if err != nil {
			return fmt.Errorf("sandboxing %s: %w", cmd.Path, err)
		}
		cmd.Path = s.tool
		cmd.Args = append([]string{filepath.Base(s.tool)}, args...)
		// The program is the image's: that the host has none (bash on
		// Windows) is no error.
		cmd.Err = nil
		return nil
	}
	args, err := s.bwrapArgs(dir, cmd.Env, inner)
	if err != nil {
		return fmt.Errorf("sandboxing %s: %w", cmd.Path, err)
	}
	// bwrap reads its seccomp filter from a descriptor, to its end. The
	// sandbox's memory file is passed on, and /bin/sh opens it afresh
	// (its own offset, at 0) over the same number before it becomes
	// bwrap: no descriptor is left for gemini-ls to close after the
	// start, which Confine's callers (an MCP SDK's transport among them)
	// could not do.
	fd := strconv.Itoa(3 + len(cmd.ExtraFiles))
	cmd.ExtraFiles = append(cmd.ExtraFiles, s.seccomp)
	trampoline := `exec "$0" --seccomp ` + fd + ` "$@" ` + fd + `</proc/self/fd/` + fd
	cmd.Path = "/bin/sh"
	cmd.Args = append([]string{"sh", "-c", trampoline, s.tool}, args...)
	return nil
}

// environ is env (the process's when nil) without what may hold a
// secret: inside the sandbox redaction is on whatever the settings say,
// since the sandbox promises that the user's credentials are hidden.
func (s *Sandbox) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	policy := s.cfg.Redaction
	policy.Enabled = true
	// SANDBOX_ENV's, which the user set for the sandbox, whatever their
	// names.
	return append(envredact.Sanitize(env, policy), s.cfg.Env...)
}

// writable are the paths commands may write: the roots, the own git
// directories of those that are linked worktrees (linkedworktree.go),
// the allowed paths and the writable SANDBOX_MOUNTS (each at its own
// path, checkMounts), absolute.
func (s *Sandbox) writable() []string {
	var out []string
	paths := slices.Concat(s.roots(), s.linkedWorktreeGitDirs(), s.cfg.AllowedPaths)
	for _, m := range s.cfg.Mounts {
		if m.writable() {
			paths = append(paths, m.From)
		}
	}
	for _, p := range paths {
		if p = filepath.Clean(expandHome(s.home, p)); filepath.IsAbs(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// secretPaths are the user's credentials, relative to $HOME, and
// geminiSecrets relative to the Gemini directory, hidden from every
// command: a directory becomes an empty read-only one, a file an empty
// one.
var (
	secretPaths = []string{
		".ssh", ".gnupg", ".aws", ".azure", ".kube", ".config/gcloud", ".config/gh",
		".docker/config.json", ".netrc", ".git-credentials", ".config/git/credentials", ".npmrc", ".pypirc", ".env",
	}
	// gemini-credentials.json is Gemini CLI's file keychain (the API key,
	// OAuth and MCP tokens, under a key anyone can derive) and
	// integrity.key its extension integrity key where no keychain is.
	geminiSecrets = []string{
		"oauth_creds.json", "google_accounts.json", "mcp-oauth-tokens.json", "a2a-oauth-tokens.json",
		"gemini-credentials.json", "integrity.key", ".env",
	}
)

// mount is one bwrap mount, ordered by destination so that deeper ones
// go over shallower ones.
type mount struct {
	args []string
	dest string
}

// volume is m as docker's --volume, for the bind mounts; docker orders
// them by destination itself. A mask's empty file is the engine's
// /dev/null, also where the host's is not (Windows' NUL).
func (m mount) volume() (string, bool) {
	src := m.args[1]
	if src == os.DevNull {
		src = "/dev/null"
	}
	switch m.args[0] {
	case "--bind":
		return src + ":" + containerPath(runtime.GOOS, m.args[2]), true
	case "--ro-bind":
		return src + ":" + containerPath(runtime.GOOS, m.args[2]) + ":ro", true
	}
	return "", false
}

// containerPath is where a container sees the host's path p: at p,
// except on Windows, where Docker Desktop mounts C:\x\y at /c/x/y (0.61's
// getContainerPath).
func containerPath(goos, p string) string {
	if goos != "windows" {
		return p
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if workspace.HasDrive(p) && len(p) >= 3 && p[2] == '/' {
		return "/" + strings.ToLower(p[:1]) + p[2:]
	}
	return p
}

// bwrapArgs are bwrap's arguments to run inner in dir with env.
func (s *Sandbox) bwrapArgs(dir string, env, inner []string) ([]string, error) {
	if err := s.unchanged(); err != nil {
		return nil, err
	}
	// No capability, even where gemini-ls runs as root (a container, CI):
	// bwrap keeps them all for uid 0, and with CAP_SYS_ADMIN a command
	// could unmount the read-only governing files and write them.
	args := []string{"--unshare-all", "--new-session", "--die-with-parent", "--cap-drop", "ALL"}
	if s.cfg.Network {
		args = append(args, "--share-net")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	// Masks first: a mount of the same length later goes over them.
	mounts := append([]mount{{[]string{"--tmpfs", "/tmp"}, "/tmp"}}, runtimeMounts(env)...)
	if s.home != "" {
		// Read-only, even where it lies under /tmp (tests' homes).
		home := resolveExisting(s.home)
		mounts = append(mounts, mount{[]string{"--ro-bind-try", home, home}, home})
	}
	for _, dir := range s.linkedWorktreeGitDirs() {
		// The repository a linked worktree's git directory belongs to,
		// read-only, even where it lies under /tmp: without it git finds
		// no repository in the worktree.
		common := resolveExisting(filepath.Dir(filepath.Dir(dir)))
		mounts = append(mounts, mount{[]string{"--ro-bind-try", common, common}, common})
	}
	for _, m := range s.cfg.Mounts {
		if !m.writable() {
			to := resolveExisting(m.To)
			mounts = append(mounts, mount{[]string{"--ro-bind", m.From, to}, to})
		}
	}
	writable, err := s.writableChecked()
	if err != nil {
		return nil, err
	}
	// Each writable path is mounted at its real path only: bwrap's mount
	// follows a link in its destination, so a bind at a root's link path
	// lands on the real directory, and ordered by the link's length it
	// could come after, and cover, the read-only mounts inside. The link
	// stays visible through the read-only view of its parent.
	var links [][2]string // a link's path, and where it leads
	for _, p := range writable {
		real := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = r
		}
		if real != p {
			links = append(links, [2]string{p, real})
		}
		if !slices.ContainsFunc(mounts, func(m mount) bool { return m.dest == real && m.args[0] == "--bind-try" }) {
			mounts = append(mounts, mount{[]string{"--bind-try", real, real}, real})
		}
	}
	governing, err := s.governing()
	if err != nil {
		return nil, err
	}
	mounts = append(mounts, s.hidden()...)
	mounts = append(mounts, governing...)
	mounts = append(mounts, s.masked()...)
	mounts = append(mounts, s.socketMounts()...)
	mounts = append(mounts, linksMasked(mounts, links)...)
	locks, _ := s.execLocks(env)
	mounts = append(mounts, locks...)
	// Every destination is a resolved path, so this is the order in which
	// bwrap mounts over them: deeper ones over shallower ones.
	slices.SortStableFunc(mounts, func(a, b mount) int { return len(a.dest) - len(b.dest) })
	for _, m := range mounts {
		args = append(args, m.args...)
	}
	args = append(args, "--setenv", "SANDBOX", "gemini-ls-bwrap", "--chdir", dir, "--")
	return append(args, inner...), nil
}

// linksMasked makes again, as links, the writable paths' links that lie
// where the sandbox has an empty tmpfs (/tmp, the runtime directories),
// so that a command still runs at the path the editor named (a root
// under /tmp reached through a link there). The link leads to the real
// path, where the writable mount and those that protect it are.
func linksMasked(mounts []mount, links [][2]string) []mount {
	var out []mount
	for _, l := range links {
		parent := resolveExisting(filepath.Dir(l[0]))
		var deepest *mount
		for i, m := range mounts {
			if workspace.Within(m.dest, parent) && (deepest == nil || len(m.dest) > len(deepest.dest)) {
				deepest = &mounts[i]
			}
		}
		// A tmpfs with no --remount-ro: the hidden directories' are
		// read-only, and nothing is linked from there.
		if deepest != nil && deepest.args[0] == "--tmpfs" && len(deepest.args) == 2 {
			p := filepath.Join(parent, filepath.Base(l[0]))
			out = append(out, mount{[]string{"--symlink", l[1], p}, p})
		}
	}
	return out
}

// hidden are the mounts that hide the secrets that exist.
func (s *Sandbox) hidden() []mount {
	if s.home == "" {
		return nil
	}
	var paths []string
	for _, rel := range secretPaths {
		paths = append(paths, filepath.Join(s.home, rel))
	}
	for _, rel := range geminiSecrets {
		paths = append(paths, filepath.Join(s.geminiDir, rel))
	}
	var out []mount
	for _, p := range paths {
		// At its real path, where bwrap's mount lands and the order of
		// the mounts is reckoned.
		p, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			continue
		case info.IsDir():
			out = append(out, mount{[]string{"--tmpfs", p, "--remount-ro", p}, p})
		default:
			out = append(out, mount{[]string{"--ro-bind", os.DevNull, p}, p})
		}
	}
	return out
}

// containerArgs are docker's (or podman's) arguments to run inner in dir:
// the writable paths mounted at their own paths, with the governing paths
// and .env files over them as under bubblewrap, the home directory
// absent, the network off unless allowed, as the user's uid; volumes are
// more --volume.
func (s *Sandbox) containerArgs(dir string, env, volumes, inner []string) ([]string, error) {
	if err := s.unchanged(); err != nil {
		return nil, err
	}
	args := []string{"run", "--rm", "-i", "--init", "--workdir", containerPath(runtime.GOOS, dir)}
	// Windows has no uid (os.Getuid is -1); Docker Desktop's mounts of its
	// folders let the image's user write them.
	if runtime.GOOS != "windows" {
		args = append(args, "--user", strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()))
	}
	if s.cfg.Rootless {
		args = append(args, "--userns=keep-id")
	}
	if s.cfg.Command == Runsc {
		args = append(args, "--runtime=runsc")
	}
	if !s.cfg.Network {
		args = append(args, "--network", "none")
	}
	// A SANDBOX_MOUNTS entry keeps its options (SELinux's z, say).
	opts := map[string]string{}
	for _, m := range s.cfg.Mounts {
		if m.writable() {
			opts[m.From] = ":" + m.Opts
		} else {
			args = append(args, "--volume", m.From+":"+containerPath(runtime.GOOS, m.To)+":"+m.Opts)
		}
	}
	writable, err := s.writableChecked()
	if err != nil {
		return nil, err
	}
	for _, p := range writable {
		// As bwrap's --bind-try: podman refuses a missing source, and
		// docker would make it, root's.
		if _, err := os.Stat(p); err != nil {
			continue
		}
		args = append(args, "--volume", p+":"+containerPath(runtime.GOOS, p)+opts[p])
	}
	for _, p := range s.cfg.Ports {
		args = append(args, "--publish", p+":"+p)
	}
	governing, err := s.governing()
	if err != nil {
		return nil, err
	}
	masked := s.masked()
	protecting := slices.Concat(governing, masked)
	// A writable path reached through a link is mounted at the link's
	// path, where the command works, but the governing files and .env
	// files are at their real paths: they go at the link's too.
	for _, p := range writable {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || real == p {
			continue
		}
		for _, m := range slices.Concat(governing, masked) {
			if rel, err := filepath.Rel(real, m.dest); err == nil && workspace.Within(real, m.dest) {
				at := filepath.Join(p, rel)
				protecting = append(protecting, mount{[]string{m.args[0], m.args[1], at}, at})
			}
		}
	}
	for _, m := range slices.Concat(protecting, s.socketMounts()) {
		if v, ok := m.volume(); ok {
			args = append(args, "--volume", v)
		}
	}
	for _, v := range volumes {
		args = append(args, "--volume", v)
	}
	args = append(args, "--env", "SANDBOX=gemini-ls-"+s.cfg.Command)
	for _, kv := range addedEnv(env) {
		args = append(args, "--env", kv)
	}
	args = append(args, s.cfg.Flags...)
	args = append(args, s.cfg.Image)
	return append(args, inner...), nil
}

// addedEnv are the entries of env that this process's own environment
// does not hold: what the caller set for the command. The container
// gets those alone, not the user's whole environment.
func addedEnv(env []string) []string {
	own := os.Environ()
	var out []string
	for _, kv := range env {
		if !slices.Contains(own, kv) {
			out = append(out, kv)
		}
	}
	return out
}
