package settings

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sandboxtrail"
)

// A workspace can name commands to run (tools.discoveryCommand, MCP
// servers), hold a .env that points the API key elsewhere, and bring
// GEMINI.md instructions, so, as in Gemini CLI, what it says applies only
// in a folder the user trusts; a repository someone cloned runs nothing of
// its own by being opened. Trust is decided by DecideTrust (when an agent
// is built, and again to see whether it changed), from what no workspace
// can change, in Gemini CLI's order (checkPathTrust):
//
//  1. GEMINI_CLI_TRUST_WORKSPACE=true or false in the process environment
//     decides outright (a .env file is read only after the decision, so it
//     cannot make its own folder trusted);
//  2. GEMINI_LS_EDITOR_TRUST (EditorTrustVariable), gemini-ls's own: an
//     editor's standing decision about the workspace it opened (VS Code's
//     workspace trust, handed over in the LSP initializationOptions, or
//     set by whatever starts gemini-ls): "true" trusts every root as a
//     TRUST_FOLDER rule of the root would, so a DO_NOT_TRUST rule of the
//     root itself (the user's "Don't trust" of that folder) outranks it,
//     and one of a folder above does not; "false" trusts none and asks
//     about none;
//  3. security.folderTrust.enabled, merged from the system defaults, the
//     user's settings and the system settings (which win): false trusts
//     every folder; it is on unless the winning layer says false, so
//     system settings that turn it on enforce it over the user's;
//  4. ~/.gemini/trustedFolders.json (or $GEMINI_CLI_TRUSTED_FOLDERS_PATH),
//     its longest matching rule winning: TRUST_FOLDER (that folder and
//     below), TRUST_PARENT (the folder's parent and below) or DO_NOT_TRUST.
//     A folder no rule covers is not trusted.
//
// A root trusted by a rule, by the editor, or by folder trust being off,
// whose own
// configuration a sandboxed command could have changed (the sandboxes'
// trail, internal/sandboxtrail) is then not trusted, and asked about,
// until the user trusts it again (RecordTrust). What such a root holds is
// read after that check, so the trail is read again once it has been
// read and before any of it runs (Recheck, setup.Build): a change made in
// between distrusts the root as well.
//
// Every reader takes that one answer (Trust): Load for the roots'
// settings, LoadDotenv for the .env, and, in setup, the GEMINI.md loader,
// the MCP servers and the approval mode.

// Trust levels of trustedFolders.json.
const (
	TrustFolder = "TRUST_FOLDER"
	TrustParent = "TRUST_PARENT"
	DoNotTrust  = "DO_NOT_TRUST"
)

// EditorTrustVariable says what the editor decided about the workspace:
// "true" or "false". Unlike GEMINI_CLI_TRUST_WORKSPACE, the user's yes
// for one run, it is a standing decision about the folder, as a rule of
// trustedFolders.json is, so a root it trusts is checked against the
// sandboxes' trail as a rule's is. Read from the process environment, or
// from the environment a front end gives the build (the LSP server's
// initializationOptions.workspaceTrust), never from a .env.
const EditorTrustVariable = "GEMINI_LS_EDITOR_TRUST"

// Trust is the decision of which workspace roots are trusted folders. The
// zero Trust trusts nothing.
type Trust struct {
	roots []string
	why   map[string]error // an untrusted root → why it is not trusted
	// undecided are the untrusted roots no rule decides, with folder
	// trust on: those Gemini CLI asks about.
	undecided map[string]bool
	// changed says, of a root asked about again because a sandboxed
	// command could have changed its configuration, what was changed.
	changed map[string]string
	// checked are the trusted roots whose configuration was checked
	// against the sandboxes' trail (sandboxed), for Recheck.
	checked []string
	// getenv is the process environment the trust was decided from,
	// which says where the trail and the home are.
	getenv Getenv
}

