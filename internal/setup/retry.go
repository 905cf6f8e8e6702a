package setup

import (
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// retryPolicy is the front end's retry policy with general.maxAttempts
// and general.retryFetchErrors applied, as Gemini CLI 0.61 reads them
// (settings.General.RetryAttempts); a bad maxAttempts is warned of.
func (b *Built) retryPolicy(set settings.Settings) dialog.RetryPolicy {
	p := b.opts.Retry
	attempts, err := set.General.RetryAttempts()
	if err != nil {
		b.opts.Warn("part of the settings is not used", err)
	}
	if set.General.MaxAttempts != nil || p.MaxAttempts <= 0 {
		p.MaxAttempts = attempts
	}
	if f := set.General.RetryFetchErrors; f != nil && !*f {
		p.NoFetchErrorRetry = true
	}
	return p
}
