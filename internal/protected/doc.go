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
// The set (Set.Why): the names internal/configfiles declares, each
// matched against every component of a path (several components in a
// row for .config/git and its like), and its endings (*.code-workspace);
// there each says what it holds and why it is there: gemini-ls's own
// configuration (.gemini, .agents, .env, .geminiignore), which its
// loaders take their paths from, and git's, the editors', the shells'
// and ssh's. The names under .config are protected too where
// XDG_CONFIG_HOME puts them (XDGConfig, among a Set's paths), and so are
// the paths a Set is made with (New): for gemini-ls, those its settings
// put elsewhere (the system settings, defaults and policies, settings'
// policyPaths and adminPolicyPaths, the trusted folders file, a
// GEMINI_SYSTEM_MD file, the enabled extensions' directories).
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
