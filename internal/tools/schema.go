package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"
)

// A tool's parameters are declared once, as a Go struct P:
// github.com/google/jsonschema-go derives its JSON schema (nested structs
// and lists of them included), which is what the model is told, and
// decode checks the model's arguments against that schema before it
// fills a P, with the messages Gemini CLI's validator (ajv) gives, so the
// model can fix its call. Field tags:
//
//	json:"name"            a required parameter
//	json:"name,omitempty"  an optional one; use a pointer to tell absent from zero
//	jsonschema:"..."       its description for the model (jsonschema-go's tag)
//
// and, on P's own fields:
//
//	was:"older"            the name gemini-ls declared it by before it
//	                       followed Gemini CLI 0.61; calls (a model's, a
//	                       hook's, a saved session's) may still use it
//	param:"unenforced"     declared required, as 0.61 declares it, but a
//	                       call without it still runs: gemini-ls's older
//	                       declaration had it optional
//	param:"undeclared"     accepted from older calls but not declared
//
// (Tags of their own, not options of json's: encoding/json and vet's
// checks know json's options, and these are not.)
//
// What Go types and tags cannot say (an enum, bounds, a default, the
// additionalProperties: false some of 0.61's schemas carry) P adds in
// its extendSchema method (schemaExtender). jsonschema-go's own
// additions that 0.61 does not declare are left out: "null" among the
// types of pointers and slices (a null argument counts as absent), and
// additionalProperties: false on every object (arguments a tool does not
// know are ignored, as Gemini CLI ignores them).

// schemaExtender is a parameter struct that adds to its derived schema
// what Go types and struct tags cannot say.
type schemaExtender interface {
	extendSchema(s *jsonschema.Schema)
}

// closed is the schema of "additionalProperties": false, for the
// extendSchema of the objects 0.61 declares so.
func closed() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// derive is the schema of the parameter struct type t, with opts (nil:
// none) as jsonschema-go takes them, as 0.61 would declare it, but for
// t's undeclared fields, which it still holds. A type jsonschema-go
// cannot describe is a programming error.
func derive(t reflect.Type, opts *jsonschema.ForOptions) *jsonschema.Schema {
	s, err := jsonschema.ForType(t, opts)
	if err != nil {
		panic(fmt.Sprintf("tools: the parameters %s: %v", t, err))
	}
	plain(s)
	if e, ok := reflect.Zero(t).Interface().(schemaExtender); ok {
		e.extendSchema(s)
	}
	return s
}

// plain drops from s what jsonschema-go adds and 0.61 does not declare:
// "null" as a type, additionalProperties.
func plain(s *jsonschema.Schema) {
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		plain(p)
	}
	if s.Items != nil {
		plain(s.Items)
	}
}

// declare is the declaration of a tool whose parameters are P.
func declare[P any](name, description string) *genai.FunctionDeclaration {
	return declareWith[P](name, description, nil)
}

// declareWith is declare with opts for jsonschema-go: the schemas of
// types only known at run time (activate_skill's skill names).
func declareWith[P any](name, description string, opts *jsonschema.ForOptions) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: name, Description: description, ParametersJsonSchema: declaredSchema(reflect.TypeFor[P](), opts)}
}

// declaredSchema is the schema the model is told for the parameter
// struct type t: derive's, without the undeclared parameters, as the
// JSON object genai sends (required lists as []string, which the tests
// compare). Without opts it is made once per type (schemasOf) and
// shared: never change it.
func declaredSchema(t reflect.Type, opts *jsonschema.ForOptions) map[string]any {
	if opts == nil {
		return schemasOf(t).declared
	}
	return declaredFrom(derive(t, opts), paramFields(t))
}

// declaredFrom is derived schema s as the model is told it, without the
// properties fields says are undeclared. s is not changed.
func declaredFrom(s *jsonschema.Schema, fields []paramField) map[string]any {
	m, _ := jsonValue(s).(map[string]any)
	if m == nil {
		panic(fmt.Sprintf("tools: a parameter schema that is not an object: %v", s))
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{} // a struct without fields: 0.61 declares none
		m["properties"] = props
	}
	for _, f := range fields {
		if !f.undeclared {
			continue
		}
		delete(props, f.name)
		if r, ok := m["required"].([]string); ok {
			if r = slices.DeleteFunc(r, func(n string) bool { return n == f.name }); len(r) == 0 {
				delete(m, "required")
			} else {
				m["required"] = r
			}
		}
	}
	return m
}

