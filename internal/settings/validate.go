package settings

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// schemaDefaults is the first layer, as in Gemini CLI (getDefaultsFromSchema):
// the defaults of settingsSchema.ts for the keys gemini-ls reads, where the
// zero value would not say the same thing. tools.disableLLMCorrection is
// left false on purpose (docs/configuration.md says why).
func schemaDefaults() map[string]any {
	return map[string]any{
		"general": map[string]any{"defaultApprovalMode": ApprovalDefault},
		"model": map[string]any{
			"maxSessionTurns":      float64(-1),
			"compressionThreshold": DefaultCompressionThreshold,
		},
		// Joined with every file's (mergeUnion), so these two are
		// always excluded, as in 0.61.
		"advanced": map[string]any{"excludedEnvVars": []any{"DEBUG", "DEBUG_MODE"}},
	}
}

// migrateLegacy rewrites, in one file's object, the deprecated spellings
// Gemini CLI still migrates (migrateDeprecatedSettings) for keys gemini-ls
// reads: tools.approvalMode becomes general.defaultApprovalMode unless that
// is set. (Gemini CLI no longer reads the flat v1 keys, such as coreTools
// or selectedAuthType, so neither does gemini-ls.) The older agent
// settings become agents.overrides (migrateAgentSettings).
func migrateLegacy(obj map[string]any) {
	if old, ok := lookup(obj, "tools.approvalMode"); ok {
		if _, ok := lookup(obj, "general.defaultApprovalMode"); !ok {
			set(obj, "general.defaultApprovalMode", old)
		}
		remove(obj, "tools.approvalMode")
	}
	migrateAgentSettings(obj)
}

// valueRule is a check of one key's value beyond its JSON type.
type valueRule struct {
	path string
	// check checks v, which has the right type already; shown is v quoted
	// as the file wrote it, for the error.
	check func(v any, shown string, overlay bool) error
}

var authTypes = []string{AuthGeminiAPIKey, AuthVertexAI, AuthOAuthPersonal, AuthCloudShell}

var valueRules = []valueRule{
	{"general.defaultApprovalMode", func(v any, shown string, overlay bool) error {
		switch mode := v.(string); {
		case mode == ApprovalDefault, mode == ApprovalAutoEdit, mode == ApprovalPlan:
			return nil
		case mode == ApprovalYolo && overlay:
			return nil
		case mode == ApprovalYolo:
			return errors.New(`"yolo" is not taken from a settings file, as in Gemini CLI: choose it with --approval-mode yolo or the editor's initializationOptions`)
		default:
			valid := "default, auto_edit, plan"
			if overlay {
				valid += ", yolo"
			}
			return fmt.Errorf("%s is not one of %s", shown, valid)
		}
	}},
	{"model.compressionThreshold", func(v any, _ string, _ bool) error {
		if x := v.(float64); x <= 0 || x > 1 {
			return fmt.Errorf("%v is not a fraction above 0 and at most 1", x)
		}
		return nil
	}},
	{"output.format", func(v any, shown string, _ bool) error {
		if f := v.(string); f != "text" && f != "json" {
			return fmt.Errorf("%s is not one of text, json", shown)
		}
		return nil
	}},
	{"security.auth.selectedType", checkAuthType},
	{"security.auth.enforcedType", checkAuthType},
}

func checkAuthType(v any, shown string, _ bool) error {
	if t := v.(string); !slices.Contains(authTypes, t) {
		return fmt.Errorf("%s is not one of %s", shown, strings.Join(authTypes, ", "))
	}
	return nil
}

// checkedValues are the values of obj that checkValues checks, by path, as
// written: before their variables are expanded.
func checkedValues(obj map[string]any) map[string]any {
	out := map[string]any{}
	for _, r := range valueRules {
		if v, ok := lookup(obj, r.path); ok {
			out[r.path] = v
		}
	}
	return out
}

// checkValues checks the values of obj, whose types are right, removes
// each bad one, and says why. written are the values before their
// variables were expanded (checkedValues; nil when nothing was expanded):
// an error shows a value as written, so that what a variable held is
// never shown. overlay is true for the editor's options, which may choose
// yolo.
func checkValues(obj, written map[string]any, overlay bool) []error {
	var problems []error
	for _, r := range valueRules {
		v, ok := lookup(obj, r.path)
		if !ok || v == nil {
			continue
		}
		shown := fmt.Sprintf("%q", v)
		if w, ok := written[r.path]; ok && w != v {
			shown = fmt.Sprintf("%q (its variables expanded)", w)
		}
		if err := r.check(v, shown, overlay); err != nil {
			remove(obj, r.path)
			problems = append(problems, fmt.Errorf("%s: %w", r.path, err))
		}
	}
	return problems
}
