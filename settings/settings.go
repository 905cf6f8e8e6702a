package settings

// Settings is the part of Gemini CLI's settings.json that gemini-ls reads,
// spelled as Gemini CLI spells it, so a user's file works unchanged.
// Unknown keys are ignored.
type Settings struct {
	Tools      Tools                `json:"tools"`
	MCPServers map[string]MCPServer `json:"mcpServers"`
}

// Tools is the "tools" object.
type Tools struct {
	// DiscoveryCommand prints a JSON array of FunctionDeclarations (or an
	// object with function_declarations / functionDeclarations).
	DiscoveryCommand string `json:"discoveryCommand"`
	// CallCommand runs a discovered tool: CallCommand NAME, with the JSON
	// arguments on stdin, prints the JSON result.
	CallCommand string `json:"callCommand"`
	// DisableLLMCorrection turns off replace's last correction stage, the
	// utility model's fix of an old_string nothing else could place. Off
	// (the fix on) unless set, as the issue asks; Gemini CLI defaults it on.
	DisableLLMCorrection bool `json:"disableLLMCorrection"`
}

// MCPServer is one entry of "mcpServers": a stdio server (Command) or a
// streamable HTTP one (HTTPURL, or URL).
type MCPServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`

	HTTPURL string            `json:"httpUrl"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`

	// Timeout is in milliseconds, for each request to the server.
	Timeout int `json:"timeout"`
	// Trust skips the confirmation of this server's tools.
	Trust        bool     `json:"trust"`
	IncludeTools []string `json:"includeTools"`
	ExcludeTools []string `json:"excludeTools"`
}
