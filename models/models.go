package models

import "strings"

// The aliases a user may name; Auto is the default, as in Gemini CLI.
const (
	Auto         = "auto"
	AutoGemini3  = "auto-gemini-3"
	AutoGemini25 = "auto-gemini-2.5"
	Pro          = "pro"
	Flash        = "flash"
	FlashLite    = "flash-lite"
)

// Default is the model when none is named: Gemini CLI 0.61's
// GEMINI_MODEL_ALIAS_AUTO.
const Default = Auto

// Concrete models.
const (
	Gemini3ProPreview             = "gemini-3-pro-preview"
	Gemini31ProPreview            = "gemini-3.1-pro-preview"
	Gemini31ProPreviewCustomTools = "gemini-3.1-pro-preview-customtools"
	Gemini3FlashPreview           = "gemini-3-flash-preview"
	Gemini25Pro                   = "gemini-2.5-pro"
	Gemini25Flash                 = "gemini-2.5-flash"
	Gemini25FlashLite             = "gemini-2.5-flash-lite"
	// The Flash and Flash-Lite models 0.61 promotes to ("latest GA"):
	// every Flash or Flash-Lite alias resolves to them for an API key.
	LatestFlash     = "gemini-3.8-flash"
	LatestFlashLite = "gemini-3.5-flash-lite"
	// The older names 0.61 promotes to the latest ones.
	baseFlash     = "gemini-3.5-flash"
	legacyFlash   = "gemini-3-flash"
	baseFlashLite = "gemini-3.1-flash-lite"
)

// ClassifierModel answers auto's routing classifier: 0.61's "classifier"
// model config, flash-lite.
var ClassifierModel = Resolve(FlashLite)

// UtilityModel answers the tools' one-off calls (web search, web fetch,
// fixing an edit that did not apply): 0.61's "web-search", "web-fetch" and
// "llm-edit-fixer" configs extend gemini-3-flash-base.
const UtilityModel = Gemini3FlashPreview

// IsAuto reports whether name asks for routing per prompt.
func IsAuto(name string) bool {
	switch strings.TrimSpace(name) {
	case Auto, AutoGemini3, AutoGemini25:
		return true
	}
	return false
}

// Resolve is the concrete model name asks for when it is not routed (a
// model named outright, or auto when its classifier gave no answer): 0.61's
// resolveModel as its DefaultStrategy and OverrideStrategy call it, without
// the custom-tools Pro model. Names it does not know are kept.
func Resolve(name string) string {
	return resolve(strings.TrimSpace(name), false)
}

// Choice is a routing classifier's answer.
type Choice string

const (
	ChoiceFlash Choice = Flash
	ChoicePro   Choice = Pro
)

// ResolveRouted is the model auto routes a prompt to when its classifier
// chose choice: 0.61's resolveClassifierModel, which asks for the
// custom-tools Pro model for an API key.
func ResolveRouted(name string, choice Choice) string {
	name = strings.TrimSpace(name)
	if choice == ChoiceFlash {
		return LatestFlash
	}
	return resolve(name, true)
}

// NumericalClassifier reports whether auto of this kind routes with the
// classifier that scores complexity 1-100 (Gemini 3 autos), rather than
// the one that answers flash or pro (Gemini 2.5): 0.61 runs the numerical
// one when isGemini3Model(model), judged on resolveModel's defaults.
func NumericalClassifier(name string) bool {
	return isGemini3(resolve0(strings.TrimSpace(name)))
}

// resolve0 is resolveModel with its default arguments (no Gemini 3.1, no
// latest Flash), as isGemini3Model calls it.
func resolve0(name string) string {
	switch name {
	case Auto, Pro, Gemini3ProPreview, AutoGemini3:
		return Gemini3ProPreview
	case AutoGemini25:
		return Gemini25Pro
	case Flash:
		return Gemini3FlashPreview
	case FlashLite:
		return baseFlashLite
	}
	return name
}

func isGemini3(model string) bool {
	return strings.HasPrefix(model, "gemini-3.") || strings.HasPrefix(model, "gemini-3-") || model == "gemini-3"
}

// resolve is resolveModel for an API key: preview access, Gemini 3.1 and
// the latest Flash and Flash-Lite are on.
func resolve(name string, customTools bool) string {
	var resolved string
	switch name {
	case Auto, Pro, Gemini3ProPreview, AutoGemini3:
		if customTools {
			return Gemini31ProPreviewCustomTools
		}
		return Gemini31ProPreview
	case AutoGemini25:
		return Gemini25Pro
	case Flash:
		return LatestFlash
	case FlashLite, "none":
		return LatestFlashLite
	case "":
		return resolve(Default, customTools)
	default:
		resolved = name
	}
	switch resolved {
	case LatestFlash, baseFlash, legacyFlash:
		return LatestFlash
	case LatestFlashLite, baseFlashLite:
		return LatestFlashLite
	}
	return resolved
}

// Display is how name is shown: 0.61's getDisplayString.
func Display(name string) string {
	switch strings.TrimSpace(name) {
	case Auto:
		return "Auto"
	case AutoGemini3:
		return "Auto (Gemini 3)"
	case AutoGemini25:
		return "Auto (Gemini 2.5)"
	}
	return name
}

// Fallback is the model to switch to when current, a model the
// configured one led to, is out of quota; "" when there is none. As 0.61's
// policy chains for an API key: an auto or a Gemini 3 model falls from the
// custom-tools Gemini 3.1 Pro to Gemini 3 Flash (preview), a Gemini 2.5
// auto from Gemini 2.5 Pro to the latest Flash; a model named outright that
// is not in its chain (gemini-3.1-pro-preview, gemini-2.5-pro) has no
// fallback.
func Fallback(configured, current string) string {
	configured, current = strings.TrimSpace(configured), strings.TrimSpace(current)
	gemini3 := isGemini3(resolve0(current))
	if !IsAuto(configured) && !gemini3 {
		return ""
	}
	chain := []string{Gemini25Pro, LatestFlash}
	if configured != AutoGemini25 && (gemini3 || configured == AutoGemini3) {
		chain = []string{Gemini31ProPreviewCustomTools, Gemini3FlashPreview}
	}
	if current == chain[0] {
		return chain[1]
	}
	return ""
}

// Option is a model a user may choose.
type Option struct{ ID, Name, Description string }

// Offered are the models Gemini CLI 0.61's ACP agent offers an API-key
// user (acp: availableModels), in its order: auto, then the preview Pro
// (its custom-tools variant, shown by the Pro's name) and Flash, then the
// stable Pro, Flash and Flash-Lite.
func Offered() []Option {
	return []Option{
		{Auto, Display(Auto), "Let Gemini CLI decide the best model for the task: " + Gemini31ProPreview + ", " + LatestFlash},
		{Gemini31ProPreviewCustomTools, Gemini31ProPreview, ""},
		{Gemini3FlashPreview, Gemini3FlashPreview, ""},
		{Gemini25Pro, Gemini25Pro, ""},
		{LatestFlash, LatestFlash, ""},
		{LatestFlashLite, LatestFlashLite, ""},
	}
}
