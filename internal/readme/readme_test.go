package readme

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// README.md's tool list is the one the registry makes: every tool the
// model is declared, and no other. `go generate .` fixes it.
func TestReadmeToolListIsTheDeclaredSet(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generated(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got != ToolList() {
		t.Errorf("README.md's tool list is not the registry's; run `go generate .` at the module's root.\nREADME.md:\n%s\nregistry:\n%s", got, ToolList())
	}

	// What the registry declares to the model, read from its
	// declarations, not from the list's own code.
	reg := tools.NewRegistry(tools.Builtin(tools.Options{Plan: tools.PlanOptions{Enabled: true}, Skills: &skills.Catalog{}, Diagnostics: noEditor{}, CodeIntel: noEditor{}})...)
	var declared []string
	for _, d := range reg.Declarations() {
		declared = append(declared, d.Name)
	}
	var listed []string
	for i, part := range strings.Split(got, "`") {
		if i%2 == 1 {
			listed = append(listed, part)
		}
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(listed, declared) {
		t.Errorf("README.md lists %d tools %q;\nthe registry declares %d: %q", len(listed), listed, len(declared), declared)
	}
}

// Update rewrites only what is between the markers, and refuses a README
// whose markers are missing or doubled rather than guess where the list goes.
func TestUpdate(t *testing.T) {
	in := "# Title\n\nBefore.\n" + Begin + "stale list\n" + End + "After.\n"
	got, err := Update(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Title\n\nBefore.\n" + Begin + ToolList() + End + "After.\n"; got != want {
		t.Errorf("Update = %q, want %q", got, want)
	}
	if again, err := Update(got); err != nil || again != got {
		t.Errorf("a second Update changed it: %v\n%q", err, again)
	}
	for _, bad := range []string{
		"no markers\n",
		Begin + "no end\n",
		End + "end first\n" + Begin,
		Begin + "one\n" + End + Begin + "two\n" + End,
	} {
		if _, err := Update(bad); err == nil {
			t.Errorf("Update(%q) took it", bad)
		}
	}
}

// docs/configuration.md's table of the settings gemini-ls does not read
// is the one the catalogue makes. `go generate .` fixes it.
func TestConfigurationSettingsTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := GeneratedSettings(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := SettingsTable(); got != want {
		t.Errorf("docs/configuration.md's table of the settings not read is not the catalogue's; run `go generate .` at the module's root.\ndocs:\n%s\ncatalogue:\n%s", got, want)
	}
}

// UpdateSettings rewrites only what is between its markers, and refuses
// a file whose markers are missing or doubled.
func TestUpdateSettings(t *testing.T) {
	in := "Before.\n" + SettingsBegin + "stale\n" + SettingsEnd + "After.\n"
	got, err := UpdateSettings(in)
	if want := "Before.\n" + SettingsBegin + SettingsTable() + SettingsEnd + "After.\n"; err != nil || got != want {
		t.Errorf("UpdateSettings = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"no markers\n", SettingsBegin + "no end\n", SettingsBegin + SettingsEnd + SettingsBegin + SettingsEnd} {
		if _, err := UpdateSettings(bad); err == nil {
			t.Errorf("UpdateSettings(%q) took it", bad)
		}
	}
	if !strings.Contains(SettingsTable(), "`ui.theme`") || !strings.Contains(SettingsTable(), `enable\|disable`) {
		t.Errorf("the table lacks a key or a cell's | is not escaped:\n%s", SettingsTable())
	}
}
