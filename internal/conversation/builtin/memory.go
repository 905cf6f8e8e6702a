package builtin

import (
	"context"
	"fmt"
	"strings"
)

// memorySubcommands are Gemini CLI 0.61's: it has no /memory add (nor a
// save_memory tool); the model edits the memory files itself.
func memorySubcommands() []Builtin {
	return []Builtin{
		{Command: command("show", "Show the memory the model is given", ""), Run: showMemory},
		{Command: also(command("reload", "Read the GEMINI.md files and MEMORY.md again", ""), "refresh"), Run: reloadMemory},
		{Command: command("list", "List the GEMINI.md files and MEMORY.md in use", ""), Run: listMemory},
		inboxCommand(),
	}
}

// showMemory is the memory as the next request's system instruction
// ends with it.
func showMemory(ctx context.Context, env Env, _ string) (Reply, error) {
	mem := env.Built.Memory()
	text, err := mem.SystemMemory(ctx)
	if err != nil {
		return Reply{}, err
	}
	if text == "" {
		return Reply{Text: "Memory is currently empty."}, nil
	}
	files, err := mem.Files(ctx)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Text: fmt.Sprintf("Current memory content from %d file(s):\n\n---\n%s\n---", len(files), text)}, nil
}

// reloadMemory reads the files again. The loader reads changed and new
// files before every request anyway; reading them now shows what the
// next request will carry.
func reloadMemory(ctx context.Context, env Env, _ string) (Reply, error) {
	mem := env.Built.Memory()
	text, err := mem.SystemMemory(ctx)
	if err != nil {
		return Reply{}, err
	}
	files, err := mem.Files(ctx)
	if err != nil {
		return Reply{}, err
	}
	if text == "" {
		return Reply{Text: "Memory reloaded. No memory content found."}, nil
	}
	total := 0
	for _, f := range files {
		total += f.Size
	}
	return Reply{Text: fmt.Sprintf("Memory reloaded: %s from %d file(s).", size(total), len(files))}, nil
}

// listMemory lists the context files the model is given.
func listMemory(ctx context.Context, env Env, _ string) (Reply, error) {
	mem := env.Built.Memory()
	files, err := mem.Files(ctx)
	if err != nil {
		return Reply{}, err
	}
	names := strings.Join(mem.FileNames(), ", ")
	if len(files) == 0 {
		return Reply{Text: fmt.Sprintf("No context files (%s) are in use.", names)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d context file(s) (%s) in use:\n", len(files), names)
	for _, f := range files {
		fmt.Fprintf(&b, "- %s (%s)\n", f.Path, size(f.Size))
	}
	return Reply{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}
