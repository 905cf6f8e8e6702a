package tools

// The built-in tools' names, as the model calls them: the one place each
// is written. The tools declare themselves by these constants, and every
// list of tools derives from Names (the registry's, /tools, README.md's
// list, the tests'); TestToolNamesAreWrittenOnce fails on a name written
// as a string anywhere else.
const (
	// The file tools, the shell and the web, as Gemini CLI 0.61 names them.
	ListDirectoryName = "list_directory"
	ReadFileName      = "read_file"
	WriteFileName     = "write_file"
	ReplaceName       = "replace"
	GlobName          = "glob"
	GrepSearchName    = "grep_search"
	ShellName         = "run_shell_command"
	WebFetchName      = "web_fetch"
	WebSearchName     = "google_web_search"

	// WriteTodosName is the model's to-do list; AskUserName asks the
	// user questions; UpdateTopicName says what the model is doing.
	WriteTodosName  = "write_todos"
	AskUserName     = "ask_user"
	UpdateTopicName = "update_topic"

	// The background processes: a list of the session's, and the tail of
	// one's output.
	ListBackgroundName = "list_background_processes"
	ReadBackgroundName = "read_background_output"

	// The planning tools.
	EnterPlanModeName = "enter_plan_mode"
	ExitPlanModeName  = "exit_plan_mode"

	// ActivateSkillName gives the model a skill's instructions and
	// resources (skills).
	ActivateSkillName = "activate_skill"

	// The task tracker's tools (experimental.taskTracker).
	TrackerCreateTaskName    = "tracker_create_task"
	TrackerUpdateTaskName    = "tracker_update_task"
	TrackerGetTaskName       = "tracker_get_task"
	TrackerListTasksName     = "tracker_list_tasks"
	TrackerAddDependencyName = "tracker_add_dependency"
	TrackerVisualizeName     = "tracker_visualize"

	// gemini-ls's own: the editor's diagnostics, and its language servers.
	GetDiagnosticsName = "get_diagnostics"
	NavigateCodeName   = "navigate_code"
	RenameSymbolName   = "rename_symbol"

	// InvokeAgentName hands a task to a subagent (0.61's AgentTool,
	// AGENT_TOOL_NAME, bundle chunk-JDPZ4CE3.js:283192); a subagent ends
	// its run with CompleteTaskName, handing in its report (0.61's
	// CompleteTaskTool, chunk-JDPZ4CE3.js:348602-348690).
	InvokeAgentName  = "invoke_agent"
	CompleteTaskName = "complete_task"

	// GetInternalDocsName reads gemini-ls's documentation; 0.61 gives it
	// to cli_help alone (chunk-JDPZ4CE3.js:339188).
	GetInternalDocsName = "get_internal_docs"

	// The MCP servers' resources.
	ListResourcesName = "list_mcp_resources"
	ReadResourceName  = "read_mcp_resource"

	// ReadManyFilesName is a tool 0.61 knows and gemini-ls does not
	// declare (its @path references read through ReadReferences); a call
	// of it is answered that there is no such tool.
	ReadManyFilesName = "read_many_files"
)

// Names is every built-in tool gemini-ls declares somewhere (to the main
// agent or a subagent, under some settings), in the order the registry
// declares them: AlwaysNames first.
func Names() []string {
	return append(AlwaysNames(),
		EnterPlanModeName, ExitPlanModeName, ActivateSkillName,
		TrackerCreateTaskName, TrackerUpdateTaskName, TrackerGetTaskName, TrackerListTasksName, TrackerAddDependencyName, TrackerVisualizeName,
		GetDiagnosticsName, NavigateCodeName, RenameSymbolName,
		InvokeAgentName, CompleteTaskName, GetInternalDocsName, ListResourcesName, ReadResourceName,
	)
}

// AlwaysNames are the built-in tools Builtin makes whatever its options,
// in its order; the others need a setting, the editor or a subagent.
func AlwaysNames() []string {
	return []string{
		ListDirectoryName, ReadFileName, WriteFileName, ReplaceName, GlobName, GrepSearchName, ShellName,
		WebFetchName, WebSearchName, WriteTodosName, AskUserName, UpdateTopicName, ListBackgroundName, ReadBackgroundName,
	}
}

// CLINames is Gemini CLI 0.61's ALL_BUILTIN_TOOL_NAMES
// (chunk-JDPZ4CE3.js:283219): the built-in tools a Markdown agent's tools
// may name, besides MCP and discovered tools.
func CLINames() []string {
	return []string{
		GlobName, WriteTodosName, WriteFileName, WebSearchName, WebFetchName,
		ReplaceName, ShellName, GrepSearchName, ReadManyFilesName,
		ReadFileName, ListDirectoryName, ActivateSkillName, AskUserName,
		TrackerCreateTaskName, TrackerUpdateTaskName, TrackerGetTaskName,
		TrackerListTasksName, TrackerAddDependencyName, TrackerVisualizeName,
		GetInternalDocsName, EnterPlanModeName, ExitPlanModeName,
		UpdateTopicName, CompleteTaskName, InvokeAgentName, ReadResourceName,
		ListResourcesName,
	}
}
