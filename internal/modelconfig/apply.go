package modelconfig

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// Over is a copy of cfg (nil for none) with gen, a resolved
// generateContentConfig, laid over it as 0.61 merges it: each key
// replaces the field of that JSON name, an object merged key by key into
// the field's own (thinkingConfig). Keys that name no field of the
// request config are left out and named in unknown; a value of the wrong
// kind fails, naming its key. cfg is not changed.
func Over(cfg *genai.GenerateContentConfig, gen map[string]any) (out *genai.GenerateContentConfig, unknown []string, err error) {
	out = &genai.GenerateContentConfig{}
	if cfg != nil {
		c := *cfg
		out = &c
	}
	v := reflect.ValueOf(out).Elem()
	for _, key := range sortedKeys(gen) {
		f, ok := fieldByJSONName(v, key)
		// httpOptions could send the request, and its key, elsewhere:
		// where requests go is the environment's choice, not a model
		// config's.
		if !ok || key == "httpOptions" {
			unknown = append(unknown, key)
			continue
		}
		if err := setField(f, gen[key]); err != nil {
			return nil, nil, fmt.Errorf("generateContentConfig.%s: %w", key, err)
		}
	}
	return out, unknown, nil
}

// setField sets f, a field of a copy, to val: decoded afresh into a new
// value, so that nothing the copy shares with the original is written
// through; an object over a set struct is merged into what it holds.
func setField(f reflect.Value, val any) error {
	if obj, ok := val.(map[string]any); ok && !f.IsZero() && isStructLike(f.Type()) {
		raw, err := json.Marshal(f.Interface())
		if err != nil {
			return err
		}
		var cur map[string]any
		if err := json.Unmarshal(raw, &cur); err != nil {
			return err
		}
		val = deepMerge(cur, obj)
	}
	raw, err := json.Marshal(val)
	if err != nil {
		return err
	}
	fresh := reflect.New(f.Type())
	if err := jsjson.Decode(raw, fresh.Interface()); err != nil {
		return err
	}
	f.Set(fresh.Elem())
	return nil
}

func isStructLike(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// fieldByJSONName is v's field whose JSON name is name.
func fieldByJSONName(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if tag == name || tag == "" && strings.EqualFold(sf.Name, name) {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
