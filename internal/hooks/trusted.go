package hooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// The project hooks the user has been told of are Gemini CLI's file,
// shared with it: a hook announced by either program is not announced
// again by the other.
//
// 0.61 keeps them in ~/.gemini/trusted_hooks.json (TrustedHooksManager,
// chunk-5FZXKDXH.js:367855) as {"<project root>": ["<name>:<command>", …]},
// written by JSON.stringify(…, null, 2) (internal/jsjson here). A hook is known by its name and
// command (getHookKey, :337817): one whose command changed (a git pull,
// a file a command wrote) is new. As the hooks start, 0.61 warns of the
// new ones of a trusted project, then lists every one of its hooks and
// runs them (checkProjectHooksTrust, :368021).

// maxTrustedHooksFile bounds the file read.
const maxTrustedHooksFile = 4 << 20

// TrustedHooksPath is the file under userDir, ~/.gemini.
func TrustedHooksPath(userDir string) string {
	return filepath.Join(userDir, "trusted_hooks.json")
}

// NoteProjectHooks returns the names (else the commands) of the hooks h,
// a trusted project root's own, that the file at path does not list for
// root, and then lists all of h there, as 0.61 does: the user is told of
// a hook once, and again when its command changes. A file that does not
// parse is left alone: every hook is then new, and the error says why.
func NoteProjectHooks(ctx context.Context, path, root string, h settings.Hooks) ([]string, error) {
	hooks := projectHooks(h)
	if len(hooks) == 0 {
		return nil, nil
	}
	all, err := readAnnounced(path)
	if err != nil {
		return unlisted(nil, hooks), fmt.Errorf("reading the project hooks already announced: %w", err)
	}
	unseen := unlisted(listed(all, root), hooks)
	if len(unseen) == 0 {
		return nil, nil
	}
	return unseen, listHooks(ctx, path, root, hooks)
}

// knownHook is a hook as the file knows it (key) and the user does (name).
type knownHook struct{ key, name string }

// projectHooks are h's hooks in the events' order.
func projectHooks(h settings.Hooks) []knownHook {
	order := func(e string) int {
		if i := slices.Index(settings.HookEvents, e); i >= 0 {
			return i
		}
		return len(settings.HookEvents)
	}
	events := slices.SortedFunc(maps.Keys(h), func(a, b string) int { return cmp.Or(order(a)-order(b), strings.Compare(a, b)) })
	var out []knownHook
	for _, e := range events {
		for _, def := range h[e] {
			for _, c := range def.Hooks {
				if c.Type == "runtime" {
					continue // registered by code, not settings
				}
				command := ""
				if c.Type == "command" {
					command = c.Command
				}
				name := c.Name
				if name == "" {
					name = c.Command
				}
				if name == "" {
					name = "unknown-hook"
				}
				out = append(out, knownHook{key: c.Name + ":" + command, name: name})
			}
		}
	}
	return out
}

// unlisted are the names of the hooks whose key list lacks, each once.
func unlisted(list []any, hooks []knownHook) []string {
	var out []string
	for _, h := range hooks {
		if !slices.Contains(list, any(h.key)) && !slices.Contains(out, h.name) {
			out = append(out, h.name)
		}
	}
	return out
}

// readAnnounced reads the file as JSON.parse would: a missing one is an
// empty object; one that does not parse, or is not an object, an error
// that says it is left alone.
func readAnnounced(path string) (*jsjson.Object, error) {
	data, err := safefile.Read(path, maxTrustedHooksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return jsjson.NewObject(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return parseAnnounced(path, data)
}

// parseAnnounced parses the file's text as JSON.parse does; none (nil)
// is an empty object.
func parseAnnounced(path string, data []byte) (*jsjson.Object, error) {
	if data == nil {
		return jsjson.NewObject(), nil
	}
	obj, err := jsjson.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse, and is left alone: %w", path, err)
	}
	return obj, nil
}

// listed is root's list in the file; entries of another shape are
// skipped: the file is Gemini CLI's too.
func listed(all *jsjson.Object, root string) []any {
	v, _ := all.Get(root)
	list, _ := v.([]any)
	return list
}

// listHooks adds hooks' keys to root's list in the file, keeping every
// other entry as it is. The file is locked meanwhile (internal/sharedlock),
// so that two gemini-ls starting at once keep both their lists.
func listHooks(ctx context.Context, path, root string, hooks []knownHook) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("listing the project hooks announced: %w", err)
	}
	err := sharedlock.Rewrite(ctx, path, maxTrustedHooksFile, func(old []byte) ([]byte, error) {
		// Read again under the lock, parsed and written as 0.61 does: the
		// file's other entries come out as they were, in its order.
		all, err := parseAnnounced(path, old)
		if err != nil {
			return nil, err
		}
		list := listed(all, root)
		for _, h := range hooks {
			if !slices.Contains(list, any(h.key)) {
				list = append(list, h.key)
			}
		}
		all.Set(root, list)
		return jsjson.Stringify(all), nil
	}, safefile.WriteIf)
	if err != nil {
		return fmt.Errorf("listing the project hooks announced: %w", err)
	}
	return nil
}
