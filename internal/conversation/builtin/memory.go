package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func memorySubcommands() []Builtin {
	return []Builtin{
		{Command: command("show", "Show the memory the model is given", ""), Run: showMemory},
		{Command: command("add", "Remember a fact in the global GEMINI.md, as save_memory does", "<text>"), Run: addMemory, Changes: "the memory every later session is given"},
		{Command: also(command("reload", "Read the GEMINI.md files again", ""), "refresh"), Run: reloadMemory},
		{Command: command("list", "List the GEMINI.md files in use", ""), Run: listMemory},
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

// addMemory saves a fact the way the model's save_memory call does: the
// same tool, the same file, the same checks. The user typed it, so it is
// not asked about again.
func addMemory(ctx context.Context, env Env, fact string) (Reply, error) {
	if fact == "" {
		return Reply{}, subUsage("memory", "add", "<text>", "missing the text to remember")
	}
	tool, ok := env.Built.Tools.Registry.Get(tools.MemoryName)
	if !ok {
		return Reply{}, fmt.Errorf("the %s tool is not enabled (settings exclude it), so nothing can be added to the memory", tools.MemoryName)
	}
	call, err := tool.Build(map[string]any{"fact": fact})
	if err != nil {
		return Reply{}, fmt.Errorf("the fact was not saved: %w", err)
	}
	res, err := call.Execute(ctx, tools.CallInfo{SessionID: env.Session.ID()})
	switch {
	case err != nil:
		return Reply{}, fmt.Errorf("the fact was not saved: %w", err)
	case res.Error != "":
		return Reply{}, errors.New(res.Error)
	}
	return Reply{Text: res.Display}, nil
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
