package agent

import (
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/modelconfig"
)

// configured is the model a conversation request for model goes to and
// the request it sends, as the settings' modelConfigs make them (0.61's
// applyModelSelection with isChatModel): an alias's model and generation
// config, and the overrides that match, laid over the agent's own
// config. Unchanged when the settings have no say in it (only the
// built-in configs resolve it: gemini-ls keeps its own). A subagent's
// request is resolved as 0.61 resolves it (LocalAgentExecutor.callModel):
// not as a chat model, with its name as the overrideScope. retry: the
// request asks again for an answer that broke off (an override's
// isRetry).
func (t *turn) configured(model string, req modelRequest, retry bool) (string, modelRequest, error) {
	set := t.s.agent.cfg.ModelConfigs
	if set == nil {
		return model, req, nil
	}
	r, err := set.Resolve(modelconfig.Key{Model: model, IsChatModel: t.main == nil, OverrideScope: t.scope, IsRetry: retry})
	if err != nil {
		return model, req, fmt.Errorf("resolving %q through modelConfigs: %w", model, err)
	}
	if !r.Set {
		return model, req, nil
	}
	// Keys that are no field of a request were named at start-up.
	cfg, _, err := modelconfig.Over(req.config, r.GenerateContentConfig)
	if err != nil {
		return model, req, fmt.Errorf("the modelConfigs config of %q: %w", model, err)
	}
	req.config = cfg
	return r.Model, req, nil
}
