package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// output.format in the settings is run's format when --output-format is
// not given, as in Gemini CLI 0.61 (argv.outputFormat ?? settings): json
// prints one object, carrying the warnings told while the settings were
// read; the flag wins over it; a value 0.61's schema does not allow is
// refused with a warning, and text is printed.
func TestRunOutputFormatSetting(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("Hello."), geminitest.TextTurn("Hello again."), geminitest.TextTurn("Once more."))
	settings := filepath.Join(h.homeOf(), ".gemini")
	writeFiles(t, settings, map[string]string{"settings.json": `{"output": {"format": "json"}, "model": {"compressionThreshold": 7}}`})

	r := h.run("run", "-p", "hi")
	r.wantExit(t, 0)
	res := decodeOne(t, r.stdout)
	if res.Response != "Hello." {
		t.Errorf("response = %q", res.Response)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "model.compressionThreshold") {
		t.Errorf("warnings %q, want the settings' bad compressionThreshold", res.Warnings)
	}

	r = h.run("run", "-p", "hi", "-o", "text")
	r.wantExit(t, 0)
	if r.stdout != "Hello again.\n" {
		t.Errorf("with -o text, stdout = %q, want the text", r.stdout)
	}

	writeFiles(t, settings, map[string]string{"settings.json": `{"output": {"format": "yaml"}}`})
	r = h.run("run", "-p", "hi")
	r.wantExit(t, 0)
	if r.stdout != "Once more.\n" || !strings.Contains(r.stderr, `output.format: "yaml" is not one of text, json`) {
		t.Errorf("with output.format yaml, stdout = %q, stderr = %q; want the text and a warning", r.stdout, r.stderr)
	}
}
