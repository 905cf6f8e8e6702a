// Package manage is gemini-ls's management commands, Gemini CLI 0.61's
// of the same names: `gemini-ls mcp add|remove|list` (mcp.go),
// `gemini-ls extensions install|uninstall|list|update|enable|disable|
// link|new|validate` (extensions.go) and `gemini-ls skills
// list|install|link|uninstall|enable|disable` (skills.go). Commands
// lists them for cmd/gemini-ls, which dispatches to them. Chat runs
// extensions install, link, update and uninstall and skills link for a
// chat's /extensions and /skills (chat.go): the same code, in the chat's
// workspace, its questions put through the chat's Asker.
//
// Invariants:
//   - Each command does what 0.61's does: the same options, taken as its
//     yargs takes them (args.go); the same files, written in the same
//     form (settings.SetValue, the extensions' install metadata, the
//     skills directories); the same messages on the same streams; the
//     same exit statuses. Either tool undoes what the other did.
//   - Nothing here builds an agent or talks to a model. A command reads
//     the environment, the working directory and the files they name;
//     mcp list connects to each server only to say whether it can (and,
//     past 0.61's line, why not), and stops every one before it returns.
//   - A question is put on the terminal and answered on stdin, as 0.61
//     puts it (a chat's through its Asker); with no answer (stdin ended) nothing is installed: an
//     extension's install refuses and says why, a skill's ends as 0.61's
//     does.
//   - What 0.61 has and gemini-ls does not do (mcp enable and disable,
//     extensions config) is refused with the reason, never ignored.
//   - Help is written from the options each command parses, by package
//     cmdline, as every other command's is.
package manage
