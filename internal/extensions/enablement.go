package extensions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
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
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s, so every extension is enabled: %w", path, err)
	}
	var e enablement
	if err := jsjson.Decode(data, &e); err != nil {
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

// SetEnabled records in the enablement file of userDir's extensions
// directory that the extension called name is enabled (or disabled) in
// dir and every directory below it, as `gemini extensions enable` and
// `disable` record it: the rules of the same directory and those below it
// give way to the new one, the others stay. It takes effect when the
// extensions are loaded again. An enablement file that cannot be read is
// left as it is, and the error says why.
func SetEnabled(ctx context.Context, userDir, name string, enable bool, dir string) error {
	extDir := Dir(userDir)
	if extDir == "" {
		return errors.New("the extensions directory is unknown: neither GEMINI_CLI_HOME nor " + settings.HomeVariable + " is set")
	}
	if err := os.MkdirAll(extDir, 0o755); err != nil {
		return err
	}
	rule := withSlashes(dir) + "*"
	if !enable {
		rule = "!" + rule
	}
	return changeEnablement(ctx, filepath.Join(extDir, EnablementFile), func(e enablement) error {
		entry := e[name]
		entry.Overrides = append(keptRules(entry.Overrides, withSlashes(dir)), rule)
		e[name] = entry
		return nil
	})
}

// changeEnablement rewrites the enablement file at path with what change
// makes of its entries (none when it is missing), under its lock
// (sharedlock.Rewrite: Gemini CLI takes none on it, so what it writes
// meanwhile is kept and the change refused), as Gemini CLI writes it:
// paths' characters as they are. A file that does not parse is left as
// it is, and the error says why; change's sharedlock.ErrUnchanged writes
// nothing.
func changeEnablement(ctx context.Context, path string, change func(enablement) error) error {
	return sharedlock.Rewrite(ctx, path, maxFileSize, func(before []byte) ([]byte, error) {
		e := enablement{}
		if len(before) > 0 {
			if err := jsjson.Decode(before, &e); err != nil {
				return nil, fmt.Errorf("%s is not valid, so it was left as it is: %w", path, err)
			}
		}
		if err := change(e); err != nil {
			return nil, err
		}
		return marshalIndent(e)
	}, safefile.WriteIf)
}

// keptRules are the rules a new rule for base and its subdirectories
// leaves, as Gemini CLI's enable keeps them: not those of base itself,
// nor those below it.
func keptRules(rules []string, base string) []string {
	parent := overrideRegexp(base + "*")
	var kept []string
	for _, r := range rules {
		b := strings.TrimSuffix(strings.TrimPrefix(r, "!"), "*")
		if b == base || parent.MatchString(b) {
			continue
		}
		kept = append(kept, r)
	}
	return kept
}
