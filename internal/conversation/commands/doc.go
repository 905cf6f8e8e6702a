// Package commands holds the user's commands: the custom commands of
// TOML files (~/.gemini/commands, and in a trusted root
// <root>/.gemini/commands and the enabled extensions' commands
// directories) and the MCP
// servers' prompts, and how a prompt naming one becomes the prompt the
// model is sent. Command is the one entry type
// every front end derives its list and dispatch from. It follows Gemini CLI 0.61's FileCommandLoader and its prompt
// processors (argumentProcessor, shellProcessor, atFileProcessor,
// injectionParser) so a team's commands mean the same in every front end
// and in Gemini CLI.
//
// Invariants:
//   - A root the user does not trust loads the user's own commands
//     alone: neither the project's nor the extensions', as Gemini CLI
//     0.61's FileCommandLoader.getCommandDirectories has it. The user's
//     are the user's whatever folder they are in; a cloned repository
//     can neither add commands nor shadow the user's.
//   - A project command overrides a user command of the same name (the
//     project's are loaded last, and the last of a name wins).
//   - An enabled extension's commands (LoadExtensions) have the lowest
//     precedence, as Gemini CLI documents: one whose name a built-in, a
//     user's or project's command or an earlier extension's (by name) has
//     is renamed "<extension>.<name>", so none is lost; like any custom
//     command it replaces an MCP prompt of its name.
//   - A file that cannot be read or is not a valid command is skipped and
//     reported with its path; the others load. A FIFO, device or socket
//     in a file's or a directory's place is one, refused without waiting
//     on it (internal/safefile): a repository cannot hang the loader. Loading is bounded for a
//     hostile workspace: files of at most maxFileSize bytes, at most
//     maxFiles of them, directories at most maxDepth deep, and a symlink
//     that leads out of its commands directory is refused (Gemini CLI
//     follows every symlink; the directory itself may be one).
//   - Expansion runs Gemini CLI's processors in its order: @{path}
//     injection, then {{args}} (raw outside !{…}, shell-quoted inside)
//     with !{…} shell injection, then, when the prompt has no {{args}},
//     the whole invocation appended after a blank line if it had
//     arguments. Text a @{…} brought in is data, not template: it is not
//     searched for {{args}} or !{…} (Gemini CLI would run a !{…} found in
//     an injected file; a workspace file must not be able to name a
//     command to run).
//   - A custom command replaces an MCP prompt of its name, and either a
//     front end's built-in of its name.
//   - Every !{…} command is confirmed through the caller's Shell before
//     any runs; one declined or refused and none runs, and the expansion
//     fails saying so.
package commands
