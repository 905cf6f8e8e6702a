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
		"model.thinkingBudget":             implemented,
		"tools.sandboxHooksAndMCPServers":  implemented,
		"tools.sandboxAllowedSockets":      implemented,
		"inlineCompletion.enabled":         implemented,
		"inlineCompletion.languages":       implemented,
		"inlineCompletion.debounceMs":      implemented,
		"inlineCompletion.model":           implemented,
		"inlineCompletion.exclude":         implemented,
		"inlineCompletion.nextEdit":        implemented,
		"inlineCompletion.completionItems": implemented,
		"codeIntelligence.enabled":         implemented,
		"codeIntelligence.servers":         implemented, // free names, each a LanguageServer
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
		"general.retryFetchErrors":              notImplemented,
		"general.maxAttempts":                   notImplemented,
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

		"modelConfigs.aliases":                 notImplemented,
		"modelConfigs.customAliases":           notImplemented,
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
		"context.includeDirectoryTree":                    notImplemented,
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
		"tools.confirmationRequired":               notImplemented,
		"tools.exclude":                            implemented,
		"tools.discoveryCommand":                   implemented,
		"tools.callCommand":                        implemented,
		"tools.useRipgrep":                         notImplemented,
		"tools.truncateToolOutputThreshold":        notImplemented,
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
		"security.auth.enforcedType":                    notImplemented,
		"security.auth.useExternal":                     notImplemented,
		"security.enableConseca":                        notImplemented,
		"security.allowedEnvironmentVariables":          notImplemented,
		"security.blockedEnvironmentVariables":          notImplemented,

		"advanced.autoConfigureMemory": notImplemented,
		"advanced.dnsResolutionOrder":  notImplemented,
		"advanced.excludedEnvVars":     notImplemented,
		"advanced.ignoreLocalEnv":      notImplemented,
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
		"experimental.worktrees":                             notImplemented,
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
		"experimental.autoMemory":                            notImplemented,
		"experimental.generalistProfile":                     notImplemented,
		"experimental.powerUserProfile":                      notImplemented,
		"experimental.contextManagement":                     notImplemented,
		"experimental.topicUpdateNarration":                  implemented,

		"extensions.disabled":                     notImplemented,
		"extensions.workspacesWithMigrationNudge": notImplemented,

		"skills.enabled":  implemented,
		"skills.disabled": implemented,

		"hooksConfig.enabled":       implemented,
		"hooksConfig.disabled":      implemented,
		"hooksConfig.notifications": notImplemented,

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

		"admin.secureModeEnabled":  notImplemented,
		"admin.extensions.enabled": notImplemented,
		"admin.mcp.enabled":        notImplemented,
		"admin.mcp.config":         notImplemented,
		"admin.mcp.requiredConfig": notImplemented,
		"admin.skills.enabled":     notImplemented,

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
