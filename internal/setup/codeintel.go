package setup

import (
	"context"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// langServersShutdown bounds the wait for the language servers gemini-ls
// started to shut down when the build closes.
const langServersShutdown = 3 * time.Second

// codeIntel is what answers navigate_code and rename_symbol: the
// editor's own language servers first (Options.CodeIntel), then those
// gemini-ls starts itself (langclient), which it does only in a trusted
// folder: a server runs the project's tools (gopls its go command, which
// may fetch the toolchain go.mod names). nil, leaving both tools out,
// when settings turn them off (codeIntelligence.enabled) or nothing can
// answer: no editor that does, no server on PATH.
func (b *Built) codeIntel(set settings.Settings) codeintel.Provider {
	if !set.CodeIntelligence.On() {
		return nil
	}
	var self codeintel.Provider
	if b.NotTrusted() == nil {
		m := langclient.New(b.opts.Workspace, languageServers(set.CodeIntelligence.Servers), b.Door, b.opts.Logger)
		if m.Available() {
			b.langServers, self = m, m
		}
	}
	return codeintel.Chain(b.opts.CodeIntel, self)
}

// editDiagnostics tells the agent the errors its edits bring: the
// editor's, else those of the language servers gemini-ls started (only
// ever ones already running: an edit starts none).
func (b *Built) editDiagnostics() dialog.DiagnosticsReader {
	if b.opts.Diagnostics != nil || b.langServers == nil {
		return b.opts.Diagnostics
	}
	return b.langServers.EditDiagnostics()
}

// closeLangServers shuts down the language servers gemini-ls started.
func (b *Built) closeLangServers() {
	if b.langServers == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), langServersShutdown)
	defer cancel()
	if err := b.langServers.Close(ctx); err != nil {
		b.opts.Logger.Debug("closing the language servers: " + err.Error())
	}
}

// languageServers is codeIntelligence.servers as langclient takes them.
func languageServers(in map[string]settings.LanguageServer) map[string]langclient.ServerConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]langclient.ServerConfig, len(in))
	for name, s := range in {
		out[name] = langclient.ServerConfig{Cmd: s.Cmd, Filetypes: s.Filetypes, RootMarkers: s.RootMarkers, Enabled: s.Enabled}
	}
	return out
}

// landed tells of each file a landing changed those who must know: the
// language servers gemini-ls started, so that their next answers count
// in the agent's edits (langclient.Manager.Changed), and the sandbox,
// which then leaves a .env the user let the agent write where it is
// (Sandbox.Approve); nil when there is nobody to tell.
func (b *Built) landed() func(ctx context.Context, paths []string) {
	if b.langServers == nil && !b.Sandbox.Enabled() {
		return nil
	}
	servers, box := b.langServers, b.Sandbox
	return func(ctx context.Context, paths []string) {
		box.Approve(paths...)
		if servers != nil {
			// What the servers make of it is theirs; an edit never fails for it.
			_ = servers.Changed(ctx, paths)
		}
	}
}
