// Package tools holds the agent's tools behind one small interface and the
// registry that hands their declarations to the model. Tools read through
// the workspace and propose file changes through a ChangeProposer; they never
// know which front end (LSP, headless) confirms and applies a change.
//
// Builtin returns Gemini CLI's core tools (list_directory, read_file,
// write_file, replace, glob, grep_search, run_shell_command, save_memory) with its
// parameter names and the llmContent texts its model was trained against.
// Every path is resolved inside the workspace roots before a call runs;
// reads and searches see the editor's unsaved buffers.
package tools
