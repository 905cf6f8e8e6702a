package settings

// CodeIntelligence is gemini-ls's own "codeIntelligence" object: the
// language servers navigate_code and rename_symbol ask where the editor
// does not answer (package codeintel). Gemini CLI has no such key.
type CodeIntelligence struct {
	// Enabled offers the tools; on unless false.
	Enabled *bool `json:"enabled"`
	// Servers add language servers or change the built-in ones of the
	// same name (gopls, pyright…), in the shape nvim-lspconfig's users
	// write (vim.lsp.config): the command, the languages, the files that
	// mark a project's root.
	Servers map[string]LanguageServer `json:"servers"`
}

// LanguageServer is one of CodeIntelligence.Servers.
type LanguageServer struct {
	// Cmd is the command and its arguments; empty keeps the built-in's.
	Cmd []string `json:"cmd"`
	// Filetypes are the LSP language ids it serves ("go", "python").
	Filetypes []string `json:"filetypes"`
	// RootMarkers are the files or directories whose nearest directory
	// is the project's root ("go.mod", ".git").
	RootMarkers []string `json:"root_markers"`
	// Enabled, false, turns the server off.
	Enabled *bool `json:"enabled"`
}

// On reports whether the tools are offered.
func (c CodeIntelligence) On() bool { return c.Enabled == nil || *c.Enabled }
