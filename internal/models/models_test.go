package models

import (
	"fmt"
	"reflect"
	"testing"
)

// The cases are 0.61's resolveModel / resolveClassifierModel for a Gemini
// API key (bundle: config/models.js), and what 0.61 sent to a fake API
// (bench/compare-0.61/models.sh).
func TestResolve(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"", Gemini31ProPreview},
		{"auto", Gemini31ProPreview},
		{" auto ", Gemini31ProPreview},
		{"auto-gemini-3", Gemini31ProPreview},
		{"auto-gemini-2.5", Gemini25Pro},
		{"pro", Gemini31ProPreview},
		{"gemini-3-pro-preview", Gemini31ProPreview},
		{"flash", LatestFlash},
		{"flash-lite", LatestFlashLite},
		{"none", LatestFlashLite},
		{"gemini-3-flash", LatestFlash},
		{"gemini-3-flash-preview", Gemini3FlashPreview},
		{"gemini-2.5-pro", Gemini25Pro},
		{"gemini-2.5-flash", Gemini25Flash},
		{"gemini-2.5-flash-lite", Gemini25FlashLite},
		{"gemini-3.1-pro-preview", Gemini31ProPreview},
		{"my-tuned-model", "my-tuned-model"},
	} {
		if got := Resolve(c.name); got != c.want {
			t.Errorf("Resolve(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDottedGemini3KeptAsWritten: a model named with a dotted Gemini 3
// version is sent, shown and taken as the user wrote it, as Gemini CLI
// does after 0.61 (#29982), where 0.61 promoted gemini-3.5-flash and
// gemini-3.1-flash-lite to the latest Flash and Flash-Lite; none is
// called a slip of a known model of another version, while a slip
// within the name still is.
func TestDottedGemini3KeptAsWritten(t *testing.T) {
	for _, name := range []string{
		"gemini-3.1-pro", "gemini-3.5-flash", "gemini-3.1-flash-lite", "gemini-3.5-pro",
		"gemini-3.1-flash", "gemini-3.6-flash", "gemini-3.10-flash-lite", "gemini-3.1-pro-preview",
	} {
		if got := Resolve(name); got != name {
			t.Errorf("Resolve(%q) = %q, want it as written", name, got)
		}
		if got := Resolve(" " + name + " "); got != name {
			t.Errorf("Resolve(%q) = %q, want it as written", " "+name+" ", got)
		}
		if got := Display(name); got != name {
			t.Errorf("Display(%q) = %q, want it as written", name, got)
		}
		if got := Misspelt(name, nil); got != "" {
			t.Errorf("Misspelt(%q) = %q: another version is not a slip", name, got)
		}
	}
	if got := Misspelt("gemini-3.5-flsh", nil); got != "gemini-3.5-flash" {
		t.Errorf(`Misspelt("gemini-3.5-flsh") = %q, want gemini-3.5-flash`, got)
	}
	// 0.61's own model configs still promote: its compression of a
	// Flash-Lite turn goes to the latest Flash-Lite.
	if got := UtilityFor(Compression31FlashLite).Model; got != LatestFlashLite {
		t.Errorf("UtilityFor(%q).Model = %q, want %q", Compression31FlashLite, got, LatestFlashLite)
	}
}

func TestVersioned(t *testing.T) {
	for _, c := range []struct {
		name, version, rest string
		ok                  bool
	}{
		{"gemini-3.1-pro", "3.1", "pro", true},
		{"gemini-2.5-flash-lite", "2.5", "flash-lite", true},
		{"gemini-3-flash", "3", "flash", true},
		{"gemini-3.1-pro-preview-customtools", "3.1", "pro-preview-customtools", true},
		{"gemini-3.", "", "", false},
		{"gemini-3.-pro", "", "", false},
		{"gemini-.3-pro", "", "", false},
		{"gemini-3..1-pro", "", "", false},
		{"gemini-3.1", "", "", false},
		{"gemini-3.1-", "", "", false},
		{"gemini-pro", "", "", false},
		{"gemma-4-31b-it", "", "", false},
		{"auto-gemini-3", "", "", false},
	} {
		version, rest, ok := versioned(c.name)
		if version != c.version || rest != c.rest || ok != c.ok {
			t.Errorf("versioned(%q) = %q, %q, %v; want %q, %q, %v", c.name, version, rest, ok, c.version, c.rest, c.ok)
		}
	}
}

func TestResolveRouted(t *testing.T) {
	for _, c := range []struct {
		name   string
		choice Choice
		want   string
	}{
		{"auto", ChoicePro, Gemini31ProPreviewCustomTools},
		{"auto", ChoiceFlash, LatestFlash},
		{"auto-gemini-3", ChoicePro, Gemini31ProPreviewCustomTools},
		{"auto-gemini-3", ChoiceFlash, LatestFlash},
		{"auto-gemini-2.5", ChoicePro, Gemini25Pro},
		{"auto-gemini-2.5", ChoiceFlash, LatestFlash},
	} {
		if got := ResolveRouted(c.name, c.choice); got != c.want {
			t.Errorf("ResolveRouted(%q, %q) = %q, want %q", c.name, c.choice, got, c.want)
		}
	}
}

func TestAutoAndClassifier(t *testing.T) {
	for _, c := range []struct {
		name            string
		auto, numerical bool
	}{
		{"auto", true, true},
		{"auto-gemini-3", true, true},
		{"auto-gemini-2.5", true, false},
		{"pro", false, true},
		{"gemini-2.5-pro", false, false},
	} {
		if got := IsAuto(c.name); got != c.auto {
			t.Errorf("IsAuto(%q) = %v", c.name, got)
		}
		if got := NumericalClassifier(c.name); got != c.numerical {
			t.Errorf("NumericalClassifier(%q) = %v", c.name, got)
		}
	}
}

func TestFallback(t *testing.T) {
	for _, c := range []struct{ configured, current, want string }{
		{"auto", Gemini31ProPreviewCustomTools, Gemini3FlashPreview},
		{"auto-gemini-3", Gemini31ProPreviewCustomTools, Gemini3FlashPreview},
		{"auto", Gemini31ProPreview, ""},
		{"auto", LatestFlash, ""},
		{"auto-gemini-2.5", Gemini25Pro, LatestFlash},
		{"pro", Gemini31ProPreview, ""},
		{"gemini-2.5-pro", Gemini25Pro, ""},
	} {
		if got := Fallback(c.configured, c.current); got != c.want {
			t.Errorf("Fallback(%q, %q) = %q, want %q", c.configured, c.current, got, c.want)
		}
	}
}

// Display is 0.61's getDisplayString for an API key (bundle
// chunk-Y2J3C62M.js:280423), the pro and flash aliases aside.
func TestDisplay(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"auto", "Auto"},
		{" auto-gemini-3 ", "Auto (Gemini 3)"},
		{"auto-gemini-2.5", "Auto (Gemini 2.5)"},
		{"gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview"},
		{"gemini-3-flash", "gemini-3.8-flash"},
		{"gemini-2.5-pro", "gemini-2.5-pro"},
		{"pro", "pro"},
		{"my-tuned-model", "my-tuned-model"},
	} {
		if got := Display(c.name); got != c.want {
			t.Errorf("Display(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// The utility aliases as 0.61 sends them for an API key: the model configs
// of its bundle (chunk-JDPZ4CE3.js:360450-360760) through its
// applyModelSelection (:307658), and, where noted, the model and
// generationConfig 0.61 sent to the fake API (bench/compare-0.61/models.sh).
func TestUtilityFor(t *testing.T) {
	f := func(v float32) *float32 { return &v }
	// chat3 is chat-base-3: what a request to a Gemini 3 model carries when
	// it is not its alias's model.
	chat3 := Generation{Temperature: f(1), TopP: f(0.95), TopK: f(64), IncludeThoughts: true, ThinkingLevel: "HIGH"}
	// base is gemini-3-flash-base's: temperature 0, topP 1.
	base := Generation{Temperature: f(0), TopP: f(1)}
	for _, c := range []struct {
		alias string
		want  Utility
	}{
		{Classifier, Utility{LatestFlashLite, chat3}}, // sent
		{EditCorrector, Utility{LatestFlashLite, chat3}},
		{SummarizerDefault, Utility{LatestFlashLite, chat3}},
		{SummarizerShell, Utility{LatestFlashLite, chat3}},
		{WebSearch, Utility{Gemini3FlashPreview, base}}, // sent
		{WebFetch, Utility{Gemini3FlashPreview, base}},
		{WebFetchFallback, Utility{Gemini3FlashPreview, base}},
		{LoopDetection, Utility{Gemini3FlashPreview, base}},
		{LoopDetectionDoubleCheck, Utility{Gemini31ProPreviewCustomTools, chat3}},
		{LLMEditFixer, Utility{Gemini3FlashPreview, base}}, // sent
		{NextSpeakerChecker, Utility{Gemini3FlashPreview, base}},
		{Compression3Pro, Utility{Gemini31ProPreviewCustomTools, chat3}}, // sent
		{Compression3Flash, Utility{Gemini3FlashPreview, Generation{}}},  // sent
		{Compression31FlashLite, Utility{LatestFlashLite, chat3}},        // sent
		{Compression25Pro, Utility{Gemini25Pro, Generation{}}},           // sent
		{Compression25Flash, Utility{Gemini25Flash, Generation{}}},       // sent
		{Compression25FlashLite, Utility{Gemini25FlashLite, Generation{}}},
		{CompressionDefault, Utility{Gemini31ProPreviewCustomTools, chat3}},
		{"my-utility-model", Utility{Model: "my-utility-model"}},
	} {
		if got := UtilityFor(c.alias); !reflect.DeepEqual(got, c.want) {
			t.Errorf("UtilityFor(%q) = %s, want %s", c.alias, show(got), show(c.want))
		}
	}
}

func show(u Utility) string {
	g := u.Generation
	p := func(v *float32) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	budget := "-"
	if g.ThinkingBudget != nil {
		budget = fmt.Sprint(*g.ThinkingBudget)
	}
	return fmt.Sprintf("{%s temperature %s topP %s topK %s max %d thoughts %v budget %s level %q}",
		u.Model, p(g.Temperature), p(g.TopP), p(g.TopK), g.MaxOutputTokens, g.IncludeThoughts, budget, g.ThinkingLevel)
}

// 0.61's modelStringToModelConfigAlias (chunk-JDPZ4CE3.js:335521), for the
// models a turn may be on.
func TestCompressionAlias(t *testing.T) {
	for _, c := range []struct{ model, want string }{
		{Gemini3ProPreview, Compression3Pro},
		{Gemini31ProPreview, Compression3Pro},
		{Gemini31ProPreviewCustomTools, CompressionDefault},
		{Gemini3FlashPreview, Compression3Flash},
		{LatestFlash, Compression3Flash},
		{"gemini-3.5-flash", Compression3Flash},
		{"gemini-3-flash", Compression3Flash},
		{LatestFlashLite, Compression31FlashLite},
		{"gemini-3.1-flash-lite", Compression31FlashLite},
		{Gemini25Pro, Compression25Pro},
		{Gemini25Flash, Compression25Flash},
		{Gemini25FlashLite, Compression25FlashLite},
		{"gemma-4-31b-it", CompressionDefault},
	} {
		if got := CompressionAlias(c.model); got != c.want {
			t.Errorf("CompressionAlias(%q) = %q, want %q", c.model, got, c.want)
		}
	}
}

// write_todos is offered as Gemini CLI 0.61 offers it: on a Gemini 2
// model, never on Gemini 3, an auto or an alias.
func TestDeclaresWriteTodos(t *testing.T) {
	for model, want := range map[string]bool{
		Gemini25Pro: true, Gemini25Flash: true, Gemini25FlashLite: true,
		"gemini-2.0-flash": true, "gemini-2": true, "gemini-2.5-flash-preview-05-20": true,
		Auto: false, AutoGemini25: false, AutoGemini3: false, Pro: false, Flash: false, FlashLite: false,
		Gemini3ProPreview: false, Gemini31ProPreview: false, Gemini31ProPreviewCustomTools: false,
		Gemini3FlashPreview: false, LatestFlash: false, "gemini-20": false, "gemma-4-31b-it": false, "": false,
	} {
		if got := DeclaresWriteTodos(model); got != want {
			t.Errorf("DeclaresWriteTodos(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestMisspelt(t *testing.T) {
	for _, c := range []struct {
		name string
		also []string
		want string
	}{
		{"gemini-2.5-flsh", nil, Gemini25Flash},
		{"gemini-2.5-flash", nil, ""},
		{"flsh", nil, Flash},
		{"auto", nil, ""},
		{"", nil, ""},
		{"my-fast", []string{"my-fast"}, ""},
		{"my-fst", []string{"my-fast"}, "my-fast"},
		{"gemini-9-ultra-experimental", nil, ""}, // far from every name: the API judges it
	} {
		if got := Misspelt(c.name, c.also); got != c.want {
			t.Errorf("Misspelt(%q, %q) = %q, want %q", c.name, c.also, got, c.want)
		}
	}
}
