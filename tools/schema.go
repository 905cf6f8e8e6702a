package tools

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"

	"google.golang.org/genai"
)

// A tool's parameters are declared once, as a Go struct P: schemaFor
// derives the JSON schema the model is given, and decode fills a P from the
// model's arguments with the messages Gemini CLI's validator gives, so the
// model can fix its call. Field tags:
//
//	json:"name"            a required parameter
//	json:"name,omitempty"  an optional one; use a pointer to tell absent from zero
//	desc:"..."             its description for the model
//	was:"older"            the name gemini-ls declared it by before it
//	                       followed Gemini CLI 0.61; calls (a model's, a
//	                       hook's, a saved session's) may still use it
//	param:"unenforced"     declared required, as 0.61 declares it, but a
//	                       call without it still runs: gemini-ls's older
//	                       declaration had it optional
//	param:"undeclared"     accepted from older calls but not declared
//
// (A tag of its own, not options of json's: encoding/json and vet's
// checks know json's options, and these are not.)
//
// Supported field types: string, bool, int, float64, []string, pointers to
// those, and map[string]any (any JSON object).

// declare is the declaration of a tool whose parameters are P.
func declare[P any](name, description string) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: name, Description: description, ParametersJsonSchema: schemaFor[P]()}
}

// schemaFor returns the JSON schema of the parameter struct P.
func schemaFor[P any]() map[string]any {
	t := reflect.TypeFor[P]()
	props := map[string]any{}
	var required []string
	for _, f := range paramFields(t) {
		if f.undeclared {
			continue
		}
		props[f.name] = fieldSchema(f.typ, f.desc)
		if f.required || f.unenforced {
			required = append(required, f.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func fieldSchema(t reflect.Type, desc string) map[string]any {
	s := map[string]any{"type": jsonType(t)}
	if t.Kind() == reflect.Slice {
		s["items"] = map[string]any{"type": jsonType(t.Elem())}
	}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// jsonType names the JSON type of a supported field type; anything else is
// a programming error.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Slice:
		return "array"
	case reflect.Map:
		return "object"
	}
	panic(fmt.Sprintf("tools: unsupported parameter type %s", t))
}

type paramField struct {
	index int
	name  string
	// was is the parameter's older name, "" when it had none.
	was  string
	desc string
	// required: a call without it is refused; unenforced: declared
	// required, but calls without it run; undeclared: not declared.
	required, unenforced, undeclared bool
	typ                              reflect.Type
}

func paramFields(t reflect.Type) []paramField {
	var out []paramField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		jsonType(f.Type) // panics early on an unsupported type
		param := f.Tag.Get("param")
		optional, unenforced := strings.Contains(opts, "omitempty"), param == "unenforced"
		out = append(out, paramField{index: i, name: name, was: f.Tag.Get("was"), desc: f.Tag.Get("desc"),
			required: !optional && !unenforced, unenforced: unenforced, undeclared: param == "undeclared", typ: f.Type})
	}
	return out
}

// renameOlder returns raw with each argument given by the older name a
// field's was tag names moved to the field's own name: the call as Gemini
// CLI 0.61 would have made it. raw is never changed, and is itself
// returned when it holds no older name. An older name given alongside the
// newer one is refused unless both hold the same value: guessing which
// one the caller meant could run a different call than the one approved.
func renameOlder[P any](raw map[string]any) (map[string]any, error) {
	out, copied := raw, false
	for _, f := range paramFields(reflect.TypeFor[P]()) {
		if f.was == "" {
			continue
		}
		old, ok := raw[f.was]
		if !ok {
			continue
		}
		if !copied {
			out, copied = maps.Clone(raw), true
		}
		delete(out, f.was)
		if cur := raw[f.name]; cur != nil && old != nil && !reflect.DeepEqual(cur, old) {
			return nil, bothNames(f.name, f.was)
		}
		if old != nil && raw[f.name] == nil {
			out[f.name] = old
		}
	}
	return out, nil
}

// bothNames is the error for a call that gave a parameter under its
// current and its older name, with different values.
func bothNames(name, older string) error {
	return fmt.Errorf("params/%s and params/%s (its older name) were both given, with different values: give only %s", name, older, name)
}

// missing is the error for a required parameter the call left out.
func missing(name string) error {
	return fmt.Errorf("params must have required property '%s'", name)
}

// decode fills p, a pointer to a parameter struct, from the model's
// arguments. JSON null counts as absent; unknown arguments are ignored, as
// Gemini CLI does.
func decode[P any](raw map[string]any, p *P) error {
	v := reflect.ValueOf(p).Elem()
	for _, f := range paramFields(v.Type()) {
		arg, ok := raw[f.name]
		if !ok || arg == nil {
			if f.required {
				return missing(f.name)
			}
			continue
		}
		if err := set(v.Field(f.index), arg, "params/"+f.name); err != nil {
			return err
		}
	}
	return nil
}

func set(dst reflect.Value, arg any, where string) error {
	if dst.Kind() == reflect.Pointer {
		elem := reflect.New(dst.Type().Elem())
		if err := set(elem.Elem(), arg, where); err != nil {
			return err
		}
		dst.Set(elem)
		return nil
	}
	wrong := fmt.Errorf("%s must be %s", where, jsonType(dst.Type()))
	switch dst.Kind() {
	case reflect.String:
		s, ok := arg.(string)
		if !ok {
			return wrong
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := arg.(bool)
		if !ok {
			return wrong
		}
		dst.SetBool(b)
	case reflect.Int:
		n, ok := wholeNumber(arg)
		if !ok {
			return wrong
		}
		dst.SetInt(int64(n))
	case reflect.Float64:
		f, ok := arg.(float64)
		if !ok {
			return wrong
		}
		dst.SetFloat(f)
	case reflect.Slice:
		items, ok := arg.([]any)
		if !ok {
			if ss, isStrings := arg.([]string); isStrings {
				dst.Set(reflect.ValueOf(ss))
				return nil
			}
			return wrong
		}
		out := reflect.MakeSlice(dst.Type(), len(items), len(items))
		for i, item := range items {
			if err := set(out.Index(i), item, fmt.Sprintf("%s/%d", where, i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Map:
		m, ok := arg.(map[string]any)
		if !ok {
			return wrong
		}
		dst.Set(reflect.ValueOf(m))
	}
	return nil
}

// wholeNumber accepts a JSON number without a fraction, within int32 as
// Gemini CLI's integer parameters are.
func wholeNumber(arg any) (int, bool) {
	var f float64
	switch v := arg.(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || f > math.MaxInt32 || f < math.MinInt32 {
		return 0, false
	}
	return int(f), true
}

// orTrue is an optional boolean parameter that defaults to true.
func orTrue(b *bool) bool { return b == nil || *b }
