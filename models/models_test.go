package models

import "testing"

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
		{"gemini-3.5-flash", LatestFlash},
		{"gemini-3-flash", LatestFlash},
		{"gemini-3.1-flash-lite", LatestFlashLite},
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
	if ClassifierModel != LatestFlashLite {
		t.Errorf("ClassifierModel = %q", ClassifierModel)
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
