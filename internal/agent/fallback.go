package agent

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// FallbackMode says whether the agent switches from a Pro model that is
// out of quota to the fallback model (Config.FallbackModel).
type FallbackMode string

const (
	// FallbackAsk asks the user through the prompt's port. Where nobody
	// can be asked (no port, or it returns ErrCannotAsk) the model is kept,
	// as Gemini CLI keeps it when not interactive. The default.
	FallbackAsk FallbackMode = "ask"
	// FallbackAlways switches without asking, and says so.
	FallbackAlways FallbackMode = "always"
	// FallbackNever keeps the model and never asks.
	FallbackNever FallbackMode = "never"
)

// modelSwitch is the agent's model once it fell back: one for every
// session, as Gemini CLI switches its whole config.
type modelSwitch struct {
	mu     sync.Mutex
	model  string // "" until the agent falls back
	notice string
	told   map[string]bool // the sessions that were told
}

// SetModel makes model the one every session's next request goes to, as
// when the user changes model.name; it ends a fallback.
func (a *Agent) SetModel(model string) {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	if model == "" {
		model = DefaultModel
	}
	a.cfg.Model = model // guarded by fallback.mu after New
	a.fallback.model, a.fallback.notice = "", ""
	a.fallback.told = nil
}

// Model is the concrete model requests go to now when not routed: the
// fallback model once the agent fell back, else what the configured model
// resolves to (models.Resolve; an auto's model when its classifier gives
// no answer).
func (a *Agent) Model() string { return a.activeModel() }

// ModelSetting is the model as configured: an alias (auto, pro, ...) or a
// concrete model.
func (a *Agent) ModelSetting() string { return a.configuredModel() }

// activeModel is the model requests go to now when not routed.
func (a *Agent) activeModel() string {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	if a.fallback.model != "" {
		return a.fallback.model
	}
	return models.Resolve(a.cfg.Model)
}

// configuredModel is Config.Model as set (or SetModel changed it).
func (a *Agent) configuredModel() string {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	return a.cfg.Model
}

// fellBack is the fallback model once the agent fell back, else "".
func (a *Agent) fellBack() string {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	return a.fallback.model
}

// model is the model the prompt's requests go to: the fallback model once
// the agent fell back, else the one the prompt was routed to, else the
// agent's.
func (t *turn) model() string {
	if m := t.s.agent.fellBack(); m != "" {
		return m
	}
	if t.routed != "" {
		return t.routed
	}
	return t.s.agent.activeModel()
}

// fallbackModel is where model falls back to: Config.FallbackModel when
// set, else the next in Gemini CLI 0.61's chain (models.Fallback); "" for
// none.
func (a *Agent) fallbackModel(model string) string {
	if a.cfg.FallbackModel != "" {
		return a.cfg.FallbackModel
	}
	return models.Fallback(a.configuredModel(), model)
}

// switchModel makes every later request go to model.
func (a *Agent) switchModel(model, notice string) {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	if a.fallback.model == "" {
		a.fallback.model, a.fallback.notice = model, notice
	}
}

// fallbackNotice returns, once per session, what the session's user must
// be told of a switch to the fallback model.
func (a *Agent) fallbackNotice(sessionID string) (string, bool) {
	a.fallback.mu.Lock()
	defer a.fallback.mu.Unlock()
	if a.fallback.model == "" || a.fallback.told[sessionID] {
		return "", false
	}
	if a.fallback.told == nil {
		a.fallback.told = make(map[string]bool)
	}
	a.fallback.told[sessionID] = true
	return a.fallback.notice, true
}

// isProModel reports whether model is a Pro model, as Gemini CLI's
// isProModel does: by name.
func isProModel(model string) bool {
	return strings.Contains(strings.ToLower(model), "pro")
}

// fallBack offers the fallback model after model failed with cause, a
// quota error, for the reason why. It reports whether requests now go to
// another model; it returns an error when the prompt must stop (the user
// declined, or cancelled while being asked).
func (t *turn) fallBack(model, why string, cause error) (bool, error) {
	a := t.s.agent
	to := a.fallbackModel(model)
	if current := t.model(); current != model {
		return true, nil // another session switched meanwhile
	}
	if to == "" || !isProModel(model) || model == to {
		return false, nil
	}
	switch a.cfg.Fallback {
	case FallbackNever:
		return false, nil
	case FallbackAlways:
	default:
		outcome, err := t.s.ask(t.ctx, t.port, dialog.ConfirmRequest{
			Kind:  dialog.ConfirmModelFallback,
			Title: fmt.Sprintf("Switch to %s?", to),
			Details: fmt.Sprintf("%s. Switch to %s for the rest of this session and try again? Otherwise this prompt stops.",
				why, to),
		})
		switch {
		case t.ctx.Err() != nil:
			return false, t.ctx.Err()
		case errors.Is(err, dialog.ErrCannotAsk), errors.Is(err, errNoConfirmer):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("asking the user whether to switch to %s: %w", to, err)
		case outcome != dialog.ProceedOnce && outcome != dialog.ProceedAlways:
			return false, cause
		}
	}
	a.switchModel(to, fmt.Sprintf("Switched to %s for the rest of this session because %s.", to, why))
	return true, nil
}
