package settings

import (
	"encoding/json"
	"slices"
	"strings"
)

// Gemini CLI merges its layers key by key, recursively, the later layer
// winning (deepMerge.ts), except where settingsSchema.ts gives a key
// another mergeStrategy. These are the keys gemini-ls reads that have one.
const (
	mergeShallow = "shallow_merge" // entries merge by name, each replaced whole
	mergeUnion   = "union"         // arrays joined, each value once
	mergeConcat  = "concat"        // arrays joined, every value kept
)

// mergeStrategy is the strategy of the key at path ("" for the default,
// the later layer's value winning). A switch, not a table: the table was
// built at every start-up.
func mergeStrategy(path string) string {
	switch path {
	case "mcpServers":
		return mergeShallow
	case "tools.exclude", "skills.disabled", "hooksConfig.disabled", "advanced.excludedEnvVars":
		return mergeUnion
	case "context.includeDirectories":
		return mergeConcat
	}
	if event, ok := strings.CutPrefix(path, "hooks."); ok && slices.Contains(HookEvents, event) {
		return mergeConcat
	}
	return ""
}

// mergeLayers merges layers, later ones winning, into a new object; nil
// layers (missing or unusable files) are skipped. The layers are not
// changed: every object of the result is new (arrays and strings may be
// shared, and are never changed).
func mergeLayers(layers ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, layer := range layers {
		merge(out, layer, "")
	}
	return out
}

// merge merges src into dst as Gemini CLI's customDeepMerge does; prefix
// is dst's dotted path.
func merge(dst, src map[string]any, prefix string) {
	for key, val := range src {
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		old, exists := dst[key]
		strategy := mergeStrategy(path)
		if strategy == mergeShallow && exists && old != nil && val != nil {
			joined := map[string]any{}
			for _, m := range []any{old, val} {
				if obj, ok := m.(map[string]any); ok {
					for k, v := range obj {
						joined[k] = v
					}
				}
			}
			dst[key] = joined
			continue
		}
		if oldList, ok := old.([]any); ok && (strategy == mergeUnion || strategy == mergeConcat) {
			newList, ok := val.([]any)
			if !ok {
				newList = []any{val}
			}
			if strategy == mergeUnion {
				dst[key] = union(oldList, newList)
			} else {
				dst[key] = slices.Concat(oldList, newList)
			}
			continue
		}
		srcObj, srcIsObj := val.(map[string]any)
		dstObj, dstIsObj := old.(map[string]any)
		switch {
		case srcIsObj && dstIsObj:
			merge(dstObj, srcObj, path)
		case srcIsObj:
			fresh := map[string]any{}
			merge(fresh, srcObj, path)
			dst[key] = fresh
		default:
			dst[key] = val
		}
	}
}

// union is a's values, then b's not already there.
func union(a, b []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, v := range append(append([]any{}, a...), b...) {
		k := string(mustMarshal(v))
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// lookup returns the value at a dotted path of obj.
func lookup(obj map[string]any, path string) (any, bool) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			return nil, false
		}
		obj = next
	}
	v, ok := obj[keys[len(keys)-1]]
	return v, ok
}

// remove deletes the value at a dotted path of obj, if there.
func remove(obj map[string]any, path string) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			return
		}
		obj = next
	}
	delete(obj, keys[len(keys)-1])
}

// set puts v at a dotted path of obj, making the objects on the way.
func set(obj map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[keys[len(keys)-1]] = v
}

// toMap is v (a struct) as a decoded JSON object.
func toMap(v any) map[string]any {
	var obj map[string]any
	_ = json.Unmarshal(mustMarshal(v), &obj)
	return obj
}
