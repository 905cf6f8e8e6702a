package tools

import (
	"slices"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Options configure the built-in tools.
type Options struct {
	// Workspace is what the file tools read and resolve paths against.
	// Required.
	Workspace *workspace.Workspace
	Shell     ShellOptions
	// Utility answers the tools' one-off model calls; nil when there is
	// no model (tools that need it then fail with a clear message).
	Utility Utility
	// Web configures web_fetch's fetching; the zero value fetches from the
	// network with the environment's proxy. Tests set its resolver and
	// dialer.
	Web web.Options
	// Fetcher is web_fetch's, when whoever holds the tools closes it
	// with them (toolset.Set); else one of Web's is made, closed never.
	Fetcher *web.Fetcher
	// DisableLLMCorrection turns off replace's last correction stage, the
	// utility model's fix of an old_string nothing else could place
	// (settings.json's tools.disableLLMCorrection).
	DisableLLMCorrection bool
	// Plan configures plan mode's tools.
	Plan PlanOptions
	// Memory gives read_file and list_directory the context files
	// around what they read (nil: none).
	Memory ContextDiscoverer
	// Skills are the agent skills activate_skill offers; the tool is left
	// out when nil (settings turn skills off).
	Skills *skills.Catalog
	// Diagnostics asks the user's editor for the diagnostics it shows,
	// for get_diagnostics; the tool is left out when nil (the front end's
	// editor cannot answer).
	Diagnostics dialog.DiagnosticsReader
	// Tracker finds each session's task tracker directory; the tracker's
	// tools are left out when nil (experimental.taskTracker off).
	Tracker TrackerDir
	// CodeIntel answers navigate_code and rename_symbol from language
	// servers: the editor's, or ones gemini-ls starts; both tools are
	// left out when nil (none can answer).
	CodeIntel codeintel.Provider
}

// ShellOptions configure run_shell_command.
type ShellOptions struct {
	// Inactivity is how long a command may print nothing before it is
	// killed, as Gemini CLI 0.61's tools.shell.inactivityTimeout; zero
	// means DefaultShellInactivity, a negative one no limit.
	Inactivity time.Duration
	// Env is added to the server's own environment ("KEY=value"; later
	// entries win).
	Env []string
	// Runner runs the commands; LocalRunner when nil. The ACP front end
	// passes one that runs them in the client's terminal.
	Runner dialog.CommandRunner
	// Door starts the commands: the session's, in its sandbox.
	Door *spawn.Door
	// Redaction keeps secrets out of the commands' environment.
	Redaction envredact.Policy
	// Shell runs the commands; the zero Shell is osshell.Local().
	Shell osshell.Shell
}

// DefaultShellInactivity is ShellOptions.Inactivity when zero: 0.61's
// default, 300 seconds.
const DefaultShellInactivity = 5 * time.Minute

// Builtin returns the built-in tools over opts.Workspace.
func Builtin(opts Options) []Tool {
	if opts.Shell.Inactivity == 0 {
		opts.Shell.Inactivity = DefaultShellInactivity
	}
	opts.Shell.Shell = opts.Shell.Shell.OrLocal()
	ws := opts.Workspace
	fetcher := opts.Fetcher
	if fetcher == nil {
		fetcher = web.NewFetcher(opts.Web)
	}
	return append([]Tool{
		listDirectory(ws, opts.Memory),
		readFile(ws, opts.Memory),
		writeFile(ws),
		replace(opts),
		glob(ws),
		grepSearch(ws, opts.Shell.Door),
		shell(ws, opts.Shell),
		webFetch(opts.Utility, fetcher),
		webSearch(opts.Utility),
		writeTodos(),
		askUser(),
		updateTopic(),
		listBackground(),
		readBackground(opts.Shell),
	}, slices.Concat(planTools(ws, opts.Plan), skillTools(ws, opts.Skills), trackerTools(opts.Tracker), diagnosticsTools(ws, opts.Diagnostics), codeIntelTools(ws, opts.CodeIntel))...)
}

// skillTools is activate_skill while skills are on (catalog set), as
// Gemini CLI declares it: with no skill found its parameter says none is
// available, and /skills reload can add some without a restart.
func skillTools(ws *workspace.Workspace, catalog *skills.Catalog) []Tool {
	if catalog == nil {
		return nil
	}
	return []Tool{activateSkill(catalog, ws)}
}
