package commands

import "strings"

// Command is one command of those a front end offers, declared once: each
// front end derives what it lists (ACP's available_commands_update) and
// what a "/name" prompt runs from its table of them.
type Command struct {
	Name string
	// AltNames are its other names, as Gemini CLI 0.61's altNames: a
	// prompt "/altname" runs it, unless one of the user's commands has
	// that name. Only built-ins have them.
	AltNames    []string
	Description string
	// Hint is what may follow the name, for the client to show; "" when
	// the command takes nothing.
	Hint   string
	Source Source
	// Extension is the extension whose command it is; "" for others.
	Extension string
	// Prompt: running it sends a prompt to the model (a custom command,
	// /init); else it answers without a model call.
	Prompt bool
}

// Command is c's entry in a front end's table. Any custom command takes
// arguments: {{args}} places them, else they follow the prompt.
func (c Custom) Command() Command {
	hint := "arguments (optional, added after the prompt)"
	if strings.Contains(c.Prompt, argsPlaceholder) {
		hint = "arguments"
	}
	return Command{Name: c.Name, Description: c.Description, Hint: hint, Source: c.Source, Extension: c.Extension, Prompt: true}
}
