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
// rewrites each exec.Cmd to run inside it (Wrap), so every caller shares
// one policy:
//
//   - the workspace roots and tools.sandboxAllowedPaths are writable;
//   - the rest of / is read-only, $HOME included;
//   - in each root, .gemini and every file through which git runs a
//     program (config, hooks/, commondir, config.worktree,
//     info/attributes, the linked worktrees' and the submodules' own,
//     the included configuration files and core.hooksPath in the
//     writable paths: git.go) are read-only: they configure what runs
//     outside the sandbox later. As 0.61's ensureGovernanceFilesExist,
//     those missing are made first (empty, or a commondir naming its own
//     directory), so none can be planted; .git is a mount point, so it
//     cannot be moved aside and replaced; a .git linking out of the
//     writable paths is followed by nothing (nothing made, nothing
//     mounted through it), and the note tells the model git cannot
//     write there;
//   - the .env and .env.* files in the writable paths, three levels deep
//     (0.61's mask), cannot be read;
//   - the environment holds no secret: security.environmentVariableRedaction
//     (package envredact) is always on inside;
//   - the user's secrets are hidden: ~/.ssh, ~/.gnupg, ~/.aws,
//     ~/.config/gcloud, ~/.gemini's credential files, ~/.docker/config.json,
//     ~/.netrc and their like (secretPaths);
//   - /tmp is private to the command;
//   - no Unix socket of the host is reachable: a seccomp filter
//     (seccomp.go) refuses socket(AF_UNIX) and io_uring, and /run,
//     /var/run and $XDG_RUNTIME_DIR are empty tmpfs; the sockets
//     tools.sandboxAllowedSockets names are the exception (AF_UNIX is
//     then allowed, and those sockets are mounted back), which Describe
//     and Note say;
//   - the network is off unless tools.sandboxNetworkAccess, or
//     tools.sandbox's networkAccess, turns it on;
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
// opens it afresh for each command. Landlock would add nothing today: its
// scoping of abstract sockets (ABI 6) is what the new network namespace
// and the filter already give, and a rule on connect() to a socket's
// path is not in the kernels it runs on (ABI 7 on Linux 6.18).
//
// Where 0.61 is silent or differs, this package does what a careful
// security engineer expects: the network is off by default for every
// backend (0.61 leaves docker's on unless told otherwise), environment
// redaction is on in the sandbox whatever the settings say, and a `true`
// on Linux with docker installed but no daemon answering uses bubblewrap
// rather than failing on the first command.
package sandbox
