package policy

import (
	"github.com/gemini-ls/gemini-ls/internal/tools"

	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/tomldepth"
)

// Source is a place policy files are read from: a directory (its .toml
// files) or one .toml file, and the tier its rules take.
type Source struct {
	Tier Tier
	Path string
	// Extension names the extension a TierExtension source belongs to.
	Extension string
}

// Problem is a policy file, or a rule of one, that could not be used as
// written: the file (or the rule) was skipped, or, for a warning, kept.
type Problem struct {
	Path string
	Tier Tier
	// Rule is the rule's number in its file, from 1; 0 for the file.
	Rule    int
	Message string
	Warning bool
}

// String is the problem as Gemini CLI words it (formatPolicyError), with
// the file's path.
func (p Problem) String() string {
	severity := "error"
	if p.Warning {
		severity = "warning"
	}
	where := ""
	if p.Rule > 0 {
		where = fmt.Sprintf(" (rule #%d)", p.Rule)
	}
	return fmt.Sprintf("[%s] Policy file %s in %s%s: %s", strings.ToUpper(p.Tier.String()), severity, p.Path, where, p.Message)
}

// maxFileSize bounds a policy file.
const maxFileSize = 4 << 20

// Load reads the rules of every source, above the built-in default
// rules (defaults.go), with the rules settings make (settingsRules), for
// interactive or headless sessions. Sources that do not exist are skipped; everything else that
// cannot be used is in the engine's Problems.
func Load(sources []Source, interactive bool, settingsRules ...*Rule) *Engine {
	rules, problems := defaultRules()
	rules = append(rules, settingsRules...)
	for _, src := range sources {
		files, skipped, err := policyFiles(src.Path)
		if err != nil {
			problems = append(problems, Problem{Path: src.Path, Tier: src.Tier, Message: "Failed to read policy path: " + err.Error()})
			continue
		}
		for _, s := range skipped {
			problems = append(problems, Problem{Path: s.path, Tier: src.Tier, Message: "Failed to read policy file: " + s.why})
		}
		for _, file := range files {
			r, p := loadFile(src, file)
			rules = append(rules, r...)
			problems = append(problems, p...)
		}
	}
	e := New(rules, interactive)
	e.problems = problems
	return e
}

// skippedFile is a .toml entry of a policies directory that is not read.
type skippedFile struct{ path, why string }

// policyFiles are the .toml files of path: path itself, or the regular
// files of the directory, by name; none when path does not exist, and an
// error when it is neither a directory nor a file (a FIFO). The
// directory's other .toml entries are skipped, as Gemini CLI skips them,
// and returned to be named: a symlink, or a FIFO, device or socket that
// would block the read.
func policyFiles(path string) (files []string, skipped []skippedFile, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	case !info.IsDir() && !info.Mode().IsRegular():
		return nil, nil, fmt.Errorf("it is %s, neither a directory nor a file", safefile.DescribeMode(info.Mode()))
	case !info.IsDir():
		if strings.HasSuffix(path, ".toml") {
			return []string{path}, nil, nil
		}
		return nil, nil, nil
	}
	entries, err := safefile.ReadDir(path, 0)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := filepath.Join(path, e.Name())
		switch {
		case !strings.HasSuffix(e.Name(), ".toml") || e.IsDir():
		case e.Type().IsRegular():
			files = append(files, name)
		case e.Type()&fs.ModeSymlink != 0:
			skipped = append(skipped, skippedFile{name, "it is a symbolic link, and as in Gemini CLI a policies directory's files are read only when they are regular files"})
		default:
			skipped = append(skipped, skippedFile{name, fmt.Sprintf("it is %s, not a regular file", safefile.DescribeMode(e.Type()))})
		}
	}
	return files, skipped, nil
}

// loadFile reads the rules of one file.
func loadFile(src Source, path string) ([]*Rule, []Problem) {
	data, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return nil, []Problem{{Path: path, Tier: src.Tier, Message: fmt.Sprintf("Failed to read policy file: %v", err)}}
	}
	return parseFile(src, path, data)
}

