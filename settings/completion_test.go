package settings

import "testing"

func TestInlineCompletionSettings(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"inlineCompletion": {"enabled": true, "languages": {"markdown": false, "*": true}, "debounceMs": 20,
		"model": "flash-lite", "exclude": ["**/secrets/**"], "nextEdit": false, "completionItems": true}}`)
	s, err := load(env(map[string]string{"HOME": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if u := s.UnreadKeys(); len(u) != 0 {
		t.Errorf("inlineCompletion keys reported unread: %+v", u)
	}
	c := s.InlineCompletion
	if !c.On("go") || c.On("markdown") || c.Debounce() != 20 || c.Model != "flash-lite" || c.NextEditOn() || !c.CompletionItems || c.Exclude[0] != "**/secrets/**" {
		t.Errorf("read %+v", c)
	}
	var none InlineCompletion
	if !none.On("go") || !none.NextEditOn() || none.Debounce() != 50 || none.CompletionItems {
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
