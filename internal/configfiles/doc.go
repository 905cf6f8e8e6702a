// Package configfiles declares, in one place, every file and directory
// whose content can start a program, add a rule the agent obeys or change
// what it is allowed: gemini-ls's own configuration, which its loaders
// read (settings of every scope, .env, policies, hooks, commands, agents,
// skills, extensions, Antigravity's .agents files, .geminiignore), and
// that of the programs run around it (git, the editors, the shells, ssh),
// which a file written today makes run something tomorrow, outside
// gemini-ls's say.
//
// Last round a loader learned to read .agents/mcp_config.json while the
// guards, each a list written by hand, did not learn of it: the model
// wrote the file in auto_edit unasked, a sandboxed command planted it,
// and the next session started its server on the host. So the guards
// are derived from the declarations here, never listed again:
//
//   - internal/protected's names (Names, Endings): an edit of any asks a
//     person;
//   - the sandbox's configurations in a root (Names, Keeping): kept read-only
//     where they are, set aside where a command makes one, and those
//     Made made empty first so none can be planted;
//   - the folder configuration the sandboxes' trail checks (Folder):
//     changed by a sandboxed command, the folder is asked about again
//     before a later session obeys it.
//
// Loaders take their paths from here (the functions below, each naming
// the declaration it lies in), and two tests hold them to it: one
// (TestNoLoaderSpellsAConfigurationDirectory) finds the declared
// directories' names spelled anywhere else in gemini-ls's code; the other
// (cmd/gemini-ls/e2e TestEveryConfigurationReadIsDeclared) traces a
// start of gemini-ls with every feature on, and fails on any file it
// looks at beneath the workspace or the home that no declaration covers.
//
// Left out, and why:
//   - GEMINI.md, AGENTS.md and the files they import: context, not
//     permission (internal/memory keeps their imports inside their scope);
//     the global one is in ~/.gemini.
//   - .gitignore: it hides files from searches as a convenience, not a
//     guard.
//   - build files and scripts: the project's code, run only when asked.
//
// Paths outside the folder and the home that settings, the environment
// or the command line name (the system settings, policyPaths,
// GEMINI_SYSTEM_MD, linked extensions, XDG_CONFIG_HOME) are protected by
// path where they are read (internal/setup's protectedFiles).
//
// Invariants: a declaration never leaves the set; a name is
// slash-separated, relative, and matched component by component; every
// path a function here returns lies in the declaration it names.
package configfiles
