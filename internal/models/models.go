package models

import (
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/spelling"
)

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
	// The older names 0.61 promotes to the latest ones: still where its
	// own model configs name them (UtilityFor), no longer where the user
	// does (Resolve), except the undotted gemini-3-flash.
	baseFlash     = "gemini-3.5-flash"
	legacyFlash   = "gemini-3-flash"
	baseFlashLite = "gemini-3.1-flash-lite"
)

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
// the custom-tools Pro model. Names it does not know are kept, and so is
// a model named with a dotted Gemini 3 version (gemini-3.5-flash,
// gemini-3.1-pro), as Gemini CLI keeps it after 0.61 (#29982): 0.61 sent
// gemini-3.5-flash and gemini-3.1-flash-lite to the latest Flash and
// Flash-Lite instead, a model the user had not asked for.
func Resolve(name string) string {
	name = strings.TrimSpace(name)
	if dottedGemini3(name) {
		return name
	}
	return resolve(name, false)
}

// dottedGemini3 reports whether name is a concrete model named with a
// dotted Gemini 3 version: gemini-3.<minor>-<rest>.
func dottedGemini3(name string) bool {
	version, _, ok := versioned(name)
	return ok && strings.HasPrefix(version, "3.")
}

// versioned splits a model named gemini-<version>-<rest> into its version
// (digits and dots, e.g. 2.5 or 3.1) and the rest (pro, flash-lite,
// pro-preview); false for any other name.
func versioned(name string) (version, rest string, ok bool) {
	tail, ok := strings.CutPrefix(name, "gemini-")
	if !ok {
		return "", "", false
	}
	version, rest, ok = strings.Cut(tail, "-")
	if !ok || version == "" || rest == "" || strings.Trim(version, "0123456789.") != "" ||
		version[0] == '.' || version[len(version)-1] == '.' || strings.Contains(version, "..") {
		return "", "", false
	}
	return version, rest, true
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

// resolve is 0.61's resolveModel for an API key: preview access, Gemini
// 3.1 and the latest Flash and Flash-Lite are on.
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

// Display is how name is shown: 0.61's getDisplayString for an API key,
// which shows the custom-tools Pro by the Pro's name (the name the model
// picker offers it by) and gemini-3-flash by the latest Flash it is
// promoted to. Unlike it, the pro and flash aliases are shown as named:
// 0.61 shows them as the Gemini 3 previews, which for an API key they do
// not resolve to; and a dotted Gemini 3 Flash or Flash-Lite
// (gemini-3.5-flash) is shown as written, since Resolve keeps it.
func Display(name string) string {
	switch strings.TrimSpace(name) {
	case Auto:
		return "Auto"
	case AutoGemini3:
		return "Auto (Gemini 3)"
	case AutoGemini25:
		return "Auto (Gemini 2.5)"
	case Gemini31ProPreviewCustomTools:
		return Gemini31ProPreview
	case legacyFlash:
		return LatestFlash
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
// stable Pro, Flash and Flash-Lite. Auto's description is gemini-ls's
// own (0.61's names Gemini CLI, which is not what the user runs here).
func Offered() []Option {
	return []Option{
		{Auto, Display(Auto), "Picks the model for each prompt: " + Gemini31ProPreview + " for complex tasks, " + LatestFlash + " for the rest"},
		{Gemini31ProPreviewCustomTools, Gemini31ProPreview, ""},
		{Gemini3FlashPreview, Gemini3FlashPreview, ""},
		{Gemini25Pro, Gemini25Pro, ""},
		{LatestFlash, LatestFlash, ""},
		{LatestFlashLite, LatestFlashLite, ""},
	}
}

// The model config aliases 0.61 makes its utility calls with
// (config/defaultModelConfigs.js, bundle chunk-JDPZ4CE3.js:360450-360760):
// each names a model and a generation config, through the aliases it
// extends.
const (
	Classifier               = "classifier"
	EditCorrector            = "edit-corrector"
	SummarizerDefault        = "summarizer-default"
	SummarizerShell          = "summarizer-shell"
	WebSearch                = "web-search"
	WebFetch                 = "web-fetch"
	WebFetchFallback         = "web-fetch-fallback"
	LoopDetection            = "loop-detection"
	LoopDetectionDoubleCheck = "loop-detection-double-check"
	LLMEditFixer             = "llm-edit-fixer"
	NextSpeakerChecker       = "next-speaker-checker"
	// PromptCompletion is what 0.61 completes its prompt box with as the
	// user types; gemini-ls completes code with its model (Completion).
	PromptCompletion = "prompt-completion"

	Compression3Pro        = "chat-compression-3-pro"
	Compression3Flash      = "chat-compression-3-flash"
	Compression31FlashLite = "chat-compression-3.1-flash-lite"
	Compression25Pro       = "chat-compression-2.5-pro"
	Compression25Flash     = "chat-compression-2.5-flash"
	Compression25FlashLite = "chat-compression-2.5-flash-lite"
	CompressionDefault     = "chat-compression-default"
)

// Generation is the part of a request's generation config a model config
// sets; nil and zero fields are not sent.
type Generation struct {
	Temperature, TopP, TopK *float32
	MaxOutputTokens         int32
	IncludeThoughts         bool
	ThinkingBudget          *int32
	// ThinkingLevel is "HIGH" or "" (not sent).
	ThinkingLevel string
}

// Over is a copy of config (nil for none) with g's sampling, output and
// thinking settings in place of its own; what the call itself sets (a
// system instruction, a response schema, tools) is kept.
func (g Generation) Over(config *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	out := &genai.GenerateContentConfig{}
	if config != nil {
		c := *config
		out = &c
	}
	out.Temperature, out.TopP, out.TopK = g.Temperature, g.TopP, g.TopK
	out.MaxOutputTokens = g.MaxOutputTokens
	out.ThinkingConfig = nil
	if g.IncludeThoughts || g.ThinkingBudget != nil || g.ThinkingLevel != "" {
		out.ThinkingConfig = &genai.ThinkingConfig{
			IncludeThoughts: g.IncludeThoughts,
			ThinkingBudget:  g.ThinkingBudget,
			ThinkingLevel:   genai.ThinkingLevel(g.ThinkingLevel),
		}
	}
	return out
}

// Utility is where a utility call goes: the concrete model and the
// generation config 0.61 sends it with.
type Utility struct {
	Model      string
	Generation Generation
}

// UtilityFor is the model and generation config of alias, a utility
// call's model config alias, as 0.61 sends them for an API key: its
// applyModelSelection resolves the alias's model as resolveModel does
// with Gemini 3.1 and the custom-tools Pro model (flash-lite becomes
// gemini-3.5-flash-lite, gemini-3-pro-preview the custom-tools Gemini 3.1
// Pro), and when that changed the model, the request takes the new
// model's own chat config instead of the alias's (policyHelpers.js,
// bundle chunk-JDPZ4CE3.js:307658). An alias it does not know is sent as
// a model named outright, with no generation config.
func UtilityFor(alias string) Utility {
	if u, ok := utilityOf(modelConfigs(), alias); ok {
		return u
	}
	return Utility{Model: Resolve(alias)}
}

// Completion is the model and generation config code completion asks:
// 0.61's prompt-completion alias (its flash-lite, temperature 0.3,
// thinking off), keeping the alias's own config where 0.61 would take the
// resolved model's chat config (which thinks), with maxOutputTokens as
// the caller bounds it. A completion waits on every token: thinking and
// a long answer are latency the user sees.
func Completion(maxOutputTokens int32) Utility {
	f := func(v float32) *float32 { return &v }
	zero := int32(0)
	return Utility{
		Model:      UtilityFor(PromptCompletion).Model,
		Generation: Generation{Temperature: f(0.3), TopP: f(1), MaxOutputTokens: maxOutputTokens, ThinkingBudget: &zero},
	}
}

// CompressionAlias is the model config 0.61 compresses the history with
// when the turn's model is model: its modelStringToModelConfigAlias
// (bundle chunk-JDPZ4CE3.js:335521).
func CompressionAlias(model string) string {
	switch strings.TrimSpace(model) {
	case Gemini3ProPreview, Gemini31ProPreview:
		return Compression3Pro
	case Gemini3FlashPreview, baseFlash, LatestFlash, legacyFlash:
		return Compression3Flash
	case "none", baseFlashLite, LatestFlashLite:
		return Compression31FlashLite
	case Gemini25FlashLite:
		return Compression25FlashLite
	case Gemini25Pro:
		return Compression25Pro
	case Gemini25Flash:
		return Compression25Flash
	}
	return CompressionDefault
}

// modelConfig is one of 0.61's model config aliases.
type modelConfig struct {
	extends string
	model   string
	gen     Generation
}

// modelConfigs are 0.61's default model configs that utility calls use,
// with the chat configs their models fall back to, as the bundle spells
// them (chunk-JDPZ4CE3.js:360450-360760).
func modelConfigs() map[string]modelConfig {
	f := func(v float32) *float32 { return &v }
	i := func(v int32) *int32 { return &v }
	configs := map[string]modelConfig{
		"base":                {gen: Generation{Temperature: f(0), TopP: f(1)}},
		"chat-base":           {extends: "base", gen: Generation{IncludeThoughts: true, Temperature: f(1), TopP: f(0.95), TopK: f(64)}},
		"chat-base-2.5":       {extends: "chat-base", gen: Generation{ThinkingBudget: i(8192)}},
		"chat-base-3":         {extends: "chat-base", gen: Generation{ThinkingLevel: "HIGH"}},
		"gemini-3-flash-base": {extends: "base", model: Gemini3FlashPreview},

		Classifier:               {extends: "base", model: FlashLite, gen: Generation{MaxOutputTokens: 1024, ThinkingBudget: i(512)}},
		EditCorrector:            {extends: "base", model: FlashLite, gen: Generation{ThinkingBudget: i(0)}},
		SummarizerDefault:        {extends: "base", model: FlashLite, gen: Generation{MaxOutputTokens: 2000}},
		SummarizerShell:          {extends: "base", model: FlashLite, gen: Generation{MaxOutputTokens: 2000}},
		WebSearch:                {extends: "gemini-3-flash-base"},
		WebFetch:                 {extends: "gemini-3-flash-base"},
		WebFetchFallback:         {extends: "gemini-3-flash-base"},
		LoopDetection:            {extends: "gemini-3-flash-base"},
		LoopDetectionDoubleCheck: {extends: "base", model: Gemini3ProPreview},
		LLMEditFixer:             {extends: "gemini-3-flash-base"},
		NextSpeakerChecker:       {extends: "gemini-3-flash-base"},
		PromptCompletion:         {extends: "base", model: FlashLite, gen: Generation{Temperature: f(0.3), MaxOutputTokens: 16000, ThinkingBudget: i(0)}},

		Compression3Pro:        {model: Gemini3ProPreview},
		Compression3Flash:      {model: Gemini3FlashPreview},
		Compression31FlashLite: {model: baseFlashLite},
		Compression25Pro:       {model: Gemini25Pro},
		Compression25Flash:     {model: Gemini25Flash},
		Compression25FlashLite: {model: Gemini25FlashLite},
		CompressionDefault:     {model: Gemini3ProPreview},
	}
	// The concrete models' own configs, which a request takes when the
	// model it goes to is not its alias's.
	for _, m := range []string{Gemini3ProPreview, Gemini3FlashPreview, Gemini31ProPreview, Gemini31ProPreviewCustomTools,
		"gemini-3.1-flash-lite-preview", baseFlashLite, LatestFlashLite, baseFlash, LatestFlash, "gemma-4-31b-it", "gemma-4-26b-a4b-it"} {
		configs[m] = modelConfig{extends: "chat-base-3", model: m}
	}
	for _, m := range []string{Gemini25Pro, Gemini25Flash, Gemini25FlashLite} {
		configs[m] = modelConfig{extends: "chat-base-2.5", model: m}
	}
	return configs
}

// utilityOf is the utility alias resolved in configs, as a request asks
// for it; false when configs has no model for it. Derived on each call
// (microseconds, against a model request): a table of them all was built
// at every start-up.
func utilityOf(configs map[string]modelConfig, alias string) (Utility, bool) {
	// flatten merges an alias over what it extends, as 0.61's
	// ModelConfigService does (a deep merge: the thinking config too).
	var flatten func(name string) (string, Generation)
	flatten = func(name string) (string, Generation) {
		c := configs[name]
		model, gen := "", Generation{}
		if c.extends != "" {
			model, gen = flatten(c.extends)
		}
		if c.model != "" {
			model = c.model
		}
		return model, merge(gen, c.gen)
	}
	if _, ok := configs[alias]; !ok {
		return Utility{}, false
	}
	model, gen := flatten(alias)
	if model == "" {
		return Utility{}, false // a base no call names
	}
	resolved := resolve(model, true)
	if resolved != model {
		if _, known := configs[resolved]; known {
			_, gen = flatten(resolved)
		} else {
			gen = Generation{}
		}
	}
	return Utility{Model: resolved, Generation: gen}, true
}

// merge is over laid on base.
func merge(base, over Generation) Generation {
	if over.Temperature != nil {
		base.Temperature = over.Temperature
	}
	if over.TopP != nil {
		base.TopP = over.TopP
	}
	if over.TopK != nil {
		base.TopK = over.TopK
	}
	if over.MaxOutputTokens != 0 {
		base.MaxOutputTokens = over.MaxOutputTokens
	}
	if over.IncludeThoughts {
		base.IncludeThoughts = true
	}
	if over.ThinkingBudget != nil {
		base.ThinkingBudget = over.ThinkingBudget
	}
	if over.ThinkingLevel != "" {
		base.ThinkingLevel = over.ThinkingLevel
	}
	return base
}

// Known are the names gemini-ls knows a model by: the aliases, and the
// concrete models 0.61 names.
func Known() []string {
	return []string{
		Auto, AutoGemini3, AutoGemini25, Pro, Flash, FlashLite,
		Gemini3ProPreview, Gemini31ProPreview, Gemini31ProPreviewCustomTools, Gemini3FlashPreview,
		Gemini25Pro, Gemini25Flash, Gemini25FlashLite, LatestFlash, LatestFlashLite,
		baseFlash, legacyFlash, baseFlashLite,
	}
}

// Misspelt is the known name (Known, or one of also: the user's own
// aliases) name is a slip of, within two edits; "" when name is known,
// or far from every known name (a model gemini-ls does not know yet,
// which the API judges). A name that differs from a known one only in
// its version (gemini-3.5-pro beside gemini-2.5-pro, gemini-3.1-flash
// beside gemini-3-flash) is another model, not a slip: the API judges it.
func Misspelt(name string, also []string) string {
	name = strings.TrimSpace(name)
	names := append(Known(), also...)
	if name == "" || slices.Contains(names, name) {
		return ""
	}
	if _, rest, ok := versioned(name); ok {
		names = slices.DeleteFunc(names, func(known string) bool {
			_, knownRest, ok := versioned(known)
			return ok && knownRest == rest
		})
	}
	return spelling.Nearest(name, names, 2)
}
