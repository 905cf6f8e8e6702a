package manage

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// `gemini-ls skills list|install|uninstall|enable|disable|link` are
// Gemini CLI 0.61's `gemini skills` (packages/cli/src/commands/skills):
// skills go to ~/.gemini/skills (--scope user, the default) or the
// working directory's .gemini/skills (--scope workspace), enable and
// disable edit skills.disabled in the same settings files, written as
// 0.61 writes them; its messages, on the streams 0.61 writes them to.

var skillScope = []string{"user", "workspace"}

// skillsCommands are gemini-ls skills' commands.
func (e mgmtEnv) skillsCommands() []cmdline.Command {
	return []cmdline.Command{
		{Name: "list", Summary: "List the discovered agent skills (on stdout).", Run: func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
			return e.skillsList(args, stdout, stderr)
		}},
		{Name: "enable", Args: "<name>", Summary: "Enable a skill: remove it from skills.disabled in the workspace's and the user's settings.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.skillsToggle(ctx, args, stderr, true)
		}},
		{Name: "disable", Args: "<name>", Summary: "Disable a skill: add it to skills.disabled.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.skillsToggle(ctx, args, stderr, false)
		}},
		{Name: "install", Args: "<source>", Summary: "Install skills from a git repository URL, a .skill archive or a local directory.", Run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return e.skillsInstall(ctx, args, stdin, stdout, stderr, false)
		}},
		{Name: "link", Args: "<path>", Summary: "Link the skills of a local directory: changes there apply at once.", Run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return e.skillsInstall(ctx, args, stdin, stdout, stderr, true)
		}},
		{Name: "uninstall", Args: "<name>", Summary: "Remove an installed skill.", Run: func(_ context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.skillsUninstall(args, stderr)
		}},
	}
}

// skillsCommand is `gemini-ls skills`.
func (e mgmtEnv) skillsCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	subs := e.skillsCommands()
	if code, done := groupHelp(args, stderr, "skills", subs, "Not enough non-option arguments: got 0, need at least 1"); done {
		return code
	}
	if c, ok := cmdline.Find(subs, args[0]); ok {
		return c.Run(ctx, args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "Unknown argument: %s\n", args[0])
	writeGroupHelp(stderr, "skills", subs)
	return 1
}

// skillsDir is the skills directory of a scope.
func skillsDir(scope, cwd, userDir string) string {
	if scope == "workspace" {
		return configfiles.Skills(cwd)[0]
	}
	return filepath.Join(userDir, "skills")
}

// onePositional parses args wanting exactly one positional.
func (e mgmtEnv) onePositional(args []string, specs []mgmtOpt, command string, stderr io.Writer) (mgmtArgs, int, bool) {
	a, err := parseMgmtArgs(args, specs, false, 1, 1)
	code, done := e.usageError(a, err, command, stderr)
	return a, code, !done
}

