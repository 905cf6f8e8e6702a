package settings

// The catalogue of Gemini CLI 0.61's settings keys (settingsSchema.ts, and
// its docs' reference/configuration.md, which unreadKeys reports against),
// each marked with whether gemini-ls reads it. A key whose value is an
// object of free names (mcpServers, modelConfigs.aliases, ui.customThemes)
// is one entry: what is inside it is its own business, except that each
// MCP server's fields are checked against mcpServerFields.

// support says whether gemini-ls reads a key.
type support bool

const (
	implemented    support = true
	notImplemented support = false
)

// schemaKeys is every settings key of Gemini CLI 0.61, and gemini-ls's own
// (model.thinkingBudget), by dotted path.
func schemaKeys() map[string]support {
	return map[string]support{
		// Gemini CLI's pointer to its JSON schema: nothing to read.
		"$schema": implemented,
		// gemini-ls's own.
		"model.thinkingBudget":              implemented,
		"tools.sandboxHooksAndMCPServers":   implemented,
		"experimental.worktreeSetupCommand": implemented,
		"tools.sandboxAllowedSockets":       implemented,
		"inlineCompletion.enabled":          implemented,
		"inlineCompletion.languages":        implemented,
		"inlineCompletion.debounceMs":       implemented,
		"inlineCompletion.model":            implemented,
		"inlineCompletion.exclude":          implemented,
		"inlineCompletion.nextEdit":         implemented,
		"inlineCompletion.completionItems":  implemented,
		"codeIntelligence.enabled":          implemented,
		"codeIntelligence.servers":          implemented, // free names, each a LanguageServer
		// Deprecated spellings Gemini CLI still migrates
		// (migrateDeprecatedSettings); tools.approvalMode gemini-ls
		// migrates too (migrateLegacy), so a file never holds it here.
		"general.disableAutoUpdate":                 notImplemented,
		"general.disableUpdateNag":                  notImplemented,
		"ui.accessibility.disableLoadingPhrases":    notImplemented,
		"context.fileFiltering.disableFuzzySearch":  notImplemented, // enableFuzzySearch's older spelling
		"experimental.codebaseInvestigatorSettings": implemented,
		"experimental.cliHelpAgentSettings":         implemented,
		"tools.approvalMode":                        implemented,

		"policyPaths": implemented,

		"adminPolicyPaths": implemented,

		"general.preferredEditor":               notImplemented,
		"general.openEditorInNewWindow":         notImplemented,
		"general.vimMode":                       notImplemented,
		"general.defaultApprovalMode":           implemented,
		"general.devtools":                      notImplemented,
		"general.enableAutoUpdate":              notImplemented,
		"general.enableAutoUpdateNotification":  notImplemented,
		"general.enableNotifications":           notImplemented,
		"general.notificationMethod":            notImplemented,
		"general.checkpointing.enabled":         implemented,
		"general.plan.enabled":                  implemented,
		"general.plan.directory":                implemented,
		"general.plan.modelRouting":             implemented,
		"general.retryFetchErrors":              implemented,
		"general.maxAttempts":                   implemented,
		"general.debugKeystrokeLogging":         notImplemented,
		"general.topicUpdateNarration":          implemented,
		"general.sessionRetention.enabled":      implemented,
		"general.sessionRetention.maxAge":       implemented,
		"general.sessionRetention.maxCount":     implemented,
		"general.sessionRetention.minRetention": implemented,
		"general.logRagSnippets":                notImplemented,

		"output.format": implemented,

		"ui.debugRainbow":                       notImplemented,
		"ui.theme":                              notImplemented,
		"ui.autoThemeSwitching":                 notImplemented,
		"ui.terminalBackgroundPollingInterval":  notImplemented,
		"ui.customThemes":                       notImplemented,
		"ui.hideWindowTitle":                    notImplemented,
		"ui.inlineThinkingMode":                 notImplemented,
		"ui.showStatusInTitle":                  notImplemented,
		"ui.dynamicWindowTitle":                 notImplemented,
		"ui.showHomeDirectoryWarning":           notImplemented,
		"ui.showCompatibilityWarnings":          notImplemented,
		"ui.hideTips":                           notImplemented,
		"ui.escapePastedAtSymbols":              notImplemented,
		"ui.showShortcutsHint":                  notImplemented,
		"ui.compactToolOutput":                  notImplemented,
		"ui.hideBanner":                         notImplemented,
		"ui.hideContextSummary":                 notImplemented,
		"ui.footer.items":                       notImplemented,
		"ui.footer.showLabels":                  notImplemented,
		"ui.footer.hideCWD":                     notImplemented,
		"ui.footer.hideSandboxStatus":           notImplemented,
		"ui.footer.hideModelInfo":               notImplemented,
		"ui.footer.hideContextPercentage":       notImplemented,
		"ui.hideFooter":                         notImplemented,
		"ui.collapseDrawerDuringApproval":       notImplemented,
		"ui.showMemoryUsage":                    notImplemented,
		"ui.showLineNumbers":                    notImplemented,
		"ui.showCitations":                      notImplemented,
		"ui.showModelInfoInChat":                notImplemented,
		"ui.showUserIdentity":                   notImplemented,
		"ui.useAlternateBuffer":                 notImplemented,
		"ui.renderProcess":                      notImplemented,
		"ui.terminalBuffer":                     notImplemented,
		"ui.useBackgroundColor":                 notImplemented,
		"ui.incrementalRendering":               notImplemented,
		"ui.showSpinner":                        notImplemented,
		"ui.loadingPhrases":                     notImplemented,
		"ui.errorVerbosity":                     notImplemented,
		"ui.customWittyPhrases":                 notImplemented,
		"ui.accessibility.enableLoadingPhrases": notImplemented,
		"ui.accessibility.screenReader":         notImplemented,

		"ide.enabled":      notImplemented,
		"ide.hasSeenNudge": notImplemented,

		"privacy.usageStatisticsEnabled": notImplemented,

		"billing.overageStrategy":            notImplemented,
		"billing.vertexAi.requestType":       notImplemented,
		"billing.vertexAi.sharedRequestType": notImplemented,

		"model.name":                 implemented,
		"model.maxSessionTurns":      implemented,
		"model.summarizeToolOutput":  notImplemented,
		"model.compressionThreshold": implemented,
		"model.disableLoopDetection": implemented,
		"model.skipNextSpeakerCheck": notImplemented,

		"modelConfigs.aliases":                 implemented,
		"modelConfigs.customAliases":           implemented,
		"modelConfigs.customOverrides":         implemented,
		"modelConfigs.overrides":               implemented,
		"modelConfigs.modelDefinitions":        notImplemented,
		"modelConfigs.modelIdResolutions":      notImplemented,
		"modelConfigs.classifierIdResolutions": notImplemented,
		"modelConfigs.modelChains":             notImplemented,

		"agents.overrides":                       implemented,
		"agents.browser.sessionMode":             notImplemented,
		"agents.browser.headless":                notImplemented,
		"agents.browser.profilePath":             notImplemented,
		"agents.browser.visualModel":             notImplemented,
		"agents.browser.allowedDomains":          notImplemented,
		"agents.browser.disableUserInput":        notImplemented,
		"agents.browser.maxActionsPerTask":       notImplemented,
		"agents.browser.confirmSensitiveActions": notImplemented,
		"agents.browser.blockFileUploads":        notImplemented,

		"context.fileName":                                implemented,
		"context.importFormat":                            notImplemented,
		"context.includeDirectoryTree":                    implemented,
		"context.discoveryMaxDirs":                        notImplemented,
		"context.memoryBoundaryMarkers":                   notImplemented,
		"context.includeDirectories":                      implemented,
		"context.loadMemoryFromIncludeDirectories":        implemented,
		"context.fileFiltering.respectGitIgnore":          implemented,
		"context.fileFiltering.respectGeminiIgnore":       implemented,
		"context.fileFiltering.enableRecursiveFileSearch": implemented,
		"context.fileFiltering.customIgnoreFilePaths":     implemented,
		// These two tune 0.61's completion of @paths as the user types
		// them in its own input box (its file watcher, its fuzzy
		// matcher): gemini-ls has no input box, the editor completes.
		"context.fileFiltering.enableFileWatcher": notImplemented,
		"context.fileFiltering.enableFuzzySearch": notImplemented,

		"tools.sandbox":                            implemented,
		"tools.sandboxAllowedPaths":                implemented,
		"tools.sandboxNetworkAccess":               implemented,
		"tools.shell.enableInteractiveShell":       notImplemented,
		"tools.shell.backgroundCompletionBehavior": notImplemented,
		"tools.shell.pager":                        notImplemented,
		"tools.shell.showColor":                    notImplemented,
		"tools.shell.inactivityTimeout":            implemented,
		"tools.shell.enableShellOutputEfficiency":  notImplemented,
		"tools.core":                               implemented,
		"tools.allowed":                            implemented,
		"tools.confirmationRequired":               implemented,
		"tools.exclude":                            implemented,
		"tools.discoveryCommand":                   implemented,
		"tools.callCommand":                        implemented,
		"tools.useRipgrep":                         notImplemented,
		"tools.truncateToolOutputThreshold":        implemented,
		"tools.disableLLMCorrection":               implemented,

		"mcp.serverCommand": notImplemented,
		"mcp.allowed":       implemented,
		"mcp.excluded":      implemented,

		"useWriteTodos": implemented,

		"security.toolSandboxing":                       implemented,
		"security.disableYoloMode":                      implemented,
		"security.disableAlwaysAllow":                   implemented,
		"security.enablePermanentToolApproval":          implemented,
		"security.autoAddToPolicyByDefault":             implemented,
		"security.blockGitExtensions":                   implemented,
		"security.allowedExtensions":                    implemented,
		"security.folderTrust.enabled":                  implemented,
		"security.environmentVariableRedaction.allowed": implemented,
		"security.environmentVariableRedaction.blocked": implemented,
		"security.environmentVariableRedaction.enabled": implemented,
		"security.auth.selectedType":                    implemented,
		"security.auth.enforcedType":                    implemented,
		"security.auth.useExternal":                     notImplemented,
		"security.enableConseca":                        notImplemented,
		"security.allowedEnvironmentVariables":          notImplemented,
		"security.blockedEnvironmentVariables":          notImplemented,

		"advanced.autoConfigureMemory": notImplemented,
		"advanced.dnsResolutionOrder":  notImplemented,
		"advanced.excludedEnvVars":     implemented,
		"advanced.ignoreLocalEnv":      implemented,
		"advanced.bugCommand":          implemented,

		"experimental.gemma":                                 notImplemented,
		"experimental.voiceMode":                             notImplemented,
		"experimental.voice.activationMode":                  notImplemented,
		"experimental.voice.backend":                         notImplemented,
		"experimental.voice.whisperModel":                    notImplemented,
		"experimental.voice.stopGracePeriodMs":               notImplemented,
		"experimental.adk.agentSessionNoninteractiveEnabled": notImplemented,
		"experimental.adk.agentSessionInteractiveEnabled":    notImplemented,
		"experimental.adk.agentSessionSubagentEnabled":       notImplemented,
		"experimental.enableAgents":                          implemented,
		"experimental.worktrees":                             implemented,
		"experimental.extensionManagement":                   notImplemented,
		"experimental.extensionConfig":                       notImplemented,
		"experimental.extensionRegistry":                     notImplemented,
		"experimental.extensionRegistryURI":                  notImplemented,
		"experimental.extensionReloading":                    notImplemented,
		"experimental.useOSC52Paste":                         notImplemented,
		"experimental.useOSC52Copy":                          notImplemented,
		"experimental.taskTracker":                           implemented,
		"experimental.modelSteering":                         notImplemented,
		"experimental.directWebFetch":                        notImplemented,
		"experimental.dynamicModelConfiguration":             notImplemented,
		"experimental.gemmaModelRouter.enabled":              notImplemented,
		"experimental.gemmaModelRouter.autoStartServer":      notImplemented,
		"experimental.gemmaModelRouter.binaryPath":           notImplemented,
		"experimental.gemmaModelRouter.classifier.host":      notImplemented,
		"experimental.gemmaModelRouter.classifier.model":     notImplemented,
		"experimental.stressTestProfile":                     notImplemented,
		"experimental.autoMemory":                            implemented,
		"experimental.generalistProfile":                     notImplemented,
		"experimental.powerUserProfile":                      notImplemented,
		"experimental.contextManagement":                     notImplemented, // turns on 0.61's context manager (processor pipeline, snapshots, rolling summaries, tool output distillation): not bounded work
		"experimental.topicUpdateNarration":                  implemented,

		"extensions.disabled":                     notImplemented,
		"extensions.workspacesWithMigrationNudge": notImplemented,

		"skills.enabled":  implemented,
		"skills.disabled": implemented,

		"hooksConfig.enabled":       implemented,
		"hooksConfig.disabled":      implemented,
		"hooksConfig.notifications": notImplemented,

		// 0.61's CLI passes none of the contextManagement keys to its Config
		// (bundle gemini-3HFX2LNT.js:8530 passes only "enabled", from
		// experimental.contextManagement): its defaults act, and the masking
		// of old tool outputs it does by default gemini-ls does too
		// (agent/masking.go), with the same defaults.
		"contextManagement.historyWindow.maxTokens":                         notImplemented,
		"contextManagement.historyWindow.retainedTokens":                    notImplemented,
		"contextManagement.messageLimits.normalMaxTokens":                   notImplemented,
		"contextManagement.messageLimits.retainedMaxTokens":                 notImplemented,
		"contextManagement.messageLimits.normalizationHeadRatio":            notImplemented,
		"contextManagement.tools.distillation.maxOutputTokens":              notImplemented,
		"contextManagement.tools.distillation.summarizationThresholdTokens": notImplemented,
		"contextManagement.tools.outputMasking.protectionThresholdTokens":   notImplemented,
		"contextManagement.tools.outputMasking.minPrunableThresholdTokens":  notImplemented,
		"contextManagement.tools.outputMasking.protectLatestTurn":           notImplemented,

		"admin.secureModeEnabled":  implemented,
		"admin.extensions.enabled": implemented,
		"admin.mcp.enabled":        implemented,
		"admin.mcp.config":         implemented,
		"admin.mcp.requiredConfig": implemented,
		"admin.skills.enabled":     implemented,

		"hooks.BeforeTool":          implemented,
		"hooks.AfterTool":           implemented,
		"hooks.BeforeAgent":         implemented,
		"hooks.AfterAgent":          implemented,
		"hooks.Notification":        implemented,
		"hooks.SessionStart":        implemented,
		"hooks.SessionEnd":          implemented,
		"hooks.PreCompress":         implemented,
		"hooks.BeforeModel":         implemented,
		"hooks.AfterModel":          implemented,
		"hooks.BeforeToolSelection": implemented,

		"telemetry.enabled":      implemented,
		"telemetry.target":       implemented,
		"telemetry.otlpEndpoint": implemented,
		"telemetry.otlpProtocol": implemented,
		"telemetry.traces":       notImplemented,
		"telemetry.logPrompts":   implemented,
		"telemetry.outfile":      implemented,
		"telemetry.useCollector": implemented,
		"telemetry.useCliAuth":   notImplemented,

		"mcpServers": implemented,
	}
}