// DecideTrust decides which roots are trusted folders. getenv must be the
// process environment, never one a workspace's .env file added to: a
// workspace cannot vouch for itself. It reads the system and user settings
// for security.folderTrust.enabled only (their other problems are Load's
// to report), and trustedFolders.json; a trustedFolders.json that cannot
// be read trusts nothing, and is the error.
func DecideTrust(getenv Getenv, roots []string) (Trust, error) {
	ft, err := loadTrust(getenv, folderTrustEnabled(getenv))
	t := Trust{roots: slices.Clone(roots), why: map[string]error{}, undecided: map[string]bool{}, changed: map[string]string{}, getenv: getenv}
	trail := sync.OnceValues(func() (sandboxtrail.Snapshot, error) {
		return SandboxTrail(getenv).Read(context.Background())
	})
	for _, root := range roots {
		decided, why := ft.check(root)
		if why == nil && ft.env != "true" {
			decided, why = t.sandboxed(trail, root)
			if why == nil {
				t.checked = append(t.checked, root)
			}
		}
		if why != nil {
			t.why[root] = why
		}
		// A file that cannot be read decides nothing, and nobody is asked
		// to overwrite it.
		if !decided && err == nil {
			t.undecided[root] = true
		}
	}
	return t, err
}

// sandboxed checks a root trusted by a rule (or by folder trust being
// off) against the sandboxes' trail (internal/sandboxtrail, read once
// for all the roots: trail): when a
// sandboxed command could have changed its configuration (its .gemini,
// .agents and .geminiignore, configfiles.Folder, and the .env files its
// loader looks for), it is not trusted until the user
// says so again (RecordTrust), and is asked about, as a root no rule
// decides. GEMINI_CLI_TRUST_WORKSPACE=true, the user's yes for the run,
// is not checked; the editor's trust (EditorTrustVariable) is.
func (t Trust) sandboxed(trail func() (sandboxtrail.Snapshot, error), root string) (decided bool, why error) {
	snap, err := trail()
	var found []sandboxtrail.Finding
	if err == nil {
		found, err = snap.Changed(root, DotenvCandidates(root, Home(t.getenv)))
	}
	if err != nil {
		return true, fmt.Errorf("the folder %s is not trusted while %s: %w", root, uncheckable, err)
	}
	if len(found) == 0 {
		return true, nil
	}
	what := describe(found)
	t.changed[root] = what
	return false, askedAgain(root, what)
}

// uncheckable says why a root is not trusted when the trail, or its
// configuration, cannot be read.
const uncheckable = "what sandboxed commands could change cannot be checked"

// describe says what found, a root's findings, holds: the first, and how
// many more.
func describe(found []sandboxtrail.Finding) string {
	what := found[0].String()
	switch n := len(found) - 1; {
	case n == 1:
		what += ", as was 1 other entry of its configuration"
	case n > 1:
		what += fmt.Sprintf(", as were %d other entries of its configuration", n)
	}
	return what
}

// askedAgain is why root, whose configuration a sandboxed command could
// have changed (what), is not trusted.
func askedAgain(root, what string) error {
	return fmt.Errorf("the folder %s is not trusted again until you say so: %s. "+
		"Trust it again with /permissions trust in your editor, or from a shell with: gemini-ls trust %s",
		root, what, osshell.Local().Quote(root))
}

