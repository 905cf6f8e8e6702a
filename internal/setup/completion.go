package setup

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/completion"
)

// projectContextWait bounds reading the context files for completion's
// prompts; they are read once.
const projectContextWait = 2 * time.Second

// Completion is what completion asks the model with: the agent's sign-in,
// the inlineCompletion settings and the context files (GEMINI.md), read
// once, on the first request that wants them.
func (b *Built) Completion() completion.Backend {
	out := completion.Backend{Settings: b.Settings.InlineCompletion, Err: b.AuthErr}
	if b.generator != nil {
		out.Model = b.generator
	}
	if b.memory != nil {
		mem := b.memory
		out.Project = sync.OnceValue(func() string {
			ctx, cancel := context.WithTimeout(context.Background(), projectContextWait)
			defer cancel()
			text, _ := mem.SystemMemory(ctx)
			return text
		})
	}
	return out
}

// completionStats is the front end's completion counts, for /stats; a
// Built has it only where the front end completes code (the LSP).
type completionStats = atomic.Pointer[func() completion.Stats]

// ReportCompletion makes stats what /stats shows of completion.
func (b *Built) ReportCompletion(stats func() completion.Stats) {
	b.completionStats.Store(&stats)
}

// CompletionStats are the completion counts of the front end the agent
// serves, and whether it completes code at all.
func (b *Built) CompletionStats() (completion.Stats, bool) {
	f := b.completionStats.Load()
	if f == nil {
		return completion.Stats{}, false
	}
	return (*f)(), true
}