// jsonValue is s as the JSON value it marshals to, decoded again as
// encoding/json decodes into an any (numbers float64, objects
// map[string]any), but for required lists, which are []string: what
// genai sends, made without the round trip through JSON that cost a
// process's first request 0.6 MB (issue 44). It knows the keywords
// derived schemas use; a schema with any other goes through JSON.
func jsonValue(s *jsonschema.Schema) any {
	rest := *s
	m := map[string]any{}
	switch {
	case s.Type != "":
		m["type"] = s.Type
	case s.Types != nil:
		types := make([]any, len(s.Types))
		for i, t := range s.Types {
			types[i] = t
		}
		m["type"] = types
	}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if len(s.Enum) > 0 {
		enum, ok := jsonValues(s.Enum)
		if !ok {
			return viaJSON(s)
		}
		m["enum"] = enum
	}
	if s.Default != nil {
		var v any
		if err := json.Unmarshal(s.Default, &v); err != nil {
			panic(fmt.Sprintf("tools: a schema's default %s: %v", s.Default, err))
		}
		m["default"] = v
	}
	if s.Minimum != nil {
		m["minimum"] = *s.Minimum
	}
	if s.Maximum != nil {
		m["maximum"] = *s.Maximum
	}
	if s.MinItems != nil {
		m["minItems"] = float64(*s.MinItems)
	}
	if s.MaxItems != nil {
		m["maxItems"] = float64(*s.MaxItems)
	}
	if len(s.Required) > 0 {
		m["required"] = slices.Clone(s.Required)
	}
	if s.Properties != nil { // an empty map too: {"properties": {}}
		props := make(map[string]any, len(s.Properties))
		for name, p := range s.Properties {
			props[name] = jsonValue(p)
		}
		m["properties"] = props
	}
	if s.Items != nil {
		m["items"] = jsonValue(s.Items)
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = jsonValue(s.AdditionalProperties)
	}
	if s.Not != nil {
		m["not"] = jsonValue(s.Not)
	}
	rest.Type, rest.Types, rest.Description, rest.Enum, rest.Default = "", nil, "", nil, nil
	rest.Minimum, rest.Maximum, rest.MinItems, rest.MaxItems = nil, nil, nil, nil
	rest.Required, rest.Properties, rest.PropertyOrder, rest.Items = nil, nil, nil, nil
	rest.AdditionalProperties, rest.Not = nil, nil
	if !reflect.ValueOf(rest).IsZero() {
		return viaJSON(s)
	}
	// As jsonschema-go marshals them: {} as true, {"not": {}} as false.
	switch {
	case len(m) == 0:
		return true
	case len(m) == 1 && m["not"] == true:
		return false
	}
	return m
}

// jsonValues is values as JSON decodes them, when each already is one
// of the types it decodes to (a string, a bool, a float64, nil).
func jsonValues(values []any) ([]any, bool) {
	out := make([]any, len(values))
	for i, v := range values {
		switch v.(type) {
		case string, bool, float64, nil:
			out[i] = v
		default:
			return nil, false
		}
	}
	return out, true
}

// viaJSON is jsonValue's answer for a schema it does not know every
// keyword of: s marshalled and decoded again.
func viaJSON(s *jsonschema.Schema) any {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: the schema %v: %v", s, err))
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(fmt.Sprintf("tools: the schema %s: %v", b, err))
	}
	requiredStrings(v)
	return v
}

// requiredStrings makes every required list of schema v a []string.
func requiredStrings(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if r, ok := m["required"].([]any); ok {
		names := make([]string, len(r))
		for i, n := range r {
			names[i], _ = n.(string)
		}
		m["required"] = names
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			requiredStrings(p)
		}
	}
	requiredStrings(m["items"])
}

// paramField is what the tags of one of a parameter struct's own fields
// say besides its schema.
type paramField struct {
	name string
	// was is the parameter's older name, "" when it had none.
	was string
	// unenforced: declared required, but calls without it run;
	// undeclared: not declared.
	unenforced, undeclared bool
}

