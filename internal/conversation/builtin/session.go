package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// compress summarises the older history now. It is the one built-in
// besides /init that calls the model: the summary is the model's.
func compress(ctx context.Context, env Env, _ string) (Reply, error) {
	info, err := env.Session.Compress(ctx)
	switch {
	case ctx.Err() != nil:
		return Reply{}, ctx.Err()
	case errors.Is(err, agent.ErrNothingToCompress):
		return Reply{Text: "Nothing to compress yet: " + strings.TrimPrefix(err.Error(), "nothing to compress: ") + "."}, nil
	case err != nil && info.After == 0:
		return Reply{}, fmt.Errorf("the history was not compressed: %w", err)
	case err != nil:
		return Reply{}, fmt.Errorf("the history was compressed from %d to %d tokens, but %w", info.Before, info.After, err)
	}
	return Reply{Text: fmt.Sprintf("The history was compressed from %d to %d tokens.", info.Before, info.After)}, nil
}

// clearConversation empties the conversation in place, as Gemini CLI's
// /clear does, keeping the session's id.
func clearConversation(ctx context.Context, env Env, _ string) (Reply, error) {
	if err := env.Session.Clear(ctx); err != nil {
		return Reply{}, fmt.Errorf("the conversation was not cleared: %w", err)
	}
	return Reply{Text: "The conversation was cleared: the next prompt starts afresh."}, nil
}

// initProject has the model write a GEMINI.md for the project, unless
// the root has one, as Gemini CLI's /init does. The model writes it with
// write_file, so it is confirmed as any edit is (Gemini CLI creates the
// file empty first; nothing reaches a file unconfirmed here).
func initProject(_ context.Context, env Env, _ string) (Reply, error) {
	if _, err := os.Lstat(filepath.Join(env.Root, "GEMINI.md")); err == nil {
		return Reply{Text: "A GEMINI.md file already exists in this directory. No changes were made."}, nil
	}
	return Reply{Input: &dialog.Input{Text: initPrompt}}, nil
}

// initPrompt is Gemini CLI's /init prompt (packages/core/src/commands/init.ts).
const initPrompt = `
You are an AI agent that brings the power of Gemini directly into the terminal. Your task is to analyze the current directory and generate a comprehensive GEMINI.md file to be used as instructional context for future interactions.

**Analysis Process:**

1.  **Initial Exploration:**
    *   Start by listing the files and directories to get a high-level overview of the structure.
    *   Read the README file (e.g., ` + "`README.md`, `README.txt`" + `) if it exists. This is often the best place to start.

2.  **Iterative Deep Dive (up to 10 files):**
    *   Based on your initial findings, select a few files that seem most important (e.g., configuration files, main source files, documentation).
    *   Read them. As you learn more, refine your understanding and decide which files to read next. You don't need to decide all 10 files at once. Let your discoveries guide your exploration.

3.  **Identify Project Type:**
    *   **Code Project:** Look for clues like ` + "`package.json`, `requirements.txt`, `pom.xml`, `go.mod`, `Cargo.toml`, `build.gradle`, or a `src`" + ` directory. If you find them, this is likely a software project.
    *   **Non-Code Project:** If you don't find code-related files, this might be a directory for documentation, research papers, notes, or something else.

**GEMINI.md Content Generation:**

**For a Code Project:**

*   **Project Overview:** Write a clear and concise summary of the project's purpose, main technologies, and architecture.
*   **Building and Running:** Document the key commands for building, running, and testing the project. Infer these from the files you've read (e.g., ` + "`scripts` in `package.json`, `Makefile`" + `, etc.). If you can't find explicit commands, provide a placeholder with a TODO.
*   **Development Conventions:** Describe any coding styles, testing practices, or contribution guidelines you can infer from the codebase.

**For a Non-Code Project:**

*   **Directory Overview:** Describe the purpose and contents of the directory. What is it for? What kind of information does it hold?
*   **Key Files:** List the most important files and briefly explain what they contain.
*   **Usage:** Explain how the contents of this directory are intended to be used.

**Final Output:**

Write the complete content to the ` + "`GEMINI.md`" + ` file. The output must be well-formatted Markdown.
`