// Recheck reads the sandboxes' trail again once what the roots t
// vouched for by checking it say has been read (their settings, .env and
// policies), and says, root by root, what a sandboxed command could have
// changed between DecideTrust's check and the reads: a file of the
// root's configuration changed since, or the .env named by read (the one
// loaded, "" when none) gone since, where a sandbox could write. A trail
// that cannot be read vouches for nothing. Nil when nothing changed.
func (t Trust) Recheck(read string) map[string]string {
	if len(t.checked) == 0 {
		return nil
	}
	changed := map[string]string{}
	snap, err := SandboxTrail(t.getenv).Read(context.Background())
	if err != nil {
		for _, root := range t.checked {
			changed[root] = fmt.Sprintf("%s: %v", uncheckable, err)
		}
		return changed
	}
	for _, root := range t.checked {
		candidates := DotenvCandidates(root, Home(t.getenv))
		found, err := snap.Changed(root, candidates)
		switch {
		case err != nil:
			changed[root] = fmt.Sprintf("%s: %v", uncheckable, err)
		case len(found) > 0:
			changed[root] = describe(found)
		case read != "" && slices.Contains(candidates, read):
			if _, err := os.Lstat(read); errors.Is(err, fs.ErrNotExist) {
				if f, ok := snap.Gone(read, time.Now()); ok {
					changed[root] = f.String()
				}
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return changed
}

// Distrusting is t with each root of changed (Recheck's) not trusted and
// asked about again, as DecideTrust leaves a root whose configuration a
// sandboxed command could have changed.
func (t Trust) Distrusting(changed map[string]string) Trust {
	if len(changed) == 0 {
		return t
	}
	t.why, t.undecided, t.changed = maps.Clone(t.why), maps.Clone(t.undecided), maps.Clone(t.changed)
	for root, what := range changed {
		if !slices.Contains(t.roots, root) {
			continue
		}
		t.why[root] = askedAgain(root, what)
		t.undecided[root] = true
		t.changed[root] = what
		t.checked = slices.DeleteFunc(slices.Clone(t.checked), func(r string) bool { return r == root })
	}
	return t
}

// Changed says what a sandboxed command could have changed in root's
// configuration, when that is why root is asked about again; "" when it
// is not.
func (t Trust) Changed(root string) string { return t.changed[root] }

// Undecided are the roots that are not trusted only because no rule of
// trustedFolders.json covers them while folder trust is on, in order:
// the folders Gemini CLI asks about ("Do you trust the files in this
// folder?").
func (t Trust) Undecided() []string {
	var out []string
	for _, root := range t.roots {
		if t.undecided[root] {
			out = append(out, root)
		}
	}
	return out
}

// SameTrusted reports whether t and o trust the same roots, of the same
// roots: whether what a workspace may bring is the same under both.
func (t Trust) SameTrusted(o Trust) bool {
	return slices.Equal(t.roots, o.roots) && slices.Equal(t.Untrusted(), o.Untrusted())
}

// Trusted reports whether root is a trusted folder: its settings, its .env
// file and its GEMINI.md files count. A root DecideTrust was not asked
// about is not trusted.
func (t Trust) Trusted(root string) bool {
	_, untrusted := t.why[root]
	return !untrusted && slices.Contains(t.roots, root)
}

// Why is nil when root is trusted, else why not, in words that say how to
// trust it.
func (t Trust) Why(root string) error {
	if why, ok := t.why[root]; ok {
		return why
	}
	if !slices.Contains(t.roots, root) {
		return fmt.Errorf("the folder %s is not one whose trust was decided", root)
	}
	return nil
}

// Untrusted are the roots that are not trusted folders, in order. While
// there is one, as in Gemini CLI, no MCP server starts and the approval
// mode is "default".
func (t Trust) Untrusted() []string {
	var out []string
	for _, root := range t.roots {
		if !t.Trusted(root) {
			out = append(out, root)
		}
	}
	return out
}

// folderTrust decides whether one folder is trusted.
type folderTrust struct {
	env     string            // GEMINI_CLI_TRUST_WORKSPACE
	editor  string            // EditorTrustVariable
	enabled bool              // security.folderTrust.enabled
	rules   map[string]string // trustedFolders.json: path → level
	rulesAt string            // where the rules came from
}

// folderTrustEnabled is security.folderTrust.enabled of the system
// defaults, the user's settings and the system settings merged, as Gemini
// CLI merges them for its trust check: on unless the winning layer says
// false. A file that cannot be used counts as empty; Load reports it.
func folderTrustEnabled(getenv Getenv) bool {
	var layers []map[string]any
	paths := []string{SystemDefaultsPath(getenv), "", SystemSettingsPath(getenv)}
	if dir := UserDir(getenv); dir != "" {
		paths[1] = filepath.Join(dir, "settings.json")
	}
	for _, path := range paths {
		if path == "" {
			continue
		}
		// Not expanded: the key is a boolean, which no variable changes.
		if obj, err := readSettingsFile(path); err == nil {
			layers = append(layers, obj)
		}
	}
	enabled, ok := lookup(mergeLayers(layers...), "security.folderTrust.enabled")
	return !ok || enabled != false
}

// loadTrust reads what decides trust besides the settings. A
// trustedFolders.json that cannot be read trusts nothing, and is reported.
func loadTrust(getenv Getenv, enabled bool) (folderTrust, error) {
	ft := folderTrust{env: getenv("GEMINI_CLI_TRUST_WORKSPACE"), editor: getenv(EditorTrustVariable), enabled: enabled}
	ft.rulesAt = TrustedFoldersPath(getenv)
	if ft.rulesAt == "" {
		return ft, nil
	}
	obj, err := readJSONObject(ft.rulesAt)
	if errors.Is(err, fs.ErrNotExist) {
		return ft, nil
	}
	if err != nil {
		return ft, err
	}
	ft.rules = map[string]string{}
	for path, level := range obj {
		if s, ok := level.(string); ok && (s == TrustFolder || s == TrustParent || s == DoNotTrust) {
			ft.rules[path] = s
		}
	}
	return ft, nil
}

// check says whether anything decides root's trust (the environment,
// the settings, a rule), and returns nil when root is trusted, else why
// not, in words that say how to trust it.
func (ft folderTrust) check(root string) (decided bool, why error) {
	switch {
	case ft.env == "true":
		return true, nil
	case ft.env == "false":
		return true, errors.New("GEMINI_CLI_TRUST_WORKSPACE=false says the workspace is not trusted")
	case ft.editor == "true":
		return true, ft.overEditor(root)
	case ft.editor == "false":
		return true, errors.New("the editor does not trust the workspace (VS Code's Restricted Mode, for one); trust it in the editor (in VS Code: Manage Workspace Trust)")
	case !ft.enabled:
		return true, nil
	}
	switch best, _ := ft.rule(root); best {
	case TrustFolder, TrustParent:
		return true, nil
	case DoNotTrust:
		return true, ft.markedDoNotTrust(root)
	}
	where := ft.rulesAt
	if where == "" {
		where = "~/.gemini/trustedFolders.json"
	}
	// The command quoted for the shell the user has: PowerShell or cmd.exe
	// on Windows, where bash's quotes would be kept in the path.
	return false, fmt.Errorf("the folder %s is not trusted. "+
		"Trust it for good with /permissions trust in your editor or Gemini CLI, or from a shell with: gemini-ls trust %s (it records it in %s); "+
		"for one run, set GEMINI_CLI_TRUST_WORKSPACE=true", root, osshell.Local().Quote(root), where)
}

// overEditor is why root, which the editor trusts, is not trusted: a
// DO_NOT_TRUST rule of root itself (the answer Don't trust records), the
// user's word about that very folder, where the editor's is about the
// workspace. The editor trusts root as a TRUST_FOLDER rule of root would,
// and such a tie goes to distrust; a rule of a folder above root is less
// specific, and the editor's trust outranks it. Nil when root is trusted,
// though still checked against the sandboxes' trail, as a rule is.
func (ft folderTrust) overEditor(root string) error {
	// folder covers root, so root within folder too is root itself
	// (compared as within does, case aside where file systems ignore it).
	if level, folder := ft.rule(root); level == DoNotTrust && within(realPath(root), folder) {
		return ft.markedDoNotTrust(root)
	}
	return nil
}

// markedDoNotTrust is why root, which a DO_NOT_TRUST rule covers, is not
// trusted, and how to change it.
func (ft folderTrust) markedDoNotTrust(root string) error {
	return fmt.Errorf("%s marks the folder %s %s; /permissions trust changes that", ft.rulesAt, root, DoNotTrust)
}

// rule is the level of the most specific rule covering root ("" when
// none does) and the folder it trusts or distrusts, symlinks resolved.
func (ft folderTrust) rule(root string) (level, folder string) {
	real := realPath(root)
	bestLen := -1
	for rule, l := range ft.rules {
		effective := rule
		if l == TrustParent {
			effective = filepath.Dir(rule)
		}
		// The most specific rule wins: Gemini CLI compares the rules' lengths,
		// which it writes cleaned. On a tie, distrust wins.
		n := len(filepath.Clean(rule))
		if at := realPath(effective); within(at, real) && (n > bestLen || n == bestLen && l == DoNotTrust) {
			bestLen, level, folder = n, l, at
		}
	}
	return level, folder
}

// realPath is path with symlinks resolved, when it exists.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// within reports whether path is dir or inside it; case-insensitively
// where file systems usually are, as Gemini CLI compares.
func within(dir, path string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		dir, path = strings.ToLower(dir), strings.ToLower(path)
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readJSONObject reads a JSON-with-comments file holding an object:
// bounded, and refusing a FIFO or a device in its place without blocking
// on it (safefile.Read). A missing file is fs.ErrNotExist, unwrapped.
func readJSONObject(path string) (map[string]any, error) {
	src, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return parseObject(path, src)
}
