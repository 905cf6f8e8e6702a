package tools

import (
	"fmt"
	"math"
)

// args reads a call's JSON arguments with messages in the style of the
// schema validator Gemini CLI uses, so the model can fix its call. JSON null
// counts as absent.
type args map[string]any

func missing(name string) error {
	return fmt.Errorf("params must have required property '%s'", name)
}

// str returns a string parameter; ok reports whether it was given.
func (a args) str(name string, required bool) (s string, ok bool, err error) {
	v := a[name]
	if v == nil {
		if required {
			return "", false, missing(name)
		}
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, fmt.Errorf("params/%s must be string", name)
	}
	return s, true, nil
}

// boolean returns a boolean parameter, def when absent.
func (a args) boolean(name string, def bool) (bool, error) {
	v := a[name]
	if v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("params/%s must be boolean", name)
	}
	return b, nil
}

// integer returns an integer parameter; ok reports whether it was given.
// JSON numbers arrive as float64; fractions are refused.
func (a args) integer(name string) (n int, ok bool, err error) {
	v := a[name]
	if v == nil {
		return 0, false, nil
	}
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case int:
		return v, true, nil
	case int64:
		f = float64(v)
	default:
		return 0, false, fmt.Errorf("params/%s must be integer", name)
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || f > math.MaxInt32 || f < math.MinInt32 {
		return 0, false, fmt.Errorf("params/%s must be integer", name)
	}
	return int(f), true, nil
}

// stringList returns an array-of-strings parameter, nil when absent.
func (a args) stringList(name string) ([]string, error) {
	v := a[name]
	if v == nil {
		return nil, nil
	}
	switch v := v.(type) {
	case []string:
		return v, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("params/%s/%d must be string", name, i)
			}
			out[i] = s
		}
		return out, nil
	default:
		return nil, fmt.Errorf("params/%s must be array", name)
	}
}

// Schema helpers for declarations.

func object(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func prop(typ, description string) map[string]any {
	return map[string]any{"type": typ, "description": description}
}

func stringArray(description string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": description}
}
