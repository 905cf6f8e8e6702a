package tools

import (
	"maps"
	"reflect"
)

// WaitForPrevious is the argument by which the model orders a call after
// the earlier calls of its answer (the agent's scheduler reads it).
const WaitForPrevious = "wait_for_previous"

// waiting is embedded in the parameters of the built-in tools Gemini CLI
// 0.61 gives wait_for_previous (update_topic, the background tools): its
// addWaitForPreviousParameter adds it to the tools that keep their base
// schema. Its description is 0.61's, word for word.
type waiting struct {
	WaitForPrevious bool `json:"wait_for_previous,omitempty" jsonschema:"Set to true to wait for all previously requested tools in this turn to complete before starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the output of previous tools."`
}

// AddWaitForPrevious returns schema with the wait_for_previous parameter
// declared, as Gemini CLI 0.61's addWaitForPreviousParameter does for the
// tools that keep its base schema (MCP tools, discovered tools,
// update_topic, the background tools; not the other built-in tools): only
// to a JSON schema of type object whose properties, if any, are an
// object; any other schema is returned as it is. schema is not changed.
func AddWaitForPrevious(schema any) any {
	s, ok := schema.(map[string]any)
	if !ok || s["type"] != "object" {
		return schema
	}
	props := map[string]any{}
	if p, present := s["properties"]; present {
		p, ok := p.(map[string]any)
		if !ok {
			return schema
		}
		props = maps.Clone(p)
	}
	props[WaitForPrevious] = declaredSchema(reflect.TypeFor[waiting](), nil)["properties"].(map[string]any)[WaitForPrevious]
	out := maps.Clone(s)
	out["properties"] = props
	return out
}
