package extensions

import "testing"

// formatEnv writes what 0.61's formatEnvContent writes: a value with a
// space quoted, its backslashes and quotes escaped, the others as they
// are, in order; a name it cannot write, or a line break, is its error.
func TestFormatEnvAsGeminiCLI(t *testing.T) {
	got, err := formatEnv([]string{"B", "A", "GONE"}, map[string]string{"A": `say "hi" \o/`, "B": "plain"})
	if want := "B=plain\nA=\"say \\\"hi\\\" \\\\o/\"\n"; err != nil || got != want {
		t.Errorf("formatEnv = %q, %v; want %q", got, err, want)
	}
	if _, err := formatEnv([]string{"a.b"}, map[string]string{"a.b": "x"}); err == nil || err.Error() != `Invalid environment variable name: "a.b". Must contain only alphanumeric characters and underscores.` {
		t.Errorf("a dotted name: %v", err)
	}
	if _, err := formatEnv([]string{"A"}, map[string]string{"A": "x\ny"}); err == nil {
		t.Error("a value with a newline was written")
	}
}
