package agent

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// memoryFilesSection tells the model where each kind of fact is kept, in
// Gemini CLI 0.61's words (snippets.ts, toolUsageRememberingFacts, as it
// tells Gemini 3 models), a section here where 0.61 has a bullet of its
// tool usage: 0.61 has no save_memory tool, the model edits the files
// itself. editTools
// are the declared tools that can edit ("" when none: the section would
// ask for what the model cannot do); privateIndex and globalFile the
// private MEMORY.md and the global GEMINI.md, each bullet left out
// without its path, as 0.61 leaves it out.
func memoryFilesSection(editTools []string, privateIndex, globalFile string) string {
	if len(editTools) == 0 {
		return ""
	}
	quoted := make([]string, len(editTools))
	for i, name := range editTools {
		quoted[i] = "`" + name + "`"
	}
	var b strings.Builder
	b.WriteString("# Instruction and Memory Files\n")
	b.WriteString("You persist long-lived project context by editing markdown files directly with " + strings.Join(quoted, " or ") +
		". There is no `save_memory` tool. The current contents of all loaded `GEMINI.md` files and the private project `MEMORY.md` index are already in your context — do not re-read them before editing.\n")
	b.WriteString("- **Project Instructions** (`./GEMINI.md`): Team-shared architecture, conventions, workflows, and other repo guidance. **Committed to the repo and shared with the team.**\n")
	b.WriteString("- **Subdirectory Instructions** (e.g. `./src/GEMINI.md`): Scoped instructions for one part of the project. Reference them from `./GEMINI.md` so they remain discoverable.\n")
	if privateIndex != "" {
		b.WriteString("- **Private Project Memory** (`" + promptPath(privateIndex) + "`): Personal-to-the-user, project-specific notes that must **NOT** be committed to the repo. Keep this file concise: it is the private index for this workspace. Store richer detail in sibling `*.md` files in the same folder and use `MEMORY.md` to point to them.\n")
	}
	if globalFile != "" {
		b.WriteString("- **Global Personal Memory** (`" + promptPath(globalFile) + "`): Cross-project personal preferences and facts about the user that should follow them into every workspace (e.g. preferred testing framework across all projects, language preferences, coding-style defaults). Loaded automatically in every session. Keep entries concise and durable — never workspace-specific.\n")
	}
	b.WriteString("**Routing rules — pick exactly one tier per fact:**\n")
	b.WriteString("- When the user states a **team-shared convention, architecture rule, or repo-wide workflow** (\"our project uses X\", \"the team always Y\", \"for this repo, always Z\"), update the relevant `GEMINI.md` file. Do **not** also write it into the private memory folder or the global personal memory file.\n")
	b.WriteString("- When the user states a **personal-to-them local setup, machine-specific note, or private workflow** for this codebase (\"on my machine\", \"my local setup\", \"do not commit this\"), save it under the private project memory folder. Do **not** also write it into a `GEMINI.md` file or the global personal memory file.\n")
	if globalFile != "" {
		b.WriteString("- When the user states a **cross-project personal preference** that should follow them into every workspace (\"I always prefer X\", \"across all my projects\", \"my personal coding style is Y\", \"in general I like Z\"), update the global personal memory file. Do **not** also write it into a `GEMINI.md` file or the private memory folder.\n")
	}
	b.WriteString("- If a fact could plausibly belong to more than one tier, **ask the user** which tier they want before writing.\n")
	b.WriteString("**Never duplicate or mirror the same fact across tiers** — each fact lives in exactly one file across all four tiers (project `GEMINI.md`, subdirectory `GEMINI.md`, private project memory, global personal memory). Do not add cross-references between any of them.\n")
	b.WriteString("**Inside the private memory folder:** `MEMORY.md` is the index for its sibling `*.md` notes **in that same folder only** — never use it to point at, summarize, or duplicate content from any `GEMINI.md` file. For brief facts, write the entry directly into `MEMORY.md`. When a note has substantial detail (multiple sections, procedures, or fields), put the detail in a sibling `*.md` file in the same folder and add a one-line pointer entry in `MEMORY.md`.\n")
	b.WriteString("Never save transient session state, summaries of code changes, bug fixes, or task-specific findings — these files are loaded into every session and must stay lean.")
	return b.String()
}

// promptPath is a path as 0.61's prompt writes it (normalizePromptPath):
// with forward slashes.
func promptPath(path string) string { return strings.ReplaceAll(path, `\`, "/") }

// memoryEditTools are the declared tools memoryFilesSection may name, in
// 0.61's order.
func (a *Agent) memoryEditTools() []string {
	var names []string
	for _, name := range []string{tools.ReplaceName, tools.WriteFileName} {
		if a.declares(name) {
			names = append(names, name)
		}
	}
	return names
}

// memorySection is memoryFilesSection for this agent now: "" without a
// memory.
func (a *Agent) memorySection() string {
	if a.cfg.Memory == nil {
		return ""
	}
	return memoryFilesSection(a.memoryEditTools(), a.cfg.Memory.PrivateIndex(), a.cfg.Memory.GlobalFile())
}
