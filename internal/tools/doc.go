// Package tools holds the agent's tools behind one small interface and the
// registry that hands their declarations to the model. Tools read through
// the workspace; they never know which front end (LSP, ACP, headless)
// shows a call or lands a change.
//
// Invariant: no tool decides whether it may run. A call
// says what it needs approved (Call.Confirmation: its AllowKeys, whether
// settings trust it), and the agent's approval service decides. An edit
// changes nothing itself: its Execute returns the change it proposes
// (Result.Proposal), the agent has the front end land it (asking first
// when it must), and Proposal.Settle tells the model what became of it.
// What identifies a call (its session and id) is passed to Execute, not
// carried in the context. A call that puts a question to the user
// (ask_user) does so through CallInfo.Ask, never knowing which front end
// presents it; nil there means nobody can answer, and the model is told.
//
// Invariant: a call tells the front ends what it is (Present: its title,
// kind, file and line, to-dos) from its arguments alone, never reading
// (a transcript's calls are presented long after their files changed).
// An edit names the line it changes only once the agent has prepared it
// (Prepare), just before it runs: the call then reads its file, and runs
// on that read, so the file is read once.
//
// Invariant: declarations are made once and shared, never changed. The
// registry makes each registered tool's declaration on first use and
// hands out the same slice of them until a tool comes or goes (a Source:
// MCP servers, discovered tools) or a Redeclaring tool's declaration
// changes (activate_skill's, with the enabled skills); then a new slice.
// Whoever needs a declaration changed copies it (plan mode's write_file).
//
// Invariant: a built-in tool is declared once (define.go), as the MCP Go
// SDK's AddTool declares a server's: Define takes its Spec (name,
// description, Annotations, the names settings know it by), its
// parameter struct and a builder of its calls from a decoded struct. Its
// parameters are that one Go struct: github.com/google/jsonschema-go
// derives the schema the model is told from it, once per type
// (schema.go: jsonschema tags describe, extendSchema adds what Go types
// cannot say, was tags name older arguments), and Build renames older
// arguments and decodes the model's through the same schema, refusing
// them in the words of Gemini CLI's validator before the builder sees
// them. No schema is written out by hand (derived_test.go holds every
// built-in tool to it). A tool added is its file and the line in
// Builtin that registers it.
//
// Invariant: a tool says what it is on itself (Annotations: its kind,
// read-only, edits files, runs commands, asks the user, reaches the
// network, delegates, runs alone, narrates), as an MCP server's tools do
// with their annotations, which feed the same field. The agent's
// scheduler, plan mode, the approval door, settings' filters, the
// subagents' tool sets and the system prompt read it; nothing keeps a
// list of tool names for what a tool does or whether it may run beside
// others, so a tool added says it in one place. A tool that says nothing
// is taken to do anything.
//
// Builtin returns Gemini CLI's core tools (list_directory, read_file,
// write_file, replace, glob, grep_search, run_shell_command, and, while plan mode is enabled, enter_plan_mode and exit_plan_mode:
// plan.go; and activate_skill while skills are on: activate_skill.go)
// with its parameter names and the llmContent texts its model
// was trained against. get_internal_docs (NewGetInternalDocs) is none of
// them: it is the cli_help subagent's alone, as in 0.61.
// Every path is resolved inside the workspace roots before a call runs;
// reads and searches see the editor's unsaved buffers.
//
// Invariant: what a tool shows the model follows read_file's rules
// (inside the roots, not ignored, not in .git), whichever road it takes:
// a listing or search judges a symbolic link by where it leads, not its
// name alone (linkHidden); an @path's line range as its whole file;
// navigate_code leaves out the places a server names that the model may
// not read and withholds a hover of a symbol declared there
// (navigate_hover.go); the context files a read discovers are the
// memory's to hold to the same rules (memory.Loader.Discover).
//
// A search holds what its result can show, however many files it walks:
// glob the newest maxGlobFiles matches, grep_search the files that may
// hold its first maxGrepMatches matches, the @paths of a prompt the
// first maxManyFiles in path order; the rest are counted, and the result
// tells the model how many were left out. Searches of a million files
// stay within tens of MB (docs/benchmarks.md, "A million files").
//
// Searches walk on every core (workspace.Walk), so they find files in no
// set order; what they return does not depend on it: glob sorts what it
// keeps, @paths keep the first files by path, and
// grep_search keeps the first matches in path order
// (workspace.ComparePaths), the walk sending no file past the last of
// them. Every grep engine gets the files the walk selected
// and gives the same result (grep_external.go: rg only finds candidate
// lines; pickGrepEngine).
package tools