// parseFile reads the rules of data, the file at path.
func parseFile(src Source, path string, data []byte) ([]*Rule, []Problem) {
	problem := problemsOf(src, path)
	if err := tomldepth.Check(string(data)); err != nil {
		return nil, []Problem{problem(0, false, "TOML parsing failed: %v", err)}
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, []Problem{problem(0, false, "TOML parsing failed: %v", err)}
	}
	var problems []Problem
	if _, ok := doc["safety_checker"]; ok {
		problems = append(problems, problem(0, true, "[[safety_checker]] is not supported by gemini-ls; its checkers were not loaded"))
	}
	raw, ok := doc["rule"]
	if !ok {
		return nil, problems
	}
	tables, ok := raw.([]map[string]any)
	if !ok {
		return nil, append(problems, problem(0, false, "Schema validation failed: rule must be an array of tables ([[rule]])"))
	}
	rules, more := parseTables(src, path, tables)
	return rules, append(problems, more...)
}

// parseTables are the rules of a policy file's [[rule]] tables, as the
// TOML decoder gives them.
func parseTables(src Source, path string, tables []map[string]any) ([]*Rule, []Problem) {
	problem := problemsOf(src, path)
	var problems []Problem
	source := sourceName(src, path)
	var rules []*Rule
	for i, table := range tables {
		r, warnings, err := parseRule(table, src.Tier, source)
		for _, w := range warnings {
			problems = append(problems, problem(i+1, true, "%s", w))
		}
		if err != nil {
			problems = append(problems, problem(i+1, false, "Invalid policy rule: %v", err))
			continue
		}
		if src.Tier == TierExtension {
			if why := extensionRefusal(r); why != "" {
				problems = append(problems, problem(i+1, true, "Extension %q %s; ignoring this rule for security", src.Extension, why))
				continue
			}
		}
		rules = append(rules, r...)
	}
	return rules, problems
}

// problemsOf makes the problems of the file at path: of its rule number
// rule (0: of the file), a warning or an error.
func problemsOf(src Source, path string) func(rule int, warning bool, format string, args ...any) Problem {
	return func(rule int, warning bool, format string, args ...any) Problem {
		return Problem{Path: path, Tier: src.Tier, Rule: rule, Warning: warning, Message: fmt.Sprintf(format, args...)}
	}
}

// sourceName is where a rule comes from, as Gemini CLI shows it.
func sourceName(src Source, path string) string {
	tier := src.Tier.String()
	tier = strings.ToUpper(tier[:1]) + tier[1:]
	if src.Tier == TierExtension && src.Extension != "" {
		tier += " (" + src.Extension + ")"
	}
	return tier + ": " + filepath.Base(path)
}

// extensionRefusal is why an extension may not contribute rules: they
// allow, or speak for yolo mode (Gemini CLI's loadExtensionPolicies).
func extensionRefusal(rules []*Rule) string {
	for _, r := range rules {
		if r.Decision == Allow {
			return fmt.Sprintf("attempted to contribute an ALLOW rule for tool %q", r.ToolName)
		}
		if slices.Contains(r.Modes, ModeYolo) {
			return "attempted to contribute a rule for YOLO mode"
		}
	}
	return ""
}

// ruleKeys are the fields a [[rule]] may have.
var ruleKeys = []string{
	"name", "toolName", "subagent", "mcpName", "argsPattern", "commandPrefix", "commandRegex",
	"decision", "priority", "modes", "interactive", "toolAnnotations",
	"allowRedirection", "allow_redirection", "denyMessage", "deny_message",
}

// ruleFields are a [[rule]]'s fields, typed.
type ruleFields struct {
	toolNames, prefixes                   []string
	mcpName, subagent, args, commandRegex string
	decision                              Decision
	priority                              int64
	modes                                 []Mode
	interactive                           *bool
	annotations                           map[string]any
	allowRedirection                      bool
	denyMessage                           string
}

