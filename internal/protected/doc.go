// Package protected names the files whose change would change what the
// agent may run or read, or what runs on the user's machine with nobody
// asked: the configuration of gemini-ls and Gemini CLI, of git, of the
// user's editor and shell. The approval door (internal/agent) lets no
// edit of one through on the approval mode, a policy rule's allow,
// settings' tools.allowed or an earlier "always allow": a person approves
// each, in every mode but yolo, and a headless run refuses it. Otherwise
// a model in auto_edit could write a hook into .gemini/settings.json, or
// a policy allowing every shell command into .gemini/policies, and the
// next session, in the default mode, would run them unasked. Gemini CLI
// 0.61 asks only for .vscode (its allowed-path checker in auto_edit);
// Claude Code guards its own settings, .git, .vscode, .idea, .husky and
// the shell's startup files the same way.
//
// The set (Set.Why), each name matched against every component of a path:
//
//   - .gemini: the user's (~/.gemini) and each project's configuration:
//     settings (hooks, MCP servers, tools.allowed, the approval mode),
//     policies, commands, agents, skills, extensions, system.md, .env,
//     trustedFolders.json, GEMINI.md's global file.
//   - .geminiignore: the files the agent may not read.
//   - .env: the environment gemini-ls and Gemini CLI start with; in a
//     trusted folder it may set anything, GEMINI_CLI_SYSTEM_SETTINGS_PATH
//     and GEMINI_SYSTEM_MD among it.
//   - .git, .gitconfig, .husky: git's configuration and hooks
//     (core.hooksPath, core.fsmonitor, aliases, filters), which git runs.
//   - .vscode, .idea, .zed, .helix: editors' project settings (gemini-ls's
//     own among them), tasks, run configurations and the language servers
//     they start; and any file named *.code-workspace (an ending, not a
//     name: VS Code's workspace file holds settings, tasks and launch
//     configurations as .vscode does).
//   - .config/git, .config/nvim, .config/fish (names of several
//     components, matched in a row): git's (config, attributes),
//     Neovim's (init.lua, init.vim) and fish's (config.fish) XDG
//     configuration, the same as .gitconfig, .nvim.lua and .bashrc; and
//     the same directories where XDG_CONFIG_HOME puts them (XDGConfig,
//     among a Set's paths).
//   - .nvim.lua, .nvimrc, .exrc, .dir-locals.el, .dir-locals-2.el:
//     Neovim's, Vim's and Emacs's project configuration, which they
//     evaluate, and gemini-ls's settings there.
//   - .envrc: direnv's script, which the user's shell runs on entering
//     the directory.
//   - the shell's startup files (.bashrc, .bash_profile, .bash_login,
//     .bash_logout, .profile, .zshrc, .zshenv, .zprofile, .zlogin,
//     .zlogout): run by every shell the user starts.
//   - .ssh: ssh's configuration (ProxyCommand and LocalCommand run
//     commands) and authorized_keys (who may log in).
//   - and the paths a Set is made with (New): for gemini-ls, those its
//     settings put elsewhere (the system settings, defaults and policies,
//     settings' policyPaths and adminPolicyPaths, the trusted folders
//     file, a GEMINI_SYSTEM_MD file, the enabled extensions' directories).
//
// Left out: GEMINI.md (context, not permission: its imports stay inside
// their scope and never read a secret, internal/memory; the global one is
// under ~/.gemini), .gitignore (it hides files from searches as a
// convenience, not a guard), and build files and scripts, which are the
// project's code and run only when asked to.
//
// Invariants: matching never misses a spelling the file system takes for
// the same file. Names are compared with Unicode case folding (a
// case-insensitive file system's .GEMINI is .gemini), and as Windows
// reads them, on every system (a share Windows serves reads them so):
// without trailing dots and spaces, without an NTFS stream (.git. and
// .env::$DATA are .git and .env). A short (8.3) name is resolved by the
// file system on Windows where it exists (GetLongPathName); a component
// shaped like one that was not resolved (NAME~1) may be any protected
// name, and is protected. The path checked is
// the one the edit writes, its links resolved, and a protected name
// anywhere above it that is a link to it or to a directory holding it
// (.gemini -> config, ~/.gemini -> ~/dotfiles/gemini) protects it too, as
// do the links of the paths a Set is made with (a link named
// *.code-workspace is not looked for: an ending names no path to Lstat).
// Why touches the file
// system only to look for such links, a bounded number of Lstat calls.
package protected