// mcpServerFields are the fields of an mcpServers entry (Gemini CLI's
// MCPServerConfig).
func mcpServerFields() map[string]support {
	return map[string]support{
		"command":      implemented,
		"args":         implemented,
		"env":          implemented,
		"cwd":          implemented,
		"url":          implemented,
		"httpUrl":      implemented,
		"headers":      implemented,
		"timeout":      implemented,
		"trust":        implemented,
		"includeTools": implemented,
		"excludeTools": implemented,

		"type":             implemented,
		"oauth":            implemented,
		"authProviderType": implemented,

		"description":          notImplemented,
		"tcp":                  notImplemented,
		"extension":            notImplemented,
		"targetAudience":       notImplemented,
		"targetServiceAccount": notImplemented,
	}
}

// NotRead is a group of Gemini CLI 0.61's keys gemini-ls does not read,
// and why: the table docs/configuration.md holds (internal/readme makes
// it). Keys are dotted paths; an MCP server's field is
// mcpServers.*.FIELD.
type NotRead struct {
	Why  string
	Keys []string
}

// NotReadKeys says why gemini-ls does not read each key the catalogue
// marks notImplemented (mcpServerFields' as mcpServers.*.FIELD), grouped
// by why; a test holds it to the catalogue both ways.
func NotReadKeys() []NotRead {
	return []NotRead{
		{"Terminal-only: the editor draws its own interface, input box and notifications.", []string{
			"ui.debugRainbow", "ui.theme", "ui.autoThemeSwitching", "ui.terminalBackgroundPollingInterval", "ui.customThemes",
			"ui.hideWindowTitle", "ui.inlineThinkingMode", "ui.showStatusInTitle", "ui.dynamicWindowTitle",
			"ui.showHomeDirectoryWarning", "ui.showCompatibilityWarnings", "ui.hideTips", "ui.escapePastedAtSymbols",
			"ui.showShortcutsHint", "ui.compactToolOutput", "ui.hideBanner", "ui.hideContextSummary",
			"ui.footer.items", "ui.footer.showLabels", "ui.footer.hideCWD", "ui.footer.hideSandboxStatus",
			"ui.footer.hideModelInfo", "ui.footer.hideContextPercentage", "ui.hideFooter", "ui.collapseDrawerDuringApproval",
			"ui.showMemoryUsage", "ui.showLineNumbers", "ui.showCitations", "ui.showModelInfoInChat", "ui.showUserIdentity",
			"ui.useAlternateBuffer", "ui.renderProcess", "ui.terminalBuffer", "ui.useBackgroundColor", "ui.incrementalRendering",
			"ui.showSpinner", "ui.loadingPhrases", "ui.errorVerbosity", "ui.customWittyPhrases",
			"ui.accessibility.enableLoadingPhrases", "ui.accessibility.disableLoadingPhrases", "ui.accessibility.screenReader",
			"general.vimMode", "general.preferredEditor", "general.openEditorInNewWindow", "general.debugKeystrokeLogging",
			"general.enableNotifications", "general.notificationMethod", "hooksConfig.notifications",
			"experimental.useOSC52Paste", "experimental.useOSC52Copy",
			"tools.shell.enableInteractiveShell", "tools.shell.pager", "tools.shell.showColor",
			"experimental.voiceMode", "experimental.voice.activationMode", "experimental.voice.backend",
			"experimental.voice.whisperModel", "experimental.voice.stopGracePeriodMs",
		}},
		{"Terminal-only: 0.61's completion of @paths in its input box; the editor completes them.", []string{
			"context.fileFiltering.enableFileWatcher", "context.fileFiltering.enableFuzzySearch", "context.fileFiltering.disableFuzzySearch",
		}},
		{"Gemini CLI's own installation and Node.js process: gemini-ls is one Go binary, updated with its editor plugin or package.", []string{
			"general.enableAutoUpdate", "general.enableAutoUpdateNotification", "general.disableAutoUpdate", "general.disableUpdateNag",
			"general.devtools", "advanced.autoConfigureMemory", "advanced.dnsResolutionOrder",
		}},
		{"Gemini CLI's link to an editor's companion extension: gemini-ls runs inside the editor.", []string{
			"ide.enabled", "ide.hasSeenNudge", "extensions.workspacesWithMigrationNudge",
		}},
		{"0.61 does not read it either: extensions are enabled and disabled in ~/.gemini/extensions/extension-enablement.json, which `gemini-ls extensions enable|disable` writes as 0.61 does.", []string{
			"extensions.disabled",
		}},
		{"0.61 does not read it either: its variables are security.environmentVariableRedaction.allowed and .blocked, which gemini-ls reads.", []string{
			"security.allowedEnvironmentVariables", "security.blockedEnvironmentVariables",
		}},
		{"Gemini CLI sign-in, billing and usage reporting gemini-ls does not have.", []string{
			"security.auth.useExternal", "billing.overageStrategy", "billing.vertexAi.requestType", "billing.vertexAi.sharedRequestType",
			"privacy.usageStatisticsEnabled", "telemetry.useCliAuth", "general.logRagSnippets",
		}},
		{"A 0.61 feature gemini-ls does not have: the browser agent.", []string{
			"agents.browser.sessionMode", "agents.browser.headless", "agents.browser.profilePath", "agents.browser.visualModel",
			"agents.browser.allowedDomains", "agents.browser.disableUserInput", "agents.browser.maxActionsPerTask",
			"agents.browser.confirmSensitiveActions", "agents.browser.blockFileUploads",
		}},
		{"A 0.61 experiment gemini-ls does not have.", []string{
			"experimental.gemma", "experimental.adk.agentSessionNoninteractiveEnabled", "experimental.adk.agentSessionInteractiveEnabled",
			"experimental.adk.agentSessionSubagentEnabled", "experimental.extensionManagement",
			"experimental.extensionConfig", "experimental.extensionRegistry", "experimental.extensionRegistryURI",
			"experimental.extensionReloading", "experimental.modelSteering", "experimental.directWebFetch",
			"experimental.dynamicModelConfiguration", "experimental.gemmaModelRouter.enabled", "experimental.gemmaModelRouter.autoStartServer",
			"experimental.gemmaModelRouter.binaryPath", "experimental.gemmaModelRouter.classifier.host",
			"experimental.gemmaModelRouter.classifier.model", "experimental.stressTestProfile",
			"experimental.generalistProfile", "experimental.powerUserProfile", "experimental.contextManagement",
			"security.enableConseca",
		}},
		{"Not yet: the model's requests and their retries.", []string{
			"model.summarizeToolOutput", "model.skipNextSpeakerCheck",
			"modelConfigs.modelDefinitions", "modelConfigs.modelIdResolutions",
			"modelConfigs.classifierIdResolutions", "modelConfigs.modelChains",
		}},
		{"Read by no code of Gemini CLI 0.61 either: its command line passes only experimental.contextManagement's switch to its core; old tool outputs are masked with 0.61's fixed numbers.", []string{
			"contextManagement.historyWindow.maxTokens", "contextManagement.historyWindow.retainedTokens",
			"contextManagement.messageLimits.normalMaxTokens", "contextManagement.messageLimits.retainedMaxTokens",
			"contextManagement.messageLimits.normalizationHeadRatio", "contextManagement.tools.distillation.maxOutputTokens",
			"contextManagement.tools.distillation.summarizationThresholdTokens",
			"contextManagement.tools.outputMasking.protectionThresholdTokens",
			"contextManagement.tools.outputMasking.minPrunableThresholdTokens",
			"contextManagement.tools.outputMasking.protectLatestTurn",
		}},
		{"Not yet: the tools.", []string{
			"tools.useRipgrep",
			"tools.shell.backgroundCompletionBehavior", "tools.shell.enableShellOutputEfficiency", "mcp.serverCommand",
		}},
		{"Not yet: the memory files (GEMINI.md).", []string{
			"context.importFormat", "context.discoveryMaxDirs", "context.memoryBoundaryMarkers",
		}},
		{"Not yet: telemetry's traces.", []string{"telemetry.traces"}},
		{"Not yet: an MCP server's other fields (no WebSocket transport, no service account impersonation; Gemini CLI sets extension itself).", []string{
			"mcpServers.*.description", "mcpServers.*.tcp", "mcpServers.*.extension",
			"mcpServers.*.targetAudience", "mcpServers.*.targetServiceAccount",
		}},
	}
}
