package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// A subagent's report reaches the transcript as prose. A structured
// report (codebase_investigator's JSON, which the agent displays in a
// ```json block) is its summary, then its other fields as a short list
// in words, in the report's order, as Gemini CLI 0.61's jsonToMarkdown
// lays one out but without its bold keys: plain text in an editor that
// shows Markdown as it is. Any other report is as the subagent wrote it.

// reportMarkdown is display, an invoke_agent call's result, as the
// transcript shows it.
func reportMarkdown(display string) string {
	display = strings.TrimSpace(display)
	body, ok := strings.CutPrefix(display, "```json\n")
	if !ok {
		return display
	}
	body, ok = strings.CutSuffix(body, "\n```")
	if !ok {
		return display
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	fields, isObject := v.(jsonObject)
	if err != nil || !isObject || len(fields) == 0 {
		return display
	}
	var summary string
	var details jsonObject
	for _, f := range fields {
		if s, ok := f.value.(string); ok && summary == "" && strings.Contains(strings.ToLower(f.key), "summary") {
			summary = strings.TrimSpace(s)
			continue
		}
		details = append(details, f)
	}
	var parts []string
	if summary != "" {
		parts = append(parts, summary)
	}
	if len(details) > 0 {
		parts = append(parts, "Details:\n"+strings.Join(reportLines(details, ""), "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// jsonObject is a JSON object's fields in their order.
type jsonObject []jsonField

type jsonField struct {
	key   string
	value any
}

// decodeOrdered decodes the next JSON value of dec, objects as
// jsonObject, arrays as []any, the rest as encoding/json does.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := jsonObject{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonField{key: fmt.Sprint(key), value: v})
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	return tok, nil
}

// reportLines lays v out as Markdown list lines after pad: an object's
// fields as "- Key: value", a list's items as "- item", what is inside
// them indented under them.
func reportLines(v any, pad string) []string {
	var out []string
	switch v := v.(type) {
	case jsonObject:
		for _, f := range v {
			out = append(out, reportField(pad+"- ", pad+"  ", pad+"  ", f)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, reportItem(pad, x)...)
		}
	}
	return out
}

// reportField is "Key: value" after head, its further lines after cont,
// a value of items after sub.
func reportField(head, cont, sub string, f jsonField) []string {
	label := head + reportKey(f.key) + ":"
	switch v := f.value.(type) {
	case jsonObject, []any:
		lines := reportLines(v, sub)
		if len(lines) == 0 {
			return []string{label + " none"}
		}
		return append([]string{label}, lines...)
	}
	return reportScalarLines(label+" ", cont, f.value)
}

// reportItem is a list's item after pad; an object in a list is its fields
// one a line, the first on the item's ("- File path: a.go", then
// "  Reasoning: …"), as a person lists records.
func reportItem(pad string, x any) []string {
	switch v := x.(type) {
	case jsonObject:
		var out []string
		for i, f := range v {
			head := pad + "  "
			if i == 0 {
				head = pad + "- "
			}
			out = append(out, reportField(head, pad+"  ", pad+"    ", f)...)
		}
		if len(out) == 0 {
			return []string{pad + "- none"}
		}
		return out
	case []any:
		lines := reportLines(v, pad+"  ")
		if len(lines) == 0 {
			return []string{pad + "- none"}
		}
		lines[0] = pad + "- " + strings.TrimPrefix(lines[0], pad+"  ")
		return lines
	}
	return reportScalarLines(pad+"- ", pad+"  ", x)
}

// reportScalarLines is a scalar after head, its further lines after cont.
func reportScalarLines(head, cont string, v any) []string {
	lines := strings.Split(reportScalar(v), "\n")
	out := []string{head + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, strings.TrimRight(cont+l, " "))
	}
	return out
}

// reportScalar is a JSON scalar in words.
func reportScalar(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(v)
}

// reportKey is a report's key as a person writes it: "SummaryOfFindings" or
// "summary_of_findings" as "Summary of findings".
func reportKey(key string) string {
	var b bytes.Buffer
	prev := ' '
	for _, r := range key {
		switch {
		case r == '_' || r == '-':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	if s == "" {
		return key
	}
	first := []rune(s)
	first[0] = unicode.ToUpper(first[0])
	return string(first)
}
