package spawn

// Reason is why a program may start: one of UserCommand, Configured,
// LanguageServer and Helper. The set is closed (the unexported method),
// so a switch over it can be checked complete.
type Reason interface {
	// String says what starts, for errors and the log: "a shell command",
	// "the hook BeforeTool", "the language server gopls".
	String() string
	reason()
}

// UserCommand is a command line the approval door let run: the model's
// run_shell_command (Tool names it), the user's !command or a custom
// command's !{…}. It runs in the sandbox whenever there is one.
type UserCommand struct {
	// What asked for it: "run_shell_command", "!command", "a hook's
	// remote agent auth command".
	What string
}

// Configured is a program the user's trusted settings name.
type Configured struct {
	// Setting is the key that names it: "hooks.BeforeTool",
	// "mcpServers.github", "tools.discoveryCommand".
	Setting string
	// Kind says how the sandbox treats it.
	Kind ConfiguredKind
}

// ConfiguredKind is the kind of program a setting names, by which the
// door decides whether it runs in the sandbox.
type ConfiguredKind int

const (
	// Hook is a hook's command, MCPServer a stdio MCP server,
	// ToolDiscovery tools.discoveryCommand. They run in the sandbox only
	// where Rules.SandboxServers says: started by the user's settings,
	// not the model, they often need the network.
	Hook ConfiguredKind = iota
	MCPServer
	ToolDiscovery
	// DiscoveredTool is tools.callCommand, running a tool the model
	// called with arguments it chose: in the sandbox whenever there is
	// one.
	DiscoveredTool
	// Credential is a command that fetches a credential (a remote
	// agent's auth): never in the sandbox, whose job is to hide the
	// user's secrets from what runs there.
	Credential
)

// LanguageServer is a language server gemini-ls starts itself.
type LanguageServer struct {
	// Name is the server's name: "typescript-language-server".
	Name string
	// Confined says that the switches it is started with keep it from
	// running the workspace's code: only then does it start without a
	// yes. A server found in the workspace's roots is never confined.
	Confined bool
	// Risk says what of the workspace it may run, for the user's
	// question and the model's refusal: "the workspace's own TypeScript
	// (node_modules/typescript)".
	Risk string
}

// Helper is one of gemini-ls's own fixed programs, run with arguments
// gemini-ls chose: git, rg, taskkill, a browser, bwrap, docker.
type Helper struct {
	// Name is the program as looked for: "git".
	Name string
}

func (r UserCommand) String() string    { return "the command of " + r.What }
func (r Configured) String() string     { return "the program of " + r.Setting }
func (r LanguageServer) String() string { return "the language server " + r.Name }
func (r Helper) String() string         { return "gemini-ls's helper " + r.Name }

func (UserCommand) reason()    {}
func (Configured) reason()     {}
func (LanguageServer) reason() {}
func (Helper) reason()         {}
