package settings

import (
	"testing"
	"time"
)

// debounced reports whether c sets the debounce to d (0: unset).
func debounced(c InlineCompletion, d time.Duration) bool {
	got, set := c.Debounce()
	return got == d && set == (d != 0)
}

func TestInlineCompletionSettings(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"inlineCompletion": {"enabled": true, "languages": {"markdown": false, "*": true}, "debounceMs": 20,
		"model": "flash-lite", "exclude": ["**/secrets/**"], "nextEdit": false, "completionItems": true}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if u := s.UnreadKeys(); len(u) != 0 {
		t.Errorf("inlineCompletion keys reported unread: %+v", u)
	}
	c := s.InlineCompletion
	if !c.On("go") || c.On("markdown") || !debounced(c, 20*time.Millisecond) || c.Model != "flash-lite" || c.NextEditOn() || !c.CompletionItems || c.Exclude[0] != "**/secrets/**" {
		t.Errorf("read %+v", c)
	}
	var none InlineCompletion
	if !none.On("go") || !none.NextEditOn() || !debounced(none, 0) || none.CompletionItems {
		t.Errorf("defaults %+v", none)
	}
	off := false
	none.Enabled = &off
	if none.On("go") || none.NextEditOn() {
		t.Error("enabled false leaves completion on")
	}
	if _, err := s.With(map[string]any{"inlineCompletion": map[string]any{"debounceMs": "soon"}}); err == nil {
		t.Error("a debounce that is not a number was taken")
	}
}