// parseRule turns one [[rule]] into rules, one per tool name and command
// prefix, as Gemini CLI's toml-loader does; warnings keep the rule.
func parseRule(t map[string]any, tier Tier, source string) ([]*Rule, []string, error) {
	f, warnings, err := readFields(t)
	if err != nil {
		return nil, warnings, err
	}
	patterns, err := argsPatterns(f)
	if err != nil {
		return nil, warnings, err
	}
	var rules []*Rule
	for i, pattern := range patterns {
		var re *regexp.Regexp
		if pattern != "" {
			if re, err = regexp.Compile(pattern); err != nil {
				return nil, warnings, fmt.Errorf("Invalid regex pattern %q: %v", pattern, err)
			}
		}
		for _, name := range f.toolNames {
			if f.mcpName != "" {
				name = MCPToolName(f.mcpName, name)
			}
			rules = append(rules, &Rule{
				ToolName:         name,
				MCPName:          f.mcpName,
				Subagent:         f.subagent,
				Args:             re,
				ToolAnnotations:  f.annotations,
				Decision:         f.decision,
				Priority:         float64(tier) + float64(f.priority)/1000,
				Modes:            f.modes,
				Interactive:      f.interactive,
				CommandPrefix:    prefixOf(f, i),
				AllowRedirection: f.allowRedirection,
				DenyMessage:      f.denyMessage,
				Source:           source,
			})
		}
	}
	return rules, warnings, nil
}

// readFields checks a [[rule]]'s fields and types, as Gemini CLI's schema
// does.
func readFields(t map[string]any) (ruleFields, []string, error) {
	var f ruleFields
	var warnings []string
	for key := range t {
		if !slices.Contains(ruleKeys, key) {
			warnings = append(warnings, fmt.Sprintf("Unknown field %q was ignored", key))
		}
	}
	slices.Sort(warnings)
	var err error
	str := func(key string) string {
		if err != nil {
			return ""
		}
		v, ok := t[key]
		if !ok {
			return ""
		}
		s, isString := v.(string)
		if !isString {
			err = fmt.Errorf("Field %q must be a string", key)
		}
		return s
	}
	flag := func(key string) *bool {
		v, ok := t[key]
		if !ok || err != nil {
			return nil
		}
		b, isBool := v.(bool)
		if !isBool {
			err = fmt.Errorf("Field %q must be a boolean", key)
		}
		return &b
	}
	f.mcpName, f.subagent, f.args, f.commandRegex = str("mcpName"), str("subagent"), str("argsPattern"), str("commandRegex")
	f.denyMessage = cmp.Or(str("denyMessage"), str("deny_message"))
	decision := str("decision")
	f.interactive = flag("interactive")
	if b := cmp.Or(flag("allowRedirection"), flag("allow_redirection")); b != nil {
		f.allowRedirection = *b
	}
	if err != nil {
		return f, warnings, err
	}
	switch Decision(decision) {
	case Allow, Deny, AskUser:
		f.decision = Decision(decision)
	case "":
		return f, warnings, errors.New(`Field "decision" is required: "allow", "deny" or "ask_user"`)
	default:
		return f, warnings, fmt.Errorf(`Field "decision": %q is not "allow", "deny" or "ask_user"`, decision)
	}
	if f.priority, err = readPriority(t["priority"]); err != nil {
		return f, warnings, err
	}
	if f.modes, err = readModes(t["modes"]); err != nil {
		return f, warnings, err
	}
	if v, ok := t["toolAnnotations"]; ok {
		if f.annotations, ok = v.(map[string]any); !ok {
			return f, warnings, errors.New(`Field "toolAnnotations" must be a table`)
		}
	}
	if f.prefixes, err = stringOrList(t, "commandPrefix"); err != nil {
		return f, warnings, err
	}
	if f.toolNames, err = stringOrList(t, "toolName"); err != nil {
		return f, warnings, err
	}
	w, err := f.checkToolNames(t)
	return f, append(warnings, w...), err
}

