package builtin

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"strings"

	geminils "github.com/gemini-ls/gemini-ls"
)

// geminiCLIDocsURL is where Gemini CLI 0.61's /docs sends its user.
const geminiCLIDocsURL = "https://goo.gle/gemini-cli-docs"

// docs is Gemini CLI 0.61's /docs, which opens its documentation in a
// browser: there is none to open here, so it names gemini-ls's own, which
// the binary carries (geminils.Docs), each with its title.
func docs(_ context.Context, env Env, _ string) (Reply, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "gemini-ls's documentation is README.md and docs/*.md in its repository; this gemini-ls (%s) carries them:\n", orUnknown(env.Version))
	err := fs.WalkDir(geminils.Docs(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fmt.Fprintf(&b, "- `%s`", path)
		if title := docTitle(geminils.Docs(), path); title != "" {
			b.WriteString(" — " + title)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		return Reply{}, fmt.Errorf("listing the documentation: %w", err)
	}
	b.WriteString("\nThe `cli_help` subagent answers questions about gemini-ls from them: name `@cli_help` in a prompt. ")
	fmt.Fprintf(&b, "Gemini CLI's documentation, whose behaviour gemini-ls follows: %s", geminiCLIDocsURL)
	return Reply{Text: b.String()}, nil
}

// docTitle is the Markdown file's first heading, "" when it has none.
func docTitle(fsys fs.FS, path string) string {
	f, err := fsys.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if title, ok := strings.CutPrefix(lines.Text(), "# "); ok {
			return strings.TrimSpace(title)
		}
	}
	return ""
}
