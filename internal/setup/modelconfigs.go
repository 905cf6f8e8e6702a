package setup

import (
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/modelconfig"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// modelConfigs is the settings' modelConfigs as the agent resolves its
// model through them; nil when the settings have none. What cannot be
// used (an alias or override that cannot be read, a chain that loops, a
// key that is no field of a request) is warned of now, once, for the
// model chosen at start.
func (b *Built) modelConfigs(set settings.Settings) *modelconfig.Set {
	mc := set.ModelConfigs
	if len(mc.Aliases) == 0 && len(mc.CustomAliases) == 0 && len(mc.Overrides) == 0 && len(mc.CustomOverrides) == 0 {
		return nil
	}
	s, err := modelconfig.FromSettings(mc.Aliases, mc.CustomAliases, mc.Overrides, mc.CustomOverrides)
	if err != nil {
		b.opts.Warn("part of modelConfigs is not used", err)
	}
	if s == nil {
		return nil
	}
	if err := checkModelConfig(s, models.Resolve(b.Model)); err != nil {
		b.opts.Warn("modelConfigs", err)
	}
	return s
}

// checkModelConfig resolves model as a conversation request would, and
// says what of its config would fail or not be sent.
func checkModelConfig(s *modelconfig.Set, model string) error {
	r, err := s.Resolve(modelconfig.Key{Model: model, IsChatModel: true})
	if err != nil {
		return fmt.Errorf("the model %q cannot be used: %w", model, err)
	}
	if !r.Set {
		return nil
	}
	_, unknown, err := modelconfig.Over(nil, r.GenerateContentConfig)
	if err != nil {
		return fmt.Errorf("the model %q cannot be used: %w", model, err)
	}
	if len(unknown) > 0 {
		return fmt.Errorf("the generateContentConfig of %q has %s, which gemini-ls does not send", model, strings.Join(unknown, ", "))
	}
	return nil
}
