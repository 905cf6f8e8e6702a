package settings

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// secret is a large environment value that must never show in an error.
var secret = strings.Repeat("SECRET-VALUE-", 64<<10/13)

// bomb is a getenv that holds BIG = secret, and counts how often BIG is
// asked for. It gives the value at most 256 times (then BIG is unset):
// were the bounds lost, the test fails on its checks instead of taking
// the machine's memory with it.
type bomb struct {
	vars  map[string]string
	asked int
}

func (b *bomb) getenv(k string) string {
	if k != "BIG" {
		return env(b.vars)(k)
	}
	b.asked++
	if b.asked > 256 {
		return ""
	}
	return secret
}

// writeBomb writes a settings file of about size bytes, a string of
// "$BIG" references in key.
func writeBomb(t *testing.T, dir string, size int) string {
	t.Helper()
	return writeSettings(t, dir, `{"tools": {"discoveryCommand": "`+strings.Repeat("$BIG", size/4)+`"}}`)
}

// allocated is the memory f allocates, in bytes, garbage or not.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An untrusted workspace's settings are not read, so none of its
// variables is expanded: a file of references to a large value costs
// nothing.
func TestUntrustedSettingsAreNotExpanded(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	path := writeBomb(t, root, 4<<20)
	b := &bomb{vars: map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": ""}}
	var err error
	used := allocated(func() { _, err = load(b.getenv, []string{root}) })
	if b.asked != 0 {
		t.Errorf("BIG was looked up %d times for an untrusted workspace's file", b.asked)
	}
	if used > 16<<20 {
		t.Errorf("Load allocated %d MiB for a file it does not use", used>>20)
	}
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is not trusted") {
		t.Errorf("error = %v, want %s reported as not trusted", err, path)
	}
}

// A file that does apply expands within bounds: one string grows to at
// most the longer of 128 KiB and its written length, and one file's
// strings by at most 1 MiB in all. Past a bound the file is left out, and
// the error names the file and the key but not the value.
func TestExpansionIsBounded(t *testing.T) {
	for _, c := range []struct {
		name, file, key, want string
	}{
		{"one multi-MB string of references", strings.Repeat("$BIG", 1<<20), "tools.discoveryCommand", "longer than 4194304 bytes"},
		{"one short string", "$BIG$BIG$BIG", "tools.discoveryCommand", "longer than 131072 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			path := writeSettings(t, home, `{"tools": {"discoveryCommand": "`+c.file+`", "callCommand": "kept?"}}`)
			b := &bomb{vars: map[string]string{"HOME": home, "USERPROFILE": home}}
			var s Settings
			var err error
			used := allocated(func() { s, err = load(b.getenv, nil) })
			checkBombed(t, s, err, path, c.key, c.want)
			// Reading and checking a 4 MiB file (twice: for trust, then
			// for the settings) costs tens of MiB; unbounded, its
			// expansion alone would be 64 GiB.
			if used > 128<<20 {
				t.Errorf("Load allocated %d MiB", used>>20)
			}
		})
	}
	t.Run("many strings", func(t *testing.T) {
		home := t.TempDir()
		args := strings.Repeat(`"$BIG",`, 64)
		path := writeSettings(t, home, `{"tools": {"callCommand": "kept?"}, "mcpServers": {"s": {"command": "x", "args": [`+args+` "end"]}}}`)
		b := &bomb{vars: map[string]string{"HOME": home, "USERPROFILE": home}}
		s, err := load(b.getenv, nil)
		checkBombed(t, s, err, path, "mcpServers.s.args[", "more than 1 MiB longer than written")
	})
}

func checkBombed(t *testing.T, s Settings, err error, path, key, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, key) || !strings.Contains(msg, want) {
		t.Errorf("error = %.300s; want it to name %s, %s and say %q", msg, path, key, want)
	}
	if strings.Contains(msg, "SECRET-VALUE") {
		t.Errorf("the error shows the variable's value: %.300s", msg)
	}
	if s.Tools.CallCommand != "" || s.Tools.DiscoveryCommand != "" || len(s.MCPServers) != 0 {
		t.Errorf("the file was used: %+v", s.Tools)
	}
}

