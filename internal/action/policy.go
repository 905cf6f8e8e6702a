package action

import (
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// refusedWorkflows is what the agent is told when it tries to change
// the workflows.
const refusedWorkflows = "gemini-ls action does not let the agent change .github/workflows: a workflow runs with the repository's secrets, so its changes are a person's to make."

// denyWorkflows is the admin policy the agent runs under: its edits of
// .github/workflows (in any case, either slash) are denied, and so are
// shell commands that name the directory. The policy is a courtesy, told
// to the model when it tries: what guarantees the workflows are not
// changed is the commit, which leaves them out (Run).
func denyWorkflows() string {
	path := `(?i)"file_path":"[^"]*\.github(/|\\\\)+workflows(/|\\\\|")`
	var b strings.Builder
	for _, tool := range []string{tools.WriteFileName, tools.ReplaceName} {
		fmt.Fprintf(&b, "[[rule]]\ntoolName = %q\nargsPattern = '%s'\ndecision = \"deny\"\npriority = 999\ndeny_message = %q\n\n", tool, path, refusedWorkflows)
	}
	fmt.Fprintf(&b, "[[rule]]\ntoolName = %q\nargsPattern = '(?i)\\.github(/|\\\\\\\\)+workflows'\ndecision = \"deny\"\npriority = 999\ndeny_message = %q\n", tools.ShellName, refusedWorkflows)
	return b.String()
}
