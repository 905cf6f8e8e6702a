package modelconfig

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"
)

func mustNew(t testing.TB, aliases map[string]any, custom map[string]Alias, overrides, customOverrides []Override) *Set {
	t.Helper()
	s, err := New(aliases, custom, overrides, customOverrides)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func gen(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// A custom alias that extends chat-base takes the built-in chain's
// config under its own, as 0.61's docs' precise-mode example.
func TestCustomAliasExtendsTheBuiltIns(t *testing.T) {
	s := mustNew(t, nil, map[string]Alias{
		"precise": {Extends: "chat-base", ModelConfig: Config{Model: "gemini-2.5-flash", GenerateContentConfig: gen("temperature", 0.0, "topP", 1.0)}},
	}, nil, nil)
	got, err := s.Resolve(Key{Model: "precise", IsChatModel: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"temperature":0,"thinkingConfig":{"includeThoughts":true},"topK":64,"topP":1}`
	if b, _ := json.Marshal(got.GenerateContentConfig); got.Model != "gemini-2.5-flash" || string(b) != want || !got.Set {
		t.Errorf("got %s %s set %v, want gemini-2.5-flash %s", got.Model, b, got.Set, want)
	}
}

// A model with no alias of the user's, and no override of theirs that
// matches, is not the settings' concern.
func TestBuiltInsAloneAreNotSet(t *testing.T) {
	s := mustNew(t, nil, nil, nil, nil)
	got, err := s.Resolve(Key{Model: "gemini-2.5-pro", IsChatModel: true})
	if err != nil || got.Set || got.Model != "gemini-2.5-pro" {
		t.Errorf("got %+v, %v", got, err)
	}
	got, err = s.Resolve(Key{Model: "some-new-model", IsChatModel: true})
	if err != nil || got.Set || got.Model != "some-new-model" || got.GenerateContentConfig["topK"] != 64.0 {
		t.Errorf("an unknown chat model: got %+v, %v; want chat-base's config", got, err)
	}
}

// Overrides apply broadest first: by the level of the model they name
// (the model, then its aliases from the root down), then by how many
// keys match, then as written; a deeper one may change the model.
func TestOverridesOrder(t *testing.T) {
	s := mustNew(t, nil, map[string]Alias{
		"mine": {Extends: "chat-base", ModelConfig: Config{Model: "gemini-2.5-flash"}},
	}, []Override{
		{Match: gen("model", "mine"), ModelConfig: Config{GenerateContentConfig: gen("temperature", 0.5)}},
		{Match: gen("model", "chat-base"), ModelConfig: Config{GenerateContentConfig: gen("temperature", 0.1, "topP", 0.5)}},
		{Match: gen("model", "gemini-2.5-flash"), ModelConfig: Config{GenerateContentConfig: gen("temperature", 0.9, "topK", 3.0)}},
	}, []Override{
		{Match: gen("model", "mine", "isChatModel", true), ModelConfig: Config{Model: "gemini-2.5-pro"}},
		{Match: gen("overrideScope", "codebase_investigator"), ModelConfig: Config{GenerateContentConfig: gen("temperature", 2.0, "maxOutputTokens", 7.0)}},
		{Match: gen("isChatModel", false), ModelConfig: Config{GenerateContentConfig: gen("temperature", 3.0)}},
	})
	got, err := s.Resolve(Key{Model: "mine", IsChatModel: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "gemini-2.5-pro" || got.GenerateContentConfig["temperature"] != 0.5 || got.GenerateContentConfig["topP"] != 0.5 || got.GenerateContentConfig["topK"] != 3.0 {
		t.Errorf("got %s %v", got.Model, got.GenerateContentConfig)
	}
	scoped, err := s.Resolve(Key{Model: "mine", IsChatModel: true, OverrideScope: "codebase_investigator"})
	// Level 0, so the deeper overrides' temperature wins over its own.
	if err != nil || scoped.GenerateContentConfig["maxOutputTokens"] != 7.0 || scoped.GenerateContentConfig["temperature"] != 0.5 {
		t.Errorf("a scoped request: %v %v", scoped.GenerateContentConfig, err)
	}
	if got.GenerateContentConfig["maxOutputTokens"] != nil {
		t.Errorf("a scoped override matched an unscoped request: %v", got.GenerateContentConfig)
	}
}

// settings' aliases merge into the built-in ones key by key; a custom
// alias replaces one whole.
func TestAliasesMergeCustomAliasesReplace(t *testing.T) {
	s := mustNew(t, map[string]any{"chat-base": map[string]any{"modelConfig": map[string]any{"generateContentConfig": map[string]any{"temperature": 0.7}}}}, nil, nil, nil)
	got, _ := s.Resolve(Key{Model: "gemini-2.5-pro", IsChatModel: true})
	if got.GenerateContentConfig["temperature"] != 0.7 || got.GenerateContentConfig["topK"] != 64.0 || !got.Set {
		t.Errorf("aliases.chat-base merged: %v set %v", got.GenerateContentConfig, got.Set)
	}
	s = mustNew(t, nil, map[string]Alias{"chat-base": {ModelConfig: Config{GenerateContentConfig: gen("temperature", 0.7)}}}, nil, nil)
	got, _ = s.Resolve(Key{Model: "gemini-2.5-pro", IsChatModel: true})
	if got.GenerateContentConfig["temperature"] != 0.7 || got.GenerateContentConfig["topK"] != nil {
		t.Errorf("customAliases.chat-base replaced: %v", got.GenerateContentConfig)
	}
}

// Hostile chains fail with an error that says why, in bounded work.
func TestHostileChains(t *testing.T) {
	deep := map[string]Alias{}
	for i := range 500 {
		deep[fmt.Sprint("a", i)] = Alias{Extends: fmt.Sprint("a", i+1)}
	}
	deep["a500"] = Alias{ModelConfig: Config{Model: "m"}}
	for name, c := range map[string]struct {
		aliases map[string]Alias
		want    string
	}{
		"cycle":   {map[string]Alias{"x": {Extends: "y"}, "y": {Extends: "x"}}, "circular alias dependency: x -> y -> x"},
		"self":    {map[string]Alias{"x": {Extends: "x"}}, "circular"},
		"missing": {map[string]Alias{"x": {Extends: "nowhere"}}, `alias "nowhere" not found`},
		"deep":    {deep, "deeper than 100"},
		"nomodel": {map[string]Alias{"x": {Extends: "base"}}, "could not resolve a model name"},
	} {
		s := mustNew(t, nil, c.aliases, nil, nil)
		_, err := s.Resolve(Key{Model: map[string]string{"deep": "a0"}[name] + map[bool]string{true: "", false: "x"}[name == "deep"]})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// An alias the settings cannot read is left out, named; the rest stay.
func TestUnreadableAliasIsNamed(t *testing.T) {
	s, err := New(map[string]any{"bad": map[string]any{"extends": 5}, "good": map[string]any{"modelConfig": map[string]any{"model": "g"}}}, nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "modelConfigs.aliases.bad") {
		t.Errorf("error %v, want it to name modelConfigs.aliases.bad", err)
	}
	if got, err := s.Resolve(Key{Model: "good"}); err != nil || got.Model != "g" {
		t.Errorf("good: %+v %v", got, err)
	}
}

// Over lays the config on a copy: objects merge, the original is not
// written through, unknown keys and httpOptions are named, not sent.
func TestOver(t *testing.T) {
	temp := float32(1)
	orig := &genai.GenerateContentConfig{Temperature: &temp, ThinkingConfig: &genai.ThinkingConfig{IncludeThoughts: true}}
	out, unknown, err := Over(orig, gen("temperature", 0.2, "thinkingConfig", gen("thinkingBudget", 100.0), "bogus", 1.0, "httpOptions", gen("baseUrl", "http://evil")))
	if err != nil {
		t.Fatal(err)
	}
	if *out.Temperature != 0.2 || !out.ThinkingConfig.IncludeThoughts || *out.ThinkingConfig.ThinkingBudget != 100 || out.HTTPOptions != nil {
		t.Errorf("got %+v %+v", out, out.ThinkingConfig)
	}
	if *orig.Temperature != 1 || orig.ThinkingConfig.ThinkingBudget != nil {
		t.Error("the original config was changed")
	}
	if strings.Join(unknown, ",") != "bogus,httpOptions" {
		t.Errorf("unknown %v", unknown)
	}
	if _, _, err := Over(nil, gen("temperature", "hot")); err == nil || !strings.Contains(err.Error(), "generateContentConfig.temperature") {
		t.Errorf("a string temperature: %v", err)
	}
}

// No input makes Resolve panic or run unbounded.
func FuzzResolve(f *testing.F) {
	f.Add(`{"x":{"extends":"y"},"y":{"extends":"x"}}`, `[{"match":{"model":"x"},"modelConfig":{"model":"m"}}]`, "x")
	f.Add(`{"a":{"extends":"chat-base","modelConfig":{"model":"m","generateContentConfig":{"temperature":0}}}}`, `[]`, "a")
	f.Fuzz(func(t *testing.T, aliases, overrides, model string) {
		var custom map[string]Alias
		var list []Override
		_ = json.Unmarshal([]byte(aliases), &custom)
		_ = json.Unmarshal([]byte(overrides), &list)
		var raw map[string]any
		_ = json.Unmarshal([]byte(aliases), &raw)
		s, _ := New(raw, custom, list, nil)
		if s == nil {
			return
		}
		if r, err := s.Resolve(Key{Model: model, IsChatModel: true}); err == nil {
			_, _, _ = Over(nil, r.GenerateContentConfig)
		}
	})
}

// An alias is read by exact member names, as Gemini CLI reads settings:
// "modelconfig" is not "modelConfig", nor "Model" "model".
func TestAliasReadByExactNames(t *testing.T) {
	s := mustNew(t, map[string]any{"exact": map[string]any{
		"modelConfig": map[string]any{"model": "kept", "mOdel": "case"},
		"modelconfig": map[string]any{"model": "folded"},
	}}, nil, nil, nil)
	if got, err := s.Resolve(Key{Model: "exact"}); err != nil || got.Model != "kept" {
		t.Errorf("exact: %+v %v, want the model \"modelConfig\" names", got, err)
	}
}