func (e mgmtEnv) skillsList(args []string, stdout, stderr io.Writer) int {
	a, err := parseMgmtArgs(args, []mgmtOpt{{names: []string{"all"}, kind: optBool, help: "List every skill (gemini-ls has no built-in ones: the same list)"}}, false, 0, 0)
	if code, done := e.usageError(a, err, "skills list", stderr); done {
		return code
	}
	w, ok := e.read(stderr, false)
	if !ok {
		return 1
	}
	var extDirs []skills.ExtensionDir
	for _, ext := range w.extensions.Active() {
		extDirs = append(extDirs, skills.ExtensionDir{Extension: ext.Name, Dir: ext.SkillsDir(), Hydrate: ext.Hydrate})
	}
	catalog, problems := skills.Discover(skills.Config{UserDir: w.userDir, Roots: []string{w.cwd}, Trusted: w.trust.Trusted,
		Extensions: extDirs, Disabled: w.settings.Skills.Disabled})
	for _, p := range problems {
		fmt.Fprintf(stderr, "Warning: %v\n", p)
	}
	// gemini-ls has no built-in skills: --all lists the same ones.
	found := catalog.All()
	slices.SortStableFunc(found, func(a, b skills.Skill) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(found) == 0 {
		fmt.Fprintln(stdout, "No skills discovered.")
		return 0
	}
	fmt.Fprint(stdout, "Discovered Agent Skills:\n\n")
	for _, s := range found {
		status := "[Enabled]"
		if s.Disabled {
			status = "[Disabled]"
		}
		fmt.Fprintf(stdout, "%s %s\n  Description: %s\n  Location:    %s\n\n", s.Name, status, s.Description, s.Location)
	}
	return 0
}

func (e mgmtEnv) skillsInstall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, link bool) int {
	specs := []mgmtOpt{
		{names: []string{"scope"}, kind: optString, choices: skillScope, def: "user", help: "The scope to install into: ~/.gemini/skills, or the workspace's .gemini/skills"},
		{names: []string{"consent"}, kind: optBool, help: "Acknowledge the security risks of installing a skill and skip the confirmation prompt"},
	}
	command := "skills link"
	if !link {
		command = "skills install"
		specs = append(specs, mgmtOpt{names: []string{"path"}, kind: optString, help: "Sub-path within the repository to install from (only used for git repository sources)"})
	}
	a, code, ok := e.onePositional(args, specs, command, stderr)
	if !ok {
		return code
	}
	source, scope := a.positional[0], a.str("scope")
	cwd, userDir, err := e.dirs()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	target := skillsDir(scope, cwd, userDir)
	logf := func(msg string) { fmt.Fprintln(stderr, msg) }
	consent := func(found []skills.Skill, target string) (bool, error) {
		text := skills.ConsentText(found, source, target, link)
		if a.str("consent") == "true" {
			logf("You have consented to the following:")
			logf(text)
			return true, nil
		}
		logf(text)
		return askConsent(stdin, stdout)
	}
	if link {
		if _, err := skills.Link(source, target, logf, consent); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintln(stderr, "\nSuccessfully linked skills.")
		return 0
	}
	installed, err := skills.Install{Source: source, Subpath: a.str("path"), Target: target, Log: logf, Consent: consent}.Run(ctx)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, s := range installed {
		fmt.Fprintf(stderr, "Successfully installed skill: %s (scope: %s, location: %s)\n", s.Name, scope, s.Location)
	}
	return 0
}

