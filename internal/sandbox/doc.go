// Package sandbox runs what gemini-ls starts on the model's behalf
// (run_shell_command in the foreground and the background, a custom
// command's !{…}, discovered tools, and, when asked, hooks and stdio MCP
// servers) inside a sandbox, while gemini-ls itself, a language server
// living in the user's editor, stays outside.
//
// Its job is twofold. Resolve decides, from Gemini CLI 0.61's switches and
// with its precedence and errors (sandboxConfig.ts: -s/--sandbox over
// tools.sandbox, GEMINI_SANDBOX over both, SANDBOX set meaning "already
// inside one"), whether a session is sandboxed and by what. A Sandbox then
// rewrites each command the door (package spawn) starts for a reason that
// runs sandboxed to run inside it (Confine), so every caller shares one
// policy:
//
//   - the workspace roots and tools.sandboxAllowedPaths are writable; one
//     that lies in another must lead back into those in no other
//     (nested.go), or no command runs: a command could have replaced it
//     with a link out, which the next sandbox's mount would follow;
//   - a writable path reached through a link (a root the editor opened
//     as ~/work, a link to /srv/work) is mounted at its real path, as
//     is all that protects it below, every mount ordered by the path it
//     lands on (bwrap's mount follows a link): the link still leads
//     there, and where the sandbox hides its directory (/tmp) bwrap
//     makes it again, as the supervisor does in each command's /tmp. A
//     container has no link: its volume is at the link's path, and the
//     mounts that protect the real path are made there too;
//   - the rest of / is read-only, $HOME included;
//   - in each root, the editors' and tools' project configuration that
//     is there (protected's names: .vscode, .zed, .helix, .nvim.lua,
//     .dir-locals.el, .envrc, .husky, .geminiignore…) is read-only, not
//     made when missing; one a command makes there is renamed aside
//     (NAME+MadeSuffix), when the git directories are (below), the user
//     and the model told, unless the editor has it open or the agent's
//     edit tools wrote it with the user's approval (projectconfig.go):
//     the tools read it, and run what it names, in a folder the user
//     already trusts. Below a root none is watched: there the tools ask
//     before they obey one, as in a folder just cloned;
//   - Config.UserConfig (git's, Neovim's and fish's configuration where
//     XDG_CONFIG_HOME puts it), where it lies in the writable paths, is
//     read-only, made empty first when missing;
//   - in each root, .gemini and every file through which git runs a
//     program (config, hooks/, commondir, config.worktree,
//     info/attributes, the linked worktrees' and the submodules' own,
//     the included configuration files and core.hooksPath in the
//     writable paths: git.go) are read-only: they configure what runs
//     outside the sandbox later. As 0.61's ensureGovernanceFilesExist,
//     those missing are made first (empty, or a commondir naming its own
//     directory), so none can be planted; .git, and every directory
//     between a writable path and a file kept read-only (.git/info,
//     .git/worktrees/wt, .git/modules/lib/a), is a writable mount point,
//     so it cannot be moved aside, with the mounts inside, and replaced;
//     a .git linking out of the
//     writable paths is followed by nothing (nothing made, nothing
//     mounted through it), and the note tells the model git cannot
//     write there;
//   - a root that is a linked git worktree (an agent's, under
//     .gemini/worktrees) has its own git directory in the main
//     repository's (.git/worktrees/<name>: its index, HEAD, logs)
//     writable too, once it names the root back (its gitdir), with its
//     commondir, gitdir and config.worktree read-only; the main
//     repository's objects, refs, configuration and hooks, the main
//     tree and the other worktrees stay read-only, so git there reads,
//     diffs and stages nothing new (linkedworktree.go says why objects
//     and a branch cannot be made writable alone);
//   - the git directories of the repositories in subdirectories that
//     were there at the sandbox's first look (gitWatch's first walk,
//     breadth first and however deep, bounded in directories read, and
//     those the roots' indexes then linked to as submodules, however
//     deep), the user's, are kept as a root's: the same files
//     read-only, their .git a mount point or, a file, read-only
//     (gitProtector.userRepo);
//   - a git directory a command made in the writable paths (git init
//     sub, a submodule's under .git/modules, a worktree's) whose hooks
//     or configuration run a program is renamed aside, with the .git
//     file leading to it, before the next command, when a command ends,
//     when the sandbox closes and, on Linux, as soon as the kernel tells
//     of an entry made while commands run (gitWatch.follow): git outside
//     would enter it (git status enters the submodules the index
//     records, and the editor runs it every few seconds); one that
//     runs nothing is read again at each check (maxHarmless of them),
//     since a program written into it later (an append to its config)
//     makes no entry the kernel tells of. None is missed for its depth:
//     a directory made is read whole, and every check reads again the
//     index of the roots' repositories, the user's and the harmless
//     ones when it changed, each gitlink (a submodule git status enters)
//     leading to the git directory at its path, however deep, seen made
//     or not (past the first walk's bound, after the kernel dropped
//     what it had to tell); one made where the watch does not see and
//     in no index (git status in a root does not enter it, git run
//     inside it would) is found only by a walk;
//   - the .env and .env.* files in the writable paths, three levels deep
//     (0.61's mask), cannot be read; a .env that gemini-ls's next start
//     would read (Config.StartupFiles), made by a command, is renamed
//     aside before the next command and when the sandbox closes
//     (startfiles.go);
//   - before its first command, and before the first with other writable
//     paths, the sandbox records on the trail (Config.Trail,
//     internal/sandboxtrail) that its commands may write there from now
//     on, until Close: what they change below a root (a .gemini, a .env
//     the startFiles do not watch) is asked about before a later session
//     there obeys it. A command whose window cannot be recorded does not
//     run. Where the trail or the start-up files' records lie in a
//     writable path (a root that is the home directory), they are
//     read-only;
//   - the environment holds no secret: security.environmentVariableRedaction
//     (package envredact) is always on inside;
//   - the user's secrets are hidden: ~/.ssh, ~/.gnupg, ~/.aws,
//     ~/.config/gcloud, ~/.gemini's credential files (its file keychain,
//     gemini-credentials.json, and integrity.key among them),
//     ~/.docker/config.json, ~/.netrc, git's credential stores and their
//     like (secretPaths, geminiSecrets);
//   - /tmp is private to the command;
//   - under bubblewrap, the programs the policy denies outright
//     (Config.DeniedPrograms: a deny of run_shell_command(rm)) do not
//     start, however a line spells them: /dev/null is bound read-only
//     over each file such a program is (execLocks: its name on the
//     command's PATH and in /bin, /usr/bin, /usr/local/bin, /sbin,
//     /usr/sbin, links followed, and its hard links there), so its exec
//     fails with EACCES and a read of it (a copy, the dynamic loader
//     handed it) yields nothing. The shells every command runs in (sh,
//     bash) are never locked. Not covered: the program from elsewhere
//     (a copy made outside, or fetched), another program doing its work
//     (an interpreter's own unlink, busybox's applets), a directory only
//     a line's own PATH names, a file the host replaces while a
//     session's sandbox runs, and containers, whose programs are the
//     image's (docs/security.md). Landlock's execute right would not
//     do better: the loader maps a file without the right (ld.so
//     /usr/bin/rm runs rm under a ruleset that refuses it), a ruleset
//     only grants (refusing one file is granting its siblings one by
//     one), and a bwrap per command has nowhere to apply it;
//   - no Unix socket of the host is reachable: a seccomp filter
//     (seccomp.go) refuses socket(AF_UNIX) and io_uring, and /run,
//     /var/run and $XDG_RUNTIME_DIR are empty tmpfs; the sockets
//     tools.sandboxAllowedSockets names are the exception (AF_UNIX is
//     then allowed, and those sockets are mounted back), which Describe
//     and Note say; with the network on too, the host's network
//     namespace is shared, and with it every abstract socket of the
//     host (X11's @/tmp/.X11-unix/X0, D-Bus's), which Describe and Note
//     say plainly (abstractSocketsOpen), except to the session's
//     commands on a kernel with Landlock's scoping (ABI 6), each of
//     which its supervisor confines to the abstract sockets made in its
//     own domain (abstractSocketScope, Session.Note);
//   - the network is off unless tools.sandboxNetworkAccess, or
//     tools.sandbox's networkAccess, turns it on;
//   - the command has no capability, even where gemini-ls runs as root
//     (bwrap would keep them all for uid 0, and CAP_SYS_ADMIN unmounts
//     what is read-only);
//   - the command gets a pid namespace of its own and dies with gemini-ls.
//
// Invariants: a session asked to be sandboxed never runs a command
// unsandboxed; a sandbox that cannot be set up (its tool missing, user
// namespaces refused, no daemon answering) is an error at start-up naming
// the fix, never a silent fallback. A nil *Sandbox is "not sandboxed"
// and every method answers accordingly.
//
// On Linux, without a docker or podman daemon that answers, the sandbox
// is bubblewrap (bwrap), not docker (under docker and podman the home is
// absent, only the added environment is passed, the governing paths
// and .env files are mounted as under bubblewrap, and of the host's
// sockets only the named ones are mounted; the runtime's own seccomp
// profile applies): it needs no daemon and no root (it
// runs unprivileged through user namespaces), it is packaged in Debian,
// Ubuntu and Fedora, it starts a command in a few milliseconds, and
// Ubuntu's AppArmor restriction on unprivileged user namespaces allows it
// through the bwrap profile Ubuntu ships. It is also what Gemini CLI 0.61
// itself uses for security.toolSandboxing on Linux (LinuxSandboxManager).
// Landlock and seccomp from Go would need a re-exec of gemini-ls as the
// sandbox's first process and could not hide paths or give a private
// /tmp; bubblewrap does both with mount namespaces, and loads the seccomp
// filter gemini-ls builds (--seccomp) through a /bin/sh trampoline that
// opens it afresh for each command. Landlock's scoping of abstract
// sockets (ABI 6) is what the new network namespace and the filter give,
// except with the network on and a socket named, where neither holds:
// the session's supervisor applies it on the thread that starts each
// command, so each command is a domain of its own; a bwrap per command
// starts through /bin/sh, where nothing can apply it, so for those the
// sandbox says instead that the host's abstract sockets are reachable.
// A rule on connect() to a socket's path is not in the kernels it runs
// on (ABI 7 on Linux 6.18).
//
// Where 0.61 is silent or differs, this package does what a careful
// security engineer expects: the network is off by default for every
// backend (0.61 leaves docker's on unless told otherwise), environment
// redaction is on in the sandbox whatever the settings say, and a `true`
// on Linux with docker installed but no daemon answering uses bubblewrap
// rather than failing on the first command.
//
// # A sandbox paid once per session
//
// Session (session_linux.go) is the other way to run a command: one
// bwrap, or one docker or podman container, per session, started at its
// first command, whose supervisor (supervisor_linux.go) runs each
// command; the sandbox's start is paid once, not per command. A Sandbox
// given a supervisor (Config.Supervisor: gemini-ls passes itself) holds
// one on Linux, Session; the foreground shell commands (run_shell_command
// and a custom command's !{…}, tools.LocalRunner) run in it, reported as
// a sandbox of their own would be (128 plus a signal as the exit code,
// as bwrap and docker's --init answer), and the agent's build closes it
// (Sandbox.Close, from setup's Built.Close), after which its commands get
// a sandbox each. Confine, a sandbox per command, stays the path of
// background commands (whose kill by id would have to outlive the call),
// hooks, discovered tools, stdio MCP servers (whose SDK takes an
// exec.Cmd), and the only one off Linux (below).
//
// What is fixed at the sandbox's start is the backend's arguments but
// the command's: under bwrap the namespaces, the network, the writable
// roots and allowed paths, the hidden secrets, the governing files (made
// first, then mounted read-only), the masked .env files, the emptied
// runtime directories, the named sockets and the seccomp filter; for a
// container the volumes (the same paths), its environment (SANDBOX), the
// network, the runtime, SANDBOX_FLAGS and the image. Before each command
// Run computes them as Confine would now (making a governing file that is
// missing) and compares them with those the running sandbox was started
// with: when they differ (roots or settings changed, a .env file or a
// repository appeared) the command runs in a new sandbox, and the old
// one, running no new command, ends with its last. No command runs under
// a stale policy.
//
// Under bwrap each command keeps what a bwrap of its own gave it. The
// supervisor starts it from a thread of its own, thrown away after, in a
// new mount namespace where /tmp is a new tmpfs (with what bwrap mounted
// under /tmp, a root or a home there, bound back with its read-only
// mounts) and /dev/shm another, without capabilities (bounding, ambient and the rest emptied:
// the supervisor alone holds CAP_SYS_ADMIN and CAP_SETPCAP, in the
// sandbox's user namespace, to do this; a command cannot take them,
// ptrace being refused and another process's memory needing its
// capabilities), in a process group of its own, in its directory, with
// its environment (redacted as Confine's) and stdin empty. When it ends, or
// when its context does, its group is killed, and, when no other command
// runs, every process of the sandbox but the supervisor, as the end of a
// command's pid namespace would: what a command started in the
// background or under setsid does not reach the next.
//
// What differs from a bwrap per command: the pid namespace is the
// session's, so a command sees the others running beside it (a
// background one) and, being the same user, may signal them; a process
// that left its command's group lives on while another command runs,
// and is killed when none does; Exit.Pid is a pid inside the sandbox.
//
// The supervisor is gemini-ls itself, through a hidden subcommand
// (SupervisorArg): the binary is at hand, of the same version as its
// host, and its start is paid once per sandbox. bwrap is passed it open,
// as fd 3, and runs it as /proc/self/fd/3, since it may lie where the
// sandbox hides (under /tmp); it marks every inherited descriptor past
// stderr close-on-exec. It speaks on two pipes, in frames of a 4-byte
// length and a sealed JSON message (run, kill; started, out, exit). Under bwrap
// they are its descriptors 5 and 6, not its stdin and stdout: bwrap's
// pid 1 keeps its stdio (it is given /dev/null) and closes every other
// descriptor, and a command, the same user without capabilities, can
// open pid 1's descriptors through /proc/1/fd, but not the supervisor's,
// which holds capabilities. In a container they are the container's
// stdin and stdout, which docker forwards: there a command can open the
// init's (/proc/1/fd/0 and 1), or keep the supervisor's stdin open. So
// every frame is sealed (AES-256-GCM, numbered in each direction) with a
// key gemini-ls makes for each sandbox and writes first, which the
// supervisor reads before any command runs and keeps where no command
// can read it (it is not dumpable): a frame a command writes does not
// open, and ends the sandbox, its commands' calls saying why, so that a
// command can neither run another nor forge another's output and end;
// one it reads tells it nothing. No Unix socket, which the
// seccomp filter refuses, and no descriptor passed: it makes each
// command's pipes and sends their bytes back in frames. It refuses to run
// unless it is the first process of a pid namespace of its own, started
// by the namespace's init and alone with it (pid 2 under bwrap; docker
// does not promise the number), since it kills every process it may
// signal.
//
// When the supervisor or its sandbox dies (killed, or killed by a
// command), the commands in flight end with an error and the next command
// starts a new sandbox; a command that could not even be written to it
// never ran and runs once in a new one. The supervisor ends at the end
// of its frames (Close, or gemini-ls gone), killing what still runs, and
// bwrap dies with gemini-ls (--die-with-parent). A sandbox retired and
// idle that has not ended within closeWait (5 s) is killed: bwrap's
// process, whose sandbox dies with it, or the container, by the
// runtime's kill of its name; so a command keeping a container's stdin
// open does not outlive the session.
//
// # Docker and podman
//
// A container's session is `docker run -i --rm --init` (or podman's) of
// the policy a container per command gets, with --workdir / and gemini-ls's
// executable mounted read-only at /gemini-ls-sandbox-supervisor, its
// command that path, SupervisorArg and --container. gemini-ls can be the
// supervisor there because on Linux it is a static binary (CGO_ENABLED=0)
// of the host's architecture, which docker runs by default. Off Linux
// (Docker Desktop on macOS or Windows) it is not a Linux program, and a
// cgo build (go install where a C compiler is) needs the host's loader
// and C library, which an image may lack (New reads the executable's
// program headers: staticExecutable): there each command keeps a
// container of its own, through Confine, as before. In a container a
// command's program goes by the name it was given, never the host's path
// to it: the supervisor finds it on the PATH of its environment inside
// (skipping a relative entry), as docker would (an image's bash may be
// /bin/bash alone). Under bubblewrap, whose files are the host's, it is
// the program exec.Command found, which Go refuses through a relative
// PATH entry, where bwrap's execvp would take one from the workspace.
// The container ends with its supervisor, at its stdin's end: Close
// closes the pipe, and so does gemini-ls's end, and docker's client,
// whose stdin it is, then closes the container's (-i); the init (tini or
// catatonit) ends with the supervisor and --rm removes the container.
// It is docker's to end, not a --die-with-parent; Close, when no command
// runs, waits for it to be gone, and kills it (docker kill, by the
// --name it was started with) when it is not within closeWait. A
// container whose stdin a command holds open outlives a gemini-ls that
// died without its Close. (Most tests run a fake docker that turns the run into bwrap,
// sandboxtest.FakeDocker; a few run a real podman in an image of static
// busybox and bash, sandboxtest.Podman, and one a rootless podman,
// sandboxtest.RootlessPodman.)
//
// A rootless podman (its `info` says so, Config.Rootless), under its
// name or as docker (podman-docker), makes the user the container's root
// and --user's uid one of the user's subordinate ids, which may not write
// the workspace: its containers also get --userns=keep-id, which maps the
// user to itself.
//
// In a container the supervisor holds no capability but what the
// container's user has (--user is gemini-ls's uid: none, or docker's
// default set when gemini-ls runs as root), so a command has exactly what
// a container of its own gave it, and the supervisor cannot give it a
// mount namespace (unshare needs CAP_SYS_ADMIN, and docker's seccomp
// profile refuses user namespaces). What differs from a container per
// command, besides the shared pid namespace as under bwrap:
//
//   - /tmp, /var/tmp and /dev/shm, the places any image lets its user
//     write, are the container's, not the command's: the supervisor notes
//     what they hold at its start (the image's files, the mount points
//     docker made for volumes there) and, when no command runs, as it
//     kills the strays, removes everything else, making a directory
//     writable to empty it and never entering a mount (a workspace root
//     under /tmp), before the next command starts. So a command does not
//     see what an earlier one left there; two commands running side by
//     side share them, a file of the image there keeps a change a command
//     made, and what the command's user cannot remove stays;
//   - elsewhere, what a command writes outside the volumes where the
//     image lets its user write (all of it, for root) stays for the next
//     commands, where each container started from the image;
//   - a process that became another user (a setuid program of the image)
//     is out of the supervisor's reach, unless gemini-ls runs as root,
//     and may outlive its command, which a container's end would have
//     killed;
//   - a command's environment is the container's (the image's, SANDBOX)
//     with what its caller added, as --env gives it, sent with the
//     command rather than fixed at the container's start.
package sandbox
