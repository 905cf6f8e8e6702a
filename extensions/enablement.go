package extensions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// EnablementFile is where `gemini extensions enable` and `disable` record
// their choices, in the extensions directory.
const EnablementFile = "extension-enablement.json"

// enablement is extension-enablement.json: for each extension, its
// overrides, each a directory ("/home/me/proj/") that may end in "*" (and
// its subdirectories) and start with "!" (disabled there). The last that
// matches a workspace decides; an extension none matches is enabled.
type enablement map[string]struct {
	Overrides []string `json:"overrides"`
}

// readEnablement reads the enablement file of dir; a missing file enables
// every extension, and so does one that cannot be read, which the error
// then says (as Gemini CLI reports it and goes on).
func readEnablement(dir string) (enablement, error) {
	path := filepath.Join(dir, EnablementFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s, so every extension is enabled: %w", path, err)
	}
	var e enablement
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("reading %s, so every extension is enabled: %w", path, err)
	}
	return e, nil
}

// enabled reports whether the extension called name is enabled in the
// workspace directory dir.
func (e enablement) enabled(name, dir string) bool {
	enabled := true
	path := withSlashes(dir)
	for _, rule := range e[name].Overrides {
		disable := strings.HasPrefix(rule, "!")
		if overrideRegexp(strings.TrimPrefix(rule, "!")).MatchString(path) {
			enabled = !disable
		}
	}
	return enabled
}

// withSlashes is dir with forward slashes, starting and ending with one,
// as Gemini CLI compares directories with the overrides.
func withSlashes(dir string) string {
	dir = strings.ReplaceAll(dir, `\`, "/")
	if !strings.HasPrefix(dir, "/") {
		dir = "/" + dir
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return dir
}

// overrideRegexp is Gemini CLI's globToRegex of an override: each "*",
// with the "/" before it, matches anything or nothing.
func overrideRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch {
		case glob[i] == '/' && i+1 < len(glob) && glob[i+1] == '*':
			b.WriteString("(/.*)?")
			i++
		case glob[i] == '*':
			b.WriteString("(.*)?")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
