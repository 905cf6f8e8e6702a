package commands

import "strings"

// Command is one command of those a front end offers, declared once: each
// front end derives what it lists (ACP's available_commands_update) and
// what a "/name" prompt runs from its table of them.
type Command struct {
	Name        string
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
