package builtin

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
)

// hooksNotRead is why an Antigravity hooks.json is not read: public
// sources describe its shape, not what a hook is given on its input and
// what its answer does, so running one would be a guess.
const hooksNotRead = "not read: Antigravity's hook contract (what a hook is given and what its answer does) has no public documentation to check it against"

// antigravityFiles is /about's list of the Antigravity CLI files found,
// each with what was read of it and what was not, and why; "" when there
// are none.
func antigravityFiles(ctx context.Context, env Env) string {
	var lines []string
	for _, f := range env.Built.Settings.AntigravityFiles() {
		state := "not read"
		if f.Read {
			state = "read"
		}
		lines = append(lines, fmt.Sprintf("  - %s (MCP servers): %s; %s", f.Path, state, strings.Join(f.Detail, "; ")))
	}
	for _, r := range env.Built.Memory().RulesReport(ctx) {
		if r.Read {
			lines = append(lines, fmt.Sprintf("  - %s (rule): read as context", r.Path))
		} else {
			lines = append(lines, fmt.Sprintf("  - %s (rule): not read: %s", r.Path, r.Why))
		}
	}
	for _, root := range env.Built.Workspace().Roots() {
		if p := configfiles.AgentsHooks(root); exists(p) {
			lines = append(lines, fmt.Sprintf("  - %s (hooks): %s", p, hooksNotRead))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n- Antigravity CLI's files:\n" + strings.Join(lines, "\n")
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