// askConsent asks 0.61's question on stdout and reads the answer from
// stdin: an empty line is yes, as there. No answer at all (stdin ended)
// is no: 0.61 then exits without a word, having installed nothing.
func askConsent(stdin io.Reader, stdout io.Writer) (bool, error) {
	fmt.Fprint(stdout, "Do you want to continue? [Y/n]: ")
	if stdin == nil {
		return false, nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		fmt.Fprintln(stdout)
		return false, nil
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "" || answer == "y" || answer == "yes", nil
}

func (e mgmtEnv) skillsUninstall(args []string, stderr io.Writer) int {
	a, code, ok := e.onePositional(args, []mgmtOpt{{names: []string{"scope"}, kind: optString, choices: skillScope, def: "user", help: "The scope to uninstall from"}},
		"skills uninstall", stderr)
	if !ok {
		return code
	}
	name, scope := a.positional[0], a.str("scope")
	cwd, userDir, err := e.dirs()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	location, err := skills.Uninstall(name, skillsDir(scope, cwd, userDir))
	switch {
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	case location == "":
		// 0.61 says so and succeeds.
		fmt.Fprintf(stderr, "Skill %q is not installed in the %s scope.\n", name, scope)
	default:
		fmt.Fprintf(stderr, "Successfully uninstalled skill: %s (scope: %s, location: %s)\n", name, scope, location)
	}
	return 0
}

// settingsScope is one settings file skills enable and disable edit.
type settingsScope struct {
	label, path string
}

func (s settingsScope) String() string { return s.label + " (" + s.path + ")" }

// disabledIn is skills.disabled of the settings file at path.
func disabledIn(path string) ([]string, error) {
	raw, ok, err := settings.ReadValue(path, []string{"skills", "disabled"})
	if err != nil || !ok {
		return nil, err
	}
	var list []any
	_ = json.Unmarshal(raw, &list) // not a list: none
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// skillsToggle is skills enable (every scope) and disable (one), as
// 0.61's enableFeature and disableFeature.
func (e mgmtEnv) skillsToggle(ctx context.Context, args []string, stderr io.Writer, enable bool) int {
	var specs []mgmtOpt
	command := "skills enable"
	if !enable {
		command = "skills disable"
		specs = []mgmtOpt{{names: []string{"scope", "s"}, kind: optString, choices: skillScope, def: "workspace", help: "The settings to add it to: the workspace's or the user's"}}
	}
	a, code, ok := e.onePositional(args, specs, command, stderr)
	if !ok {
		return code
	}
	d, err := e.disabledSkills()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if enable {
		return d.enable(ctx, a.positional[0], stderr)
	}
	return d.disable(ctx, a.positional[0], a.str("scope"), stderr)
}

// disabledSkills are the skills the settings disable, by scope.
type disabledSkills struct {
	workspace, user settingsScope
	scopes          []settingsScope     // the two, or the user's alone in the home directory
	lists           map[string][]string // by the scope's label
}

func (e mgmtEnv) disabledSkills() (disabledSkills, error) {
	cwd, userDir, err := e.dirs()
	if err != nil {
		return disabledSkills{}, err
	}
	d := disabledSkills{
		workspace: settingsScope{"workspace", configfiles.ProjectSettings(cwd)},
		user:      settingsScope{"user", filepath.Join(userDir, "settings.json")},
		lists:     map[string][]string{},
	}
	d.scopes = []settingsScope{d.workspace, d.user}
	if sameSettingsFile(d.workspace.path, d.user.path) {
		d.scopes = []settingsScope{d.user} // in the home directory the two are one
	}
	for _, s := range d.scopes {
		if d.lists[s.label], err = disabledIn(s.path); err != nil {
			return disabledSkills{}, err
		}
	}
	return d, nil
}

// enable removes name from every scope's list.
func (d disabledSkills) enable(ctx context.Context, name string, stderr io.Writer) int {
	var modified, already []settingsScope
	for _, s := range d.scopes {
		if slices.Contains(d.lists[s.label], name) {
			modified = append(modified, s)
		} else {
			already = append(already, s)
		}
	}
	if len(modified) == 0 {
		fmt.Fprintf(stderr, "Skill %q is already enabled.\n", name)
		return 0
	}
	for _, s := range modified {
		if !writeDisabled(ctx, s, slices.DeleteFunc(slices.Clone(d.lists[s.label]), func(n string) bool { return n == name }), stderr) {
			return 1
		}
	}
	fmt.Fprintln(stderr, toggleMessage(name, true, append(modified, already...)))
	return 0
}

// disable adds name to the list of scope ("user", else the workspace).
func (d disabledSkills) disable(ctx context.Context, name, scope string, stderr io.Writer) int {
	var target, other settingsScope
	switch {
	case len(d.scopes) == 1:
		target = d.user
	case scope == "user":
		target, other = d.user, d.workspace
	default:
		target, other = d.workspace, d.user
	}
	if slices.Contains(d.lists[target.label], name) {
		fmt.Fprintf(stderr, "Skill %q is already disabled.\n", name)
		return 0
	}
	affected := []settingsScope{target}
	if other.path != "" && slices.Contains(d.lists[other.label], name) {
		affected = append(affected, other)
	}
	if !writeDisabled(ctx, target, append(slices.Clone(d.lists[target.label]), name), stderr) {
		return 1
	}
	fmt.Fprintln(stderr, toggleMessage(name, false, affected))
	return 0
}

// writeDisabled writes list as the disabled skills of s; false when it
// cannot, said on stderr.
func writeDisabled(ctx context.Context, s settingsScope, list []string, stderr io.Writer) bool {
	if list == nil {
		list = []string{}
	}
	if err := settings.SetValue(ctx, s.path, []string{"skills", "disabled"}, list); err != nil {
		fmt.Fprintln(stderr, err)
		return false
	}
	return true
}

// toggleMessage is 0.61's renderSkillActionFeedback for a change.
func toggleMessage(name string, enable bool, affected []settingsScope) string {
	verb, preposition := "disabled", "by adding it to the disabled list in"
	if enable {
		verb, preposition = "enabled", "by removing it from the disabled list in"
	}
	if len(affected) == 2 {
		if enable {
			return fmt.Sprintf("Skill %q %s %s %s and %s settings.", name, verb, preposition, affected[0], affected[1])
		}
		return fmt.Sprintf("Skill %q is now disabled in both %s and %s settings.", name, affected[0], affected[1])
	}
	return fmt.Sprintf("Skill %q %s %s %s settings.", name, verb, preposition, affected[0])
}
