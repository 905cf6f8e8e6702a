package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

const manifestPath = "../../../../editors/vscode/package.json"

// TestPackageJSONListsTheOfferedModels holds the extension's gemini.model
// setting to models.Offered, as src/protocol.ts is held to the schema:
// run `go generate .` when it fails.
func TestPackageJSONListsTheOfferedModels(t *testing.T) {
	have, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withModels(have)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(want) {
		t.Errorf("%s's gemini.model is not what models.Offered makes: run go generate . at the module's root", filepath.Clean(manifestPath))
	}
}

// TestWithModels writes the setting into a manifest whose enum has
// drifted, keeping its description and the rest of the file.
func TestWithModels(t *testing.T) {
	stale := `{
  "contributes": {
    "configuration": {
      "properties": {
        "gemini.model": {
          "type": "string",
          "default": "",
          "markdownDescription": "The model.",
          "enum": ["", "gemini-1.0-pro"]
        },
        "gemini.other": {
          "type": "boolean"
        }
      }
    }
  }
}
`
	out, err := withModels([]byte(stale))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("the result is not JSON: %v\n%s", err, out)
	}
	var got modelSetting
	if err := json.Unmarshal(m.Contributes.Configuration.Properties["gemini.model"], &got); err != nil {
		t.Fatal(err)
	}
	if got.MarkdownDescription != "The model." {
		t.Errorf("the description became %q", got.MarkdownDescription)
	}
	var ids []string
	for _, o := range models.Offered() {
		ids = append(ids, o.ID)
	}
	if !slices.Equal(got.Enum, append([]string{""}, ids...)) || len(got.EnumItemLabels) != len(got.Enum) || len(got.EnumDescriptions) != len(got.Enum) {
		t.Errorf("enum %q, labels %q, descriptions %d", got.Enum, got.EnumItemLabels, len(got.EnumDescriptions))
	}
	if _, ok := m.Contributes.Configuration.Properties["gemini.other"]; !ok || !strings.HasSuffix(string(out), "}\n") {
		t.Errorf("the rest of the file was lost:\n%s", out)
	}
	if _, err := withModels([]byte(`{"contributes": {"configuration": {"properties": {}}}}`)); err == nil {
		t.Error("a manifest without gemini.model gave no error")
	}
}