func paramFields(t reflect.Type) []paramField {
	var out []paramField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		param := f.Tag.Get("param")
		out = append(out, paramField{name: name, was: f.Tag.Get("was"), unenforced: param == "unenforced", undeclared: param == "undeclared"})
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
	for _, f := range schemasOf(reflect.TypeFor[P]()).fields {
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

// missing is the error for a required property the call left out; where
// is "params" or the path to the object that lacks it.
func missing(where, name string) error {
	return fmt.Errorf("%s must have required property '%s'", where, name)
}

// decode checks the model's arguments against the schema derived from P
// (derive: the undeclared parameters too, the unenforced ones not
// required) and fills p from them. JSON null counts as absent; arguments
// the schema does not name are ignored, as Gemini CLI ignores them.
//
// The check walks the schema itself rather than calling jsonschema-go's
// Validate: the model reads ajv's messages, which name the argument's
// place (params/questions/0/type), where Validate's name the schema's.
func decode[P any](raw map[string]any, p *P) error {
	s := enforced(reflect.TypeFor[P]())
	if raw == nil {
		raw = map[string]any{}
	}
	args, err := check(s, raw, "params")
	if err != nil {
		return err
	}
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return fmt.Errorf("params: %w", err) // check let through what P cannot hold: a bug
	}
	return nil
}

// paramSchemas are what one parameter struct type's schema is made
// into, once.
type paramSchemas struct {
	// fields are what the tags of its own fields say.
	fields []paramField
	// enforced is the schema a call is checked against: derive's, its
	// unenforced parameters not required.
	enforced *jsonschema.Schema
	// declared is the schema the model is told (declaredSchema).
	declared map[string]any
}

// schemaCache memoises schemasOf: a pure function of a type, as
// encoding/json memoises its encoders, so that a type's schema is
// derived once however many tools, registries and calls use it.
var schemaCache sync.Map // reflect.Type → *paramSchemas

// schemasOf is what the parameter struct type t's schema is made into.
// It is shared: never change it.
func schemasOf(t reflect.Type) *paramSchemas {
	if ps, ok := schemaCache.Load(t); ok {
		return ps.(*paramSchemas)
	}
	s, fields := derive(t, nil), paramFields(t)
	ps := &paramSchemas{fields: fields, declared: declaredFrom(s, fields)}
	for _, f := range fields {
		if f.unenforced {
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
		}
	}
	ps.enforced = s
	got, _ := schemaCache.LoadOrStore(t, ps)
	return got.(*paramSchemas)
}

// enforced is the schema a call of parameter type t is checked against.
// It is shared: never change it.
func enforced(t reflect.Type) *jsonschema.Schema { return schemasOf(t).enforced }

// check returns v, the argument at where, as schema s allows it: of its
// objects only the properties s names, nulls left out; or the first way
// v breaks s, in ajv's words. It checks what derived schemas say: type,
// required, enum, minItems, maxItems, minimum.
func check(s *jsonschema.Schema, v any, where string) (any, error) {
	switch s.Type {
	case "object":
		return checkObject(s, v, where)
	case "array":
		return checkArray(s, v, where)
	case "string":
		if _, ok := v.(string); !ok {
			return nil, wrongType(s, where)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return nil, wrongType(s, where)
		}
	case "integer":
		n, ok := wholeNumber(v)
		if !ok {
			return nil, wrongType(s, where)
		}
		v = n
	case "number":
		if _, ok := v.(float64); !ok {
			return nil, wrongType(s, where)
		}
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		return nil, fmt.Errorf("%s must be equal to one of the allowed values", where)
	}
	if f, ok := v.(float64); ok && s.Minimum != nil && f < *s.Minimum {
		return nil, fmt.Errorf("%s must be >= %v", where, *s.Minimum)
	}
	if n, ok := v.(int); ok && s.Minimum != nil && float64(n) < *s.Minimum {
		return nil, fmt.Errorf("%s must be >= %v", where, *s.Minimum)
	}
	return v, nil
}

// wrongType is ajv's error for v at where not of s's type. It is made
// only when it is the answer: check runs on every argument of every call.
func wrongType(s *jsonschema.Schema, where string) error {
	return fmt.Errorf("%s must be %s", where, s.Type)
}

// checkObject is check of an object: its properties checked in order.
func checkObject(s *jsonschema.Schema, v any, where string) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, wrongType(s, where)
	}
	if s.Properties == nil {
		return obj, nil // any object
	}
	out := make(map[string]any, len(s.Properties))
	for _, name := range propertyNames(s) {
		arg := obj[name]
		if arg == nil {
			if slices.Contains(s.Required, name) {
				return nil, missing(where, name)
			}
			continue
		}
		c, err := check(s.Properties[name], arg, where+"/"+name)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// checkArray is check of an array (a []string too): its length, then
// each item.
func checkArray(s *jsonschema.Schema, v any, where string) (any, error) {
	items, ok := v.([]any)
	if ss, isStrings := v.([]string); isStrings {
		items, ok = make([]any, len(ss)), true
		for i, s := range ss {
			items[i] = s
		}
	}
	switch {
	case !ok:
		return nil, wrongType(s, where)
	case s.MinItems != nil && len(items) < *s.MinItems:
		return nil, fmt.Errorf("%s must NOT have fewer than %d items", where, *s.MinItems)
	case s.MaxItems != nil && len(items) > *s.MaxItems:
		return nil, fmt.Errorf("%s must NOT have more than %d items", where, *s.MaxItems)
	}
	out := make([]any, len(items))
	for i, item := range items {
		c, err := check(s.Items, item, fmt.Sprintf("%s/%d", where, i))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// propertyNames are the properties of s in the order of P's fields
// (jsonschema-go's PropertyOrder), which is the order they are checked
// in; the rest, sorted, after them. A derived schema's order names them
// all, and is returned as it is: check reads it for every object of
// every call. Never change what it returns.
func propertyNames(s *jsonschema.Schema) []string {
	if ordersAll(s) {
		return s.PropertyOrder
	}
	names := slices.Clone(s.PropertyOrder)
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
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

// ordersAll reports whether s's PropertyOrder names each of its
// properties, once.
func ordersAll(s *jsonschema.Schema) bool {
	if len(s.PropertyOrder) != len(s.Properties) {
		return false
	}
	for i, name := range s.PropertyOrder {
		if _, ok := s.Properties[name]; !ok || slices.Contains(s.PropertyOrder[:i], name) {
			return false
		}
	}
	return true
}
