package settings

// Agents is the "agents" object: what the user changes of the subagents
// (package agents) by name.
type Agents struct {
	// Overrides change an agent by name, as Gemini CLI 0.61's
	// AgentRegistry applies them (applyOverrides): Enabled turns it on
	// or off; ModelConfig and RunConfig go over its own; Tools replaces
	// its tool list.
	Overrides map[string]AgentOverride `json:"overrides"`
}

// AgentOverride is one agent's entry in agents.overrides.
type AgentOverride struct {
	Enabled     *bool             `json:"enabled"`
	ModelConfig *AgentModelConfig `json:"modelConfig"`
	RunConfig   *AgentRunConfig   `json:"runConfig"`
	Tools       []string          `json:"tools"`
}

// AgentModelConfig is an override's modelConfig.
type AgentModelConfig struct {
	Model                 string                 `json:"model"`
	GenerateContentConfig *AgentGenerationConfig `json:"generateContentConfig"`
}

// AgentGenerationConfig is the part of generateContentConfig an agent's
// definition holds.
type AgentGenerationConfig struct {
	Temperature    *float64             `json:"temperature"`
	TopP           *float64             `json:"topP"`
	ThinkingConfig *AgentThinkingConfig `json:"thinkingConfig"`
}

// AgentThinkingConfig is generateContentConfig.thinkingConfig.
type AgentThinkingConfig struct {
	IncludeThoughts *bool  `json:"includeThoughts"`
	ThinkingBudget  *int32 `json:"thinkingBudget"`
	ThinkingLevel   string `json:"thinkingLevel"`
}

// AgentRunConfig is an override's runConfig.
type AgentRunConfig struct {
	MaxTurns       *int     `json:"maxTurns"`
	MaxTimeMinutes *float64 `json:"maxTimeMinutes"`
}

// migrateAgentSettings moves a file's experimental.codebaseInvestigatorSettings
// and experimental.cliHelpAgentSettings into agents.overrides, as Gemini
// CLI 0.61's migrateExperimentalSettings does for each file
// (chunk-2YTYPKEZ.js:16905): the old keys' values win over what the
// file's agents.overrides says of the same agent.
func migrateAgentSettings(obj map[string]any) {
	exp, ok := obj["experimental"].(map[string]any)
	if !ok {
		return
	}
	ci, hasCI := exp["codebaseInvestigatorSettings"].(map[string]any)
	help, hasHelp := exp["cliHelpAgentSettings"].(map[string]any)
	if !hasCI && !hasHelp {
		return
	}
	agents := toMap(obj["agents"])
	if agents == nil {
		agents = map[string]any{}
	}
	overrides := toMap(agents["overrides"])
	if overrides == nil {
		overrides = map[string]any{}
	}
	if hasCI {
		o := copyMap(toMap(overrides["codebase_investigator"]))
		if v, ok := ci["enabled"]; ok {
			o["enabled"] = v
		}
		run := copyMap(toMap(o["runConfig"]))
		if v, ok := ci["maxNumTurns"]; ok {
			run["maxTurns"] = v
		}
		if v, ok := ci["maxTimeMinutes"]; ok {
			run["maxTimeMinutes"] = v
		}
		if len(run) > 0 {
			o["runConfig"] = run
		}
		_, hasModel := ci["model"]
		budget, hasBudget := ci["thinkingBudget"]
		if hasModel || hasBudget {
			mc := copyMap(toMap(o["modelConfig"]))
			if hasModel {
				mc["model"] = ci["model"]
			}
			if hasBudget {
				gc := copyMap(toMap(mc["generateContentConfig"]))
				tc := copyMap(toMap(gc["thinkingConfig"]))
				tc["thinkingBudget"] = budget
				gc["thinkingConfig"] = tc
				mc["generateContentConfig"] = gc
			}
			o["modelConfig"] = mc
		}
		overrides["codebase_investigator"] = o
	}
	if hasHelp {
		o := copyMap(toMap(overrides["cli_help"]))
		if v, ok := help["enabled"]; ok {
			o["enabled"] = v
		}
		overrides["cli_help"] = o
	}
	agents["overrides"] = overrides
	obj["agents"] = agents
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
