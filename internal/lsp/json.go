package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

func isJSON(b []byte) bool { return json.Valid(b) }

// decodeParams decodes raw into v, turning any problem into InvalidParams
// that names the offending field.
func decodeParams(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			field := typeErr.Field
			if field == "" {
				return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "params must be a JSON object, not %s", typeErr.Value)
			}
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: field %q must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch {
	case goKind == "string":
		return "a string"
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "bool":
		return "a boolean"
	case goKind == "slice":
		return "an array"
	default:
		return "an object"
	}
}

func missingField(name string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: missing required field %q", name)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshaling %T: %v", v, err))
	}
	return b
}