// Values within the bounds expand in full, however many strings use them.
func TestExpansionWithinBounds(t *testing.T) {
	home := t.TempDir()
	value := strings.Repeat("v", 100<<10)
	args := strings.Repeat(`"$V",`, 9)
	writeSettings(t, home, `{"mcpServers": {"s": {"command": "x", "args": [`+args+` "$V"]}}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "V": value}), nil)
	if err != nil || len(s.MCPServers["s"].Args) != 10 || s.MCPServers["s"].Args[9] != value {
		t.Errorf("Load = %d args, %v; want 10 of 100 KiB", len(s.MCPServers["s"].Args), err)
	}
}

// A value not allowed is reported as the file wrote it, not as its
// variables expanded it.
func TestBadValueErrorShowsTheWrittenValue(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"security": {"auth": {"selectedType": "${TOKEN}"}}, "general": {"defaultApprovalMode": "$TOKEN"}}`)
	_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "TOKEN": "sk-very-secret"}), nil)
	if err == nil || strings.Contains(err.Error(), "sk-very-secret") || !strings.Contains(err.Error(), `"${TOKEN}" (its variables expanded) is not one of`) ||
		!strings.Contains(err.Error(), `"$TOKEN" (its variables expanded) is not one of`) {
		t.Errorf("error = %v; want the values as written, not the token", err)
	}
}

// The workspace's file is not even opened while the root is untrusted.
func TestUntrustedSettingsAreNotOpened(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory would be refused as not a regular file, were it read.
	if err := os.Mkdir(filepath.Join(root, ".gemini", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": ""}), []string{root})
	if err == nil || strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), "is not trusted") {
		t.Errorf("error = %v; want only the trust reported", err)
	}
}

// The scanner matches what Gemini CLI's regular expression matches.
func TestExpansionMatchesGeminiCLI(t *testing.T) {
	geminiCLI := regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)
	vars := map[string]string{"A": "a", "A_1x": "w", ":": "colon", " A ": "spaced", "A:b": "ab"}
	oracle := func(s string) string {
		return geminiCLI.ReplaceAllStringFunc(s, func(m string) string {
			sub := geminiCLI.FindStringSubmatch(m)
			name := sub[1] + sub[2]
			if v := vars[name]; v != "" {
				return v
			}
			if strings.Contains(m, ":-") && sub[2] != "" && strings.HasPrefix(m[len(sub[2])+2:], ":-") {
				return sub[3]
			}
			return m
		})
	}
	for _, s := range []string{
		"$A", "${A}", "${A:-d}", "${B:-d}", "${B:-}", "${:-x}", "${}", "${A", "$", "$$A", "a$-b", "${A:-b:-c}",
		"${a}b}", "$A_1x!", "${ A }", "${A:b}", "x${B}y$B${A}", "${:}", "${::-z}", "$${A}", "${{A}}", "$A${",
	} {
		e := expander{getenv: func(k string) string { return vars[k] }, budget: maxExpansionGrowth}
		got, err := e.string(s)
		if want := oracle(s); got != want || err != nil {
			t.Errorf("expand(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
}

// Redact hides every value a variable gave a setting behind the
// variable's name, also after an overlay.
func TestRedactHidesWhatVariablesGave(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"tools": {"discoveryCommand": "$TOOLS/discover ${SHORT}"}, "mcpServers": {"s": {"headers": {"Authorization": "Bearer ${TOKEN}"}}}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "TOOLS": "/opt/secret-tools", "TOKEN": "sk-123456", "SHORT": "x"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err = s.With(map[string]any{"model": "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Redact(`"/opt/secret-tools/discover x" failed; sent Bearer sk-123456`)
	if want := `"$TOOLS/discover x" failed; sent Bearer $TOKEN`; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

func TestRedactHidesTheLongestValueWhole(t *testing.T) {
	s := Settings{}.WithRedacted(map[string]string{"abcdef": "LONG", "cdefgh": "OVERLAP", "abcd": "SHORT", "wxyz": "OTHER"})
	got := s.Redact("abcdefgh abcd wxyzabcdef cdefgh")
	if want := "$LONGgh $SHORT $OTHER$LONG $OVERLAP"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// A long repetitive value that text almost holds at every byte costs
// Redact a linear reading of text.
func TestRedactIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"a run of the value's byte": lineartest.Repeat("a"),
		"the value's head repeated": lineartest.Repeat("aaaaaaab"),
	} {
		lineartest.Linear(t, name, input, func(text string) {
			// Values a quarter and an eighth of text long, all but one
			// byte of them what text holds everywhere.
			s := Settings{}.WithRedacted(map[string]string{
				strings.Repeat("a", len(text)/4) + "c": "LONG",
				strings.Repeat("a", len(text)/8) + "c": "SHORT",
				"aaac":                                 "TINY",
			})
			if got := s.Redact(text); got != text {
				t.Errorf("Redact changed text holding none of the values")
			}
		})
	}
}
