package setup

import (
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// ignoreFiles are the ignore files context.fileFiltering has count.
func ignoreFiles(f settings.FileFiltering) workspace.IgnoreFiles {
	return workspace.IgnoreFiles{
		SkipGit:    !f.RespectsGitIgnore(),
		SkipGemini: !f.RespectsGeminiIgnore(),
		Custom:     f.CustomIgnoreFilePaths,
	}
}
