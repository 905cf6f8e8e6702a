package builtin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/memory"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// memorySubcommands are Gemini CLI 0.61's, and add, which 0.61 no longer
// has (nor its save_memory tool; the model edits the memory files
// itself), kept for the users who type it.
func memorySubcommands() []Builtin {
	return []Builtin{
		{Command: command("show", "Show the memory the model is given", ""), Run: showMemory},
		{Command: command("add", "Remember a fact in the global GEMINI.md", "<text>"), Run: addMemory, Changes: "the memory every later session is given"},
		{Command: also(command("reload", "Read the GEMINI.md and AGENTS.md files and MEMORY.md again", ""), "refresh"), Run: reloadMemory},
		{Command: command("list", "List the GEMINI.md and AGENTS.md files and MEMORY.md in use", ""), Run: listMemory},
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
	return Reply{Text: fmt.Sprintf("Current memory content from %d file(s):\n\n---\n%s\n---", len(files), text) + agentsNote(env, files)}, nil
}

// agentsNote says, when an AGENTS.md is in the memory because
// context.fileName is unset, that Gemini CLI 0.61 would not have read it.
func agentsNote(env Env, files []memory.File) string {
	if len(env.Built.Settings.Context.FileName) > 0 || !slices.ContainsFunc(files, func(f memory.File) bool { return memory.IsAgentsFile(f.Path) }) {
		return ""
	}
	return "\n\nAGENTS.md is read by default beside GEMINI.md, as other agents read it; Gemini CLI 0.61 reads it only when context.fileName names it. Set context.fileName to choose the names yourself."
}

// addMemory adds fact to the global GEMINI.md, under the heading Gemini
// CLI's save_memory added facts under, so that both programs read it.
func addMemory(ctx context.Context, env Env, fact string) (Reply, error) {
	if strings.TrimSpace(fact) == "" {
		return Reply{}, subUsage("memory", "add", "<text>", "missing the text to remember")
	}
	path := env.Built.Memory().GlobalFile()
	if path == "" {
		return Reply{}, errors.New("the fact was not saved: gemini-ls has no home directory (" + settings.HomeVariable + " is not set), so it has no global GEMINI.md")
	}
	if err := memory.AddFact(ctx, path, fact); err != nil {
		return Reply{}, fmt.Errorf("the fact was not saved: %w", err)
	}
	return Reply{Text: fmt.Sprintf("Okay, I've remembered that: %q", memory.OneLine(fact))}, nil
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
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	names := strings.Join(mem.ShownNames(paths), ", ")
	if len(files) == 0 {
		return Reply{Text: fmt.Sprintf("No context files (%s) are in use.", names)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d context file(s) (%s) in use:\n", len(files), names)
	for _, f := range files {
		fmt.Fprintf(&b, "- %s (%s)\n", f.Path, size(f.Size))
	}
	return Reply{Text: strings.TrimSuffix(b.String(), "\n") + agentsNote(env, files)}, nil
}

// autoMemoryOff is 0.61's answer to /memory inbox without auto memory.
const autoMemoryOff = "The memory inbox requires Auto Memory. Enable it with: experimental.autoMemory = true in settings."

// inboxCommand is /memory inbox: what Gemini CLI 0.61's auto memory
// proposed, listed as 0.61's ACP lists it; its memory patches shown and
// applied or dismissed, its extracted skills moved or dismissed, as
// 0.61's inbox dialog does.
func inboxCommand() Builtin {
	subs := []Builtin{
		{Command: command("list", "List what auto memory proposed", ""), Run: listInbox, Hidden: true},
		{Command: command("apply", "Apply the private or global memory patches, or one of them", "<private|global> [patch]"), Run: applyInbox,
			Changes: "the memory every later session is given"},
		{Command: command("dismiss", "Delete the private or global memory patches, or one of them, or an extracted skill", "<private|global> [patch] | skill <name>"), Run: dismissInbox},
		{Command: command("move", "Move an extracted skill to your skills or the project's", "<skill> <global|project>"), Run: moveInboxSkill,
			Changes: "the agent skills every later session is offered"},
	}
	b := withSubcommands(command("inbox", "Review what auto memory extracted from past sessions", ""), subs)
	b.Hint = "[apply|dismiss <private|global> [patch] | dismiss skill <name> | move <skill> <global|project>]"
	return b
}

// inbox is the session's inbox, or 0.61's sentence when auto memory is
// off (a reply, not an error: nothing went wrong).
func inbox(env Env) (memory.Inbox, string) {
	if !env.Built.Settings.Experimental.AutoMemory {
		return memory.Inbox{}, autoMemoryOff
	}
	mem := env.Built.Memory()
	dir := mem.PrivateDir()
	if dir == "" {
		return memory.Inbox{}, "There is no private memory directory (no home directory), so the inbox is empty."
	}
	return memory.Inbox{Dir: dir, GlobalFile: mem.GlobalFile()}, ""
}

func listInbox(ctx context.Context, env Env, _ string) (Reply, error) {
	in, off := inbox(env)
	if off != "" {
		return Reply{Text: off}, nil
	}
	skills := in.Skills()
	patches, err := in.MemoryPatches(ctx)
	if err != nil {
		return Reply{}, fmt.Errorf("reading the memory inbox: %w", err)
	}
	if len(skills) == 0 && len(patches) == 0 {
		return Reply{Text: "No items in inbox."}, nil
	}
	var lines []string
	for _, s := range skills {
		if s.Patch != "" {
			lines = append(lines, fmt.Sprintf("- **%s** (update): patches %s", s.Name, s.Patch))
		} else {
			lines = append(lines, fmt.Sprintf("- **%s**: %s", s.Name, s.Description))
		}
	}
	for _, p := range patches {
		lines = append(lines, memoryPatchLine(p))
	}
	text := fmt.Sprintf("Memory inbox (%d):\n%s", len(skills)+len(patches), strings.Join(lines, "\n"))
	if len(patches) > 0 {
		text += "\n\n" + patchDiffs(patches) + "\n\nApply with `/memory inbox apply <private|global> [patch]`, or delete with `/memory inbox dismiss <private|global> [patch]`."
	}
	if slices.ContainsFunc(skills, func(s memory.InboxSkill) bool { return s.Dir != "" }) {
		text += "\n\nMove a skill with `/memory inbox move <skill> <global|project>`, or delete it with `/memory inbox dismiss skill <skill>`."
	}
	return Reply{Text: text}, nil
}

// memoryPatchLine is a kind's line in 0.61's list.
func memoryPatchLine(p memory.MemoryPatches) string {
	var targets []string
	for _, e := range p.Entries {
		targets = append(targets, e.Target)
	}
	label := "patches"
	if len(p.Sources) == 1 {
		label = "patch"
	}
	name := "Private memory"
	if p.Kind == memory.KindGlobal {
		name = "Global memory"
	}
	return fmt.Sprintf("- **%s** (%d source %s, %d hunks): targets %s (latest extract: %s)",
		name, len(p.Sources), label, len(p.Entries), strings.Join(targets, ", "), p.Latest.Format("1/2/2006"))
}

// patchDiffs shows each kind's changes, as 0.61's inbox dialog shows
// them before the user picks: an editor has no dialog, so the list does.
func patchDiffs(patches []memory.MemoryPatches) string {
	var b strings.Builder
	for i, p := range patches {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%s (%s):\n```diff\n", p.Kind, strings.Join(p.Sources, ", "))
		for _, e := range p.Entries {
			b.WriteString(e.Diff + "\n")
		}
		b.WriteString("```")
	}
	return b.String()
}

// inboxArgs are apply's and dismiss's: a kind, and a patch of it or the
// kind again for all of them (0.61's relativePath).
func inboxArgs(sub, args string) (kind, rel string, err error) {
	fields := strings.Fields(args)
	if len(fields) == 0 || len(fields) > 2 {
		return "", "", subUsage("memory inbox", sub, "<private|global> [patch]", "name the patches' kind, and a patch or none for all")
	}
	kind, rel = fields[0], fields[0]
	if len(fields) == 2 {
		rel = fields[1]
	}
	return kind, rel, nil
}

func applyInbox(ctx context.Context, env Env, args string) (Reply, error) {
	return actOnInbox(ctx, env, "apply", args, memory.Inbox.Apply)
}

func dismissInbox(ctx context.Context, env Env, args string) (Reply, error) {
	if name, ok := strings.CutPrefix(strings.TrimSpace(args), "skill "); ok {
		in, off := inbox(env)
		if off != "" {
			return Reply{Text: off}, nil
		}
		msg, err := in.DismissSkill(strings.TrimSpace(name))
		if err != nil {
			return Reply{}, err
		}
		return Reply{Text: msg}, nil
	}
	return actOnInbox(ctx, env, "dismiss", args, memory.Inbox.Dismiss)
}

// moveInboxSkill moves an extracted skill where 0.61's inbox dialog does
// (~/.gemini/skills, or the project's .gemini/skills), and finds the
// skills again so that the next request offers it.
func moveInboxSkill(_ context.Context, env Env, args string) (Reply, error) {
	in, off := inbox(env)
	if off != "" {
		return Reply{Text: off}, nil
	}
	fields := strings.Fields(args)
	if len(fields) != 2 || (fields[1] != "global" && fields[1] != "project") {
		return Reply{}, subUsage("memory inbox", "move", "<skill> <global|project>", "name the skill and where it goes")
	}
	dir, label := configfiles.Skills(env.Root)[0], ".gemini/skills"
	if fields[1] == "global" {
		user := settings.UserDir(env.Built.Getenv)
		if user == "" {
			return Reply{}, errors.New("there is no home directory, so there are no global skills to move the skill to")
		}
		dir, label = filepath.Join(user, "skills"), "~/.gemini/skills"
	}
	msg, err := in.MoveSkill(fields[0], dir, label)
	if err != nil {
		return Reply{}, err
	}
	if _, err := env.Built.ReloadSkills(); err != nil {
		return Reply{}, fmt.Errorf("%s But the skills could not be reloaded: %w", msg, err)
	}
	return Reply{Text: msg}, nil
}

func actOnInbox(ctx context.Context, env Env, sub, args string, act func(memory.Inbox, context.Context, string, string) (string, error)) (Reply, error) {
	in, off := inbox(env)
	if off != "" {
		return Reply{Text: off}, nil
	}
	kind, rel, err := inboxArgs(sub, args)
	if err != nil {
		return Reply{}, err
	}
	msg, err := act(in, ctx, kind, rel)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Text: msg}, nil
}
