package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// substitute fills the variables 0.61 fills in a GEMINI_SYSTEM_MD file
// (applySubstitutions), in its order: ${AgentSkills} and ${SubAgents}
// with their whole sections, ${AvailableTools} with the tools' names as
// a list, and ${<tool>_ToolName} with the tool's name.
func (a *Agent) substitute(prompt string) string {
	prompt = strings.ReplaceAll(prompt, "${AgentSkills}", a.skillsPrompt())
	prompt = strings.ReplaceAll(prompt, "${SubAgents}", a.subagentsPrompt())
	names := a.toolNames()
	list := "No tools are currently available."
	if len(names) > 0 {
		list = "- " + strings.Join(names, "\n- ")
	}
	prompt = strings.ReplaceAll(prompt, "${AvailableTools}", list)
	for _, name := range names {
		prompt = strings.ReplaceAll(prompt, "${"+name+"_ToolName}", name)
	}
	return prompt
}

// toolNames are the names of the tools the model is offered.
func (a *Agent) toolNames() []string {
	if a.cfg.Tools == nil {
		return nil
	}
	decls := a.cfg.Tools.Declarations()
	names := make([]string, 0, len(decls))
	for _, d := range decls {
		names = append(names, d.Name)
	}
	return names
}

// writeSystemPrompt writes system to path, making its directory, as 0.61
// does for GEMINI_WRITE_SYSTEM_MD.
func writeSystemPrompt(path, system string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("making the directory of %s: %w", path, err)
	}
	return safefile.Write(path, []byte(system))
}
