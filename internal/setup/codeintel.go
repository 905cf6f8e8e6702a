package setup

import (
	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// codeIntel is what answers navigate_code and rename_symbol: the
// editor's own language servers first (Config.CodeIntel); nil, leaving
// both tools out, when settings turn them off (codeIntelligence.enabled)
// or nothing can answer.
func (b *Built) codeIntel(set settings.Settings) codeintel.Provider {
	if !set.CodeIntelligence.On() {
		return nil
	}
	return codeintel.Chain(b.opts.CodeIntel)
}
