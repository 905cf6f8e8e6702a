// Command vscodemodels writes the VS Code extension's gemini.model
// setting from the models gemini-ls offers (models.Offered, the model
// picker's list), so the Settings editor lists them as a dropdown: the
// setting's enum, its labels and descriptions; its description stays as
// package.json has it. Run at the module's root, as `go generate .` does:
//
//	go run ./internal/models/cmd/vscodemodels editors/vscode/package.json
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: vscodemodels PACKAGE.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "vscodemodels:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	updated, err := withModels(old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(old, updated) {
		return nil
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// modelSetting is gemini.model's schema, its keys in package.json's order.
type modelSetting struct {
	Type                string   `json:"type"`
	Default             string   `json:"default"`
	MarkdownDescription string   `json:"markdownDescription"`
	Enum                []string `json:"enum"`
	EnumItemLabels      []string `json:"enumItemLabels"`
	EnumDescriptions    []string `json:"enumDescriptions"`
}

// settingKey opens the setting's object in package.json as npm formats
// it: two spaces a level, the setting at the fifth
// (contributes.configuration.properties).
const (
	settingKey = "\n        \"gemini.model\": {"
	settingEnd = "\n        }"
)

// withModels is manifest with gemini.model's object written anew from
// models.Offered, its description kept.
func withModels(manifest []byte) ([]byte, error) {
	var m struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	raw, ok := m.Contributes.Configuration.Properties["gemini.model"]
	if !ok {
		return nil, errors.New("no gemini.model setting in contributes.configuration.properties")
	}
	var have modelSetting
	if err := json.Unmarshal(raw, &have); err != nil {
		return nil, fmt.Errorf("parsing gemini.model: %w", err)
	}
	text := string(manifest)
	start := strings.Index(text, settingKey)
	if start < 0 {
		return nil, fmt.Errorf("gemini.model is not where npm writes it (%q)", settingKey)
	}
	start += len(settingKey) - 1 // at its "{"
	end := strings.Index(text[start:], settingEnd)
	if end < 0 {
		return nil, errors.New("gemini.model's object does not end where npm ends it")
	}
	end += start + len(settingEnd)
	object, err := json.MarshalIndent(setting(have.MarkdownDescription), "        ", "  ")
	if err != nil {
		return nil, fmt.Errorf("writing gemini.model: %w", err)
	}
	out := []byte(text[:start] + string(object) + text[end:])
	if !json.Valid(out) {
		return nil, errors.New("gemini.model's object written anew leaves package.json invalid")
	}
	return out, nil
}

// setting is gemini.model's schema: the server's default first (the
// empty string), then the models the picker offers, by their names.
func setting(description string) modelSetting {
	s := modelSetting{
		Type:                "string",
		Default:             "",
		MarkdownDescription: description,
		Enum:                []string{""},
		EnumItemLabels:      []string{"Default"},
		EnumDescriptions:    []string{"gemini-ls's default: GEMINI_MODEL, else model.name in your Gemini settings, else Auto."},
	}
	for _, o := range models.Offered() {
		s.Enum = append(s.Enum, o.ID)
		s.EnumItemLabels = append(s.EnumItemLabels, o.Name)
		s.EnumDescriptions = append(s.EnumDescriptions, cmp.Or(o.Description, describe(o)))
	}
	return s
}

// describe says what a model offered without a description of its own is.
func describe(o models.Option) string {
	if o.ID != o.Name {
		return fmt.Sprintf("%s, sent as %s (its variant for custom tools).", o.Name, o.ID)
	}
	return o.Name + ", for every prompt."
}