// checkToolNames checks toolName against the rest, filling in what the
// docs let a rule leave out: a rule of commandPrefix or commandRegex is
// about run_shell_command, one of mcpName alone about all its tools.
func (f *ruleFields) checkToolNames(t map[string]any) ([]string, error) {
	_, hasToolName := t["toolName"]
	shellSugar := f.prefixes != nil || f.commandRegex != ""
	switch {
	case !hasToolName && shellSugar:
		f.toolNames = []string{tools.ShellName}
	case !hasToolName && f.mcpName != "":
		f.toolNames = []string{"*"}
	case !hasToolName:
		return nil, errors.New(`Field "toolName" is required; use "*" for all tools`)
	}
	if shellSugar {
		_, isString := t["toolName"].(string)
		switch {
		case hasToolName && (!isString || f.toolNames[0] != tools.ShellName):
			return nil, errors.New(`commandPrefix and commandRegex can only be used with toolName = "run_shell_command" (not an array)`)
		case f.args != "":
			return nil, errors.New("cannot use both commandPrefix/commandRegex and argsPattern")
		case f.prefixes != nil && f.commandRegex != "":
			return nil, errors.New("cannot use both commandPrefix and commandRegex")
		}
	}
	var warnings []string
	for i, name := range f.toolNames {
		server, tool, legacy := strings.Cut(name, "__")
		switch {
		case name == "":
			return nil, errors.New(`toolName cannot be an empty string; use "*" to match all tools`)
		case legacy && f.mcpName == "" && server != "" && tool != "":
			// Gemini CLI's former spelling of an MCP tool, server__tool:
			// still meant, but said the new way.
			f.toolNames[i] = MCPToolName(server, tool)
			warnings = append(warnings, fmt.Sprintf(`The "__" syntax for MCP tools is deprecated: %q is read as %q; use mcpName = %q instead`, name, f.toolNames[i], server))
		}
	}
	return warnings, nil
}

// argsPatterns are the rule's argument patterns, as Gemini CLI's
// buildArgsPatterns makes them: one per command prefix; "" for none.
func argsPatterns(f ruleFields) ([]string, error) {
	switch {
	case f.prefixes != nil:
		patterns := make([]string, len(f.prefixes))
		for i, prefix := range f.prefixes {
			// Encoded as the command is (stableStringify), so that what is
			// written the same is matched: encoding/json would write >, <,
			// & and U+2028 as escapes the command never has.
			var encoded strings.Builder
			jsjson.WriteString(&encoded, prefix)
			open := strings.TrimSuffix(encoded.String(), `"`)
			// The prefix ends at a space, a quote, or an escaped quote:
			// "git" matches "git status", not "gitk".
			patterns[i] = escapeRegex(`"command":`+open) + prefixEnd
		}
		return patterns, nil
	case f.commandRegex != "":
		return []string{`"command":"` + f.commandRegex}, nil
	}
	return []string{f.args}, nil
}

// prefixEnd ends a command prefix's pattern: a blank, a quote, or an
// escaped quote.
const prefixEnd = `(?:[\s"]|\\")`

// prefixOf is the command prefix of f's pattern i; "" for none.
func prefixOf(f ruleFields, i int) string {
	if i < len(f.prefixes) {
		return f.prefixes[i]
	}
	return ""
}

// escapeRegex escapes text as Gemini CLI's escapeRegex does.
func escapeRegex(text string) string {
	var b strings.Builder
	for _, r := range text {
		if strings.ContainsRune(`-[]{}()*+?.,\^$|#"`, r) || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func readPriority(v any) (int64, error) {
	switch p := v.(type) {
	case nil:
		return 0, errors.New(`Field "priority" is required`)
	case int64:
		if p < 0 || p > 999 {
			return 0, fmt.Errorf(`Field "priority": %d is not within 0..999 (priorities of 1000 and more would jump to the next tier)`, p)
		}
		return p, nil
	case float64:
		return 0, errors.New(`Field "priority" must be an integer`)
	}
	return 0, errors.New(`Field "priority" must be a number`)
}

func readModes(v any) ([]Mode, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New(`Field "modes" must be an array`)
	}
	out := make([]Mode, 0, len(list))
	for _, m := range list {
		s, _ := m.(string)
		if !slices.Contains(modes, Mode(s)) {
			return nil, fmt.Errorf(`Field "modes": %v is not one of "default", "autoEdit", "yolo", "plan"`, m)
		}
		out = append(out, Mode(s))
	}
	return out, nil
}

// stringOrList reads a field that is a string or an array of strings;
// nil when absent.
func stringOrList(t map[string]any, key string) ([]string, error) {
	switch v := t[key].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("Field %q must be a string or an array of strings", key)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("Field %q must be a string or an array of strings", key)
}
