package setup

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
)

// Build makes the agent. ctx's values are kept, not its end: what Build
// starts (MCP servers, the discovery command) lasts until Built.Close.
//
// What the roots trusted after a check of the sandboxes' trail bring
// (settings, .env, skills, subagents, policies) is read first, and the
// trail checked again before anything of it runs (settings.Trust.Recheck):
// a root a sandboxed command changed in between is then not trusted,
// and the agent built again without it, the first attempt's warnings
// unsaid (and, for what is said once per process, untold).
func Build(ctx context.Context, o Options) (*Built, error) {
	o = defaults(o)
	var distrust map[string]string
	for {
		attempt := o
		held := &heldWarnings{warn: o.Warn}
		attempt.Warn = held.add
		told := o.Told.mark()
		b, err := build(ctx, attempt, distrust)
		var meanwhile *changedMeanwhile
		if !errors.As(err, &meanwhile) {
			held.flush()
			return b, err
		}
		o.Told.undo(told) // what it told was never said
		// Each attempt trusts fewer roots (Recheck checks only those
		// still trusted after a check), so this ends.
		if distrust == nil {
			distrust = map[string]string{}
		}
		maps.Copy(distrust, meanwhile.roots)
	}
}

// changedMeanwhile is a build given up because a sandboxed command could
// have changed the configuration of the roots (root → what) between the
// check of their trust and its read.
type changedMeanwhile struct{ roots map[string]string }

func (e *changedMeanwhile) Error() string {
	return fmt.Sprintf("the configuration of %d trusted folders changed while it was read", len(e.roots))
}

// heldWarnings keeps a first build's warnings until it is kept: then they
// are said, and those after it said at once.
type heldWarnings struct {
	mu   sync.Mutex
	warn func(string, error)
	held []func()
	said bool
}

func (h *heldWarnings) add(what string, err error) {
	h.mu.Lock()
	if !h.said {
		h.held = append(h.held, func() { h.warn(what, err) })
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	h.warn(what, err)
}

func (h *heldWarnings) flush() {
	h.mu.Lock()
	held := h.held
	h.held, h.said = nil, true
	h.mu.Unlock()
	for _, say := range held {
		say()
	}
}
