package policy

import (
	"github.com/gemini-ls/gemini-ls/internal/tools"

	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// Decision is what a rule decides, spelled as in the TOML files.
type Decision string

const (
	Allow   Decision = "allow"
	Deny    Decision = "deny"
	AskUser Decision = "ask_user"
)

// Mode is an approval mode as policy files spell it.
type Mode string

const (
	ModeDefault  Mode = "default"
	ModeAutoEdit Mode = "autoEdit"
	ModeYolo     Mode = "yolo"
	ModePlan     Mode = "plan"
)

// Modes are every mode, from the least permissive, as Gemini CLI orders
// them (MODES_BY_PERMISSIVENESS).
var modes = []Mode{ModePlan, ModeDefault, ModeAutoEdit, ModeYolo}

// Tier is where a policy file comes from; it is the whole part of its
// rules' final priorities.
type Tier int

const (
	TierDefault   Tier = 1
	TierExtension Tier = 2
	TierWorkspace Tier = 3
	TierUser      Tier = 4
	TierAdmin     Tier = 5
)

func (t Tier) String() string {
	switch t {
	case TierExtension:
		return "extension"
	case TierWorkspace:
		return "workspace"
	case TierUser:
		return "user"
	case TierAdmin:
		return "admin"
	}
	return "default"
}

// MCPPrefix starts the name of every MCP tool as policies name it:
// mcp_SERVER_TOOL.
const MCPPrefix = "mcp_"

// MCPToolName is how policies name tool of an MCP server.
func MCPToolName(server, tool string) string {
	switch {
	case server == "*" && (tool == "" || tool == "*"):
		return MCPPrefix + "*"
	case server == "*":
		return MCPPrefix + "*_" + tool
	case tool == "" || tool == "*":
		return MCPPrefix + server + "_*"
	}
	return MCPPrefix + server + "_" + tool
}

// legacyAliases are tools' former names, which rules may still use, each
// with its name now (a list, not a map: no work at start-up).
var legacyAliases = [...]struct{ old, now string }{{"search_file_content", tools.GrepSearchName}}

// Rule is one [[rule]] of a file, one per tool name and command prefix
// it lists.
type Rule struct {
	// ToolName is the tool, a wildcard, or an MCP tool's full name
	// (mcpName joined in).
	ToolName string
	MCPName  string
	Subagent string
	// Args is the regular expression over the stringified arguments;
	// nil for none.
	Args            *regexp.Regexp
	ToolAnnotations map[string]any
	Decision        Decision
	// Priority is the final priority: tier + priority/1000.
	Priority float64
	// Modes are where the rule applies; every mode when empty.
	Modes []Mode
	// Interactive, when set, restricts the rule to interactive (true) or
	// headless (false) sessions.
	Interactive *bool
	// CommandPrefix is the command prefix Args was built of, when it was.
	CommandPrefix    string
	AllowRedirection bool
	DenyMessage      string
	// Source is where the rule was read, as Gemini CLI shows it:
	// "User: my-rules.toml".
	Source string
}

// Call is a tool call as rules see it.
type Call struct {
	// Name is the tool's name; an MCP tool's is MCPToolName(Server, tool).
	Name string
	// Server is the MCP server of an MCP tool; "" for others.
	Server      string
	Args        map[string]any
	Annotations map[string]any
	Mode        Mode
	// Shell is the language of a shell call's command line: how it is
	// split into the commands the rules judge. Bash when zero.
	Shell osshell.Kind
}

// Verdict is what the rules decide on a call.
type Verdict struct {
	// Decision is "" when no rule decides the call.
	Decision Decision
	// Rule is the rule responsible, when one is; a shell line that asks
	// because it redirects or cannot be parsed has none.
	Rule *Rule
	// Priority is the responsible rule's, or, for a shell line that asks
	// for want of one, that of the rule that allowed the line.
	Priority float64
	// Undecided are the commands of an allowed shell line that no rule
	// decided; the caller judges them as it would without rules.
	Undecided []string
	// Why says why a shell line an allow rule matched asks instead: it
	// redirects, cannot be parsed, or does what its commands do not show.
	Why string
}

// Engine decides calls by the rules it was loaded with. Its zero value,
// and a nil *Engine, have no rules.
type Engine struct {
	rules []*Rule
	// listing is rules with 0.61's default policy files (listing.go),
	// sorted as rules are: what Excludes walks. Made on first use:
	// parsing those files is most of an engine's making, and the first
	// prompt, not the editor's initialize, is what needs them.
	listing     func() []*Rule
	interactive bool
	problems    []Problem
	// restrictsShell: a rule may deny or ask about a shell line by its
	// arguments, so that the commands it runs are judged (runs.go);
	// lastRestricting is the last such rule's index in rules.
	restrictsShell  bool
	lastRestricting int
	// prefixLiterals let a command run match a command prefix without its
	// pattern (runs.go); made on first use.
	prefixLiterals func() map[*Rule]prefixLiteral
	// folded are the restricting rules' patterns matching in any case,
	// for Windows commands; made on first use.
	folded func() map[*Rule]*regexp.Regexp
}

// New makes an engine of rules, sorted by priority (stable), for
// interactive or headless sessions.
func New(rules []*Rule, interactive bool) *Engine {
	loaded := slices.Clone(rules) // in their order, which withListing keeps for equal priorities
	sorted := sortByPriority(slices.Clone(rules))
	return &Engine{
		rules:           sorted,
		listing:         sync.OnceValue(func() []*Rule { return withListing(loaded) }),
		interactive:     interactive,
		restrictsShell:  lastRestricting(sorted) >= 0,
		lastRestricting: lastRestricting(sorted),
		prefixLiterals:  sync.OnceValue(func() map[*Rule]prefixLiteral { return prefixLiterals(sorted) }),
		folded:          sync.OnceValue(func() map[*Rule]*regexp.Regexp { return foldedPatterns(sorted) }),
	}
}

// sortByPriority sorts rules, the highest priority first; of equal ones,
// the first loaded first.
func sortByPriority(rules []*Rule) []*Rule {
	slices.SortStableFunc(rules, func(a, b *Rule) int { return cmp.Compare(b.Priority, a.Priority) })
	return rules
}

// Rules are the engine's rules, the highest priority first.
func (e *Engine) Rules() []*Rule {
	if e == nil {
		return nil
	}
	return e.rules
}

// Problems are what loading the engine's files reported.
func (e *Engine) Problems() []Problem {
	if e == nil {
		return nil
	}
	return e.problems
}

// Interactive reports whether the engine serves sessions that can ask.
func (e *Engine) Interactive() bool { return e != nil && e.interactive }

// Check decides c by the rules.
func (e *Engine) Check(c Call) Verdict {
	if e == nil || len(e.rules) == 0 {
		return Verdict{}
	}
	if c.Name == tools.ShellName {
		if command, ok := c.Args["command"].(string); ok {
			return e.checkShell(c, command)
		}
	}
	if r := e.first(c, nil); r != nil {
		return decided(r)
	}
	return Verdict{}
}

// first is the rule of the highest priority that matches c, or nil;
// wordEnd tells where the words of a shell call's command end (nil: it
// is not a shell command, or not bash).
func (e *Engine) first(c Call, wordEnd func(int) bool) *Rule {
	stringified := stableStringify(c.Args)
	names := []string{c.Name}
	for _, a := range legacyAliases {
		switch c.Name {
		case a.old:
			names = append(names, a.now)
		case a.now:
			names = append(names, a.old)
		}
	}
	for _, r := range e.rules {
		for _, name := range names {
			if e.matches(r, c, name, stringified) && endsAWord(r, wordEnd) {
				return r
			}
		}
	}
	return nil
}

// checkShell decides a shell line and each command it runs, as Gemini
// CLI's checkShellCommand does, and judges the commands it runs as the
// shell reads them by the rules that restrict (restrict).
func (e *Engine) checkShell(c Call, command string) Verdict {
	line, ok := parseShell(c.Shell, command, e.restrictsShell)
	var wordEnd func(int) bool
	if line.words.across != nil { // parsed, if not read whole
		wordEnd = line.words.at
	}
	top := e.first(c, wordEnd)
	v := Verdict{}
	if top != nil {
		v = decided(top)
	}
	if v.Decision == Deny {
		return v
	}
	var restricted Verdict
	if e.restrictsShell {
		if restricted = e.restrict(c, line, ok, checkedByParts(command, line, ok)); restricted.Decision == Deny {
			return restricted
		}
	}
	v = e.checkParts(c, command, line, ok, top, v)
	if v.Decision == Deny || restricted.Decision == "" || v.Decision == AskUser && v.Priority >= restricted.Priority {
		return v
	}
	return restricted
}

// checkedByParts tells whether checkParts judges a text, as a command of
// the line parsed (ok) as line: as a part, or as the whole line when that
// is its only part. Lines of many parts are not looked through.
func checkedByParts(command string, line shellLine, ok bool) func(string) bool {
	return func(text string) bool {
		switch {
		case !ok:
			return false
		case !splitsIntoParts(command, line):
			return text == command
		case len(line.parts) > 32:
			return false
		}
		return slices.ContainsFunc(line.parts, func(p shellPart) bool { return p.text == text })
	}
}

// splitsIntoParts reports whether checkParts judges the line part by
// part: it has more than one, or its one part is not the whole line.
func splitsIntoParts(command string, line shellLine) bool {
	return len(line.parts) > 1 || line.parts[0].text != strings.TrimSpace(command)
}

// checkParts is checkShell's decision by the line's parts: v, by the rule
// top that matches the whole line, unless a part is denied or asks, or
// the line redirects, cannot be parsed (ok) or does what its parts do
// not show.
func (e *Engine) checkParts(c Call, command string, line shellLine, ok bool, top *Rule, v Verdict) Verdict {
	if !ok {
		if v.Decision == Allow && c.Mode != ModeYolo {
			return Verdict{Decision: AskUser, Priority: top.Priority, Why: line.unread()}
		}
		return v
	}
	if v.Decision == Allow && !top.AllowRedirection && c.Mode != ModeAutoEdit && c.Mode != ModeYolo && line.redirects {
		v = Verdict{Decision: AskUser, Priority: top.Priority, Why: "it redirects input or output"}
	}
	if splitsIntoParts(command, line) {
		for _, part := range line.parts {
			sub := c
			sub.Args = shellArgs(c.Args, part.text)
			r := e.first(sub, part.words.at)
			switch {
			case r == nil:
				if v.Decision == Allow {
					v.Undecided = append(v.Undecided, part.text)
				}
			case r.Decision == Deny:
				return decided(r)
			case r.Decision == AskUser:
				if v.Decision != AskUser || v.Rule == nil {
					v.Rule, v.Priority, v.Why = r, r.Priority, ""
				}
				v.Decision, v.Undecided = AskUser, nil
			}
		}
	}
	if v.Decision == Allow && line.unmodelled != "" && top.Args != nil && c.Mode != ModeYolo {
		// A rule that names commands does not speak for what they do not
		// show; one that allows every command line does.
		return Verdict{Decision: AskUser, Priority: top.Priority, Why: line.unmodelled}
	}
	return v
}

func decided(r *Rule) Verdict { return Verdict{Decision: r.Decision, Rule: r, Priority: r.Priority} }

// shellArgs are a shell call's arguments with command replaced by part.
func shellArgs(args map[string]any, part string) map[string]any {
	sub := map[string]any{"command": part}
	if dir, ok := args["dir_path"]; ok {
		sub["dir_path"] = dir
	}
	return sub
}

// matches reports whether r applies to c, called name, as Gemini CLI's
// ruleMatches decides.
func (e *Engine) matches(r *Rule, c Call, name, stringified string) bool {
	switch {
	case !e.applies(r, c, name):
		return false
	case r.Args != nil && (c.Args == nil || !r.Args.MatchString(stringified)):
		return false
	case r.CommandPrefix != "" && r.Decision == Allow && !hasPrefix(c.Args["command"], r.CommandPrefix):
		return false
	}
	return true
}

// applies reports whether r applies to c, called name, its arguments
// apart.
func (e *Engine) applies(r *Rule, c Call, name string) bool {
	switch {
	case len(r.Modes) > 0 && !slices.Contains(r.Modes, c.Mode):
		return false
	case r.Subagent != "": // gemini-ls runs no subagents
		return false
	case r.Interactive != nil && *r.Interactive != e.interactive:
		return false
	case r.MCPName == "*" && c.Server == "":
		return false
	case r.MCPName != "" && r.MCPName != "*" && r.MCPName != c.Server:
		return false
	case !toolNameMatches(r.ToolName, name, c.Server):
		return false
	case !annotationsMatch(r.ToolAnnotations, c.Annotations):
		return false
	}
	return true
}

// hasPrefix reports whether command is a string that starts with prefix.
func hasPrefix(command any, prefix string) bool {
	s, ok := command.(string)
	return ok && strings.HasPrefix(s, prefix)
}

// endsAWord reports whether r, when it allows by a command prefix, ends
// where the shell ends a word of the command, as wordEnd tells (nil: the
// command is not bash, and no prefix covers it). Deny and ask_user rules
// match on their pattern alone, which can only make them match more.
func endsAWord(r *Rule, wordEnd func(int) bool) bool {
	return r.CommandPrefix == "" || r.Decision != Allow || wordEnd != nil && wordEnd(len(r.CommandPrefix))
}

// toolNameMatches matches a rule's tool name, wildcards included, against
// a call of name (of server, for an MCP tool).
func toolNameMatches(pattern, name, server string) bool {
	switch {
	case pattern == "*":
		return true
	case !strings.Contains(pattern, "*"):
		return pattern == name
	case pattern == MCPPrefix+"*":
		return server != ""
	case strings.HasPrefix(pattern, MCPPrefix+"*_"):
		return server != "" && name == MCPToolName(server, strings.TrimPrefix(pattern, MCPPrefix+"*_"))
	case strings.HasPrefix(pattern, MCPPrefix) && strings.HasSuffix(pattern, "_*"):
		want := strings.TrimSuffix(strings.TrimPrefix(pattern, MCPPrefix), "_*")
		return server == want && strings.HasPrefix(name, MCPPrefix+want+"_")
	}
	return pattern == name
}

// annotationsMatch reports whether the call's annotations hold every
// key-value pair the rule asks for.
func annotationsMatch(want, have map[string]any) bool {
	if want == nil {
		return true
	}
	if have == nil {
		return false
	}
	for k, v := range want {
		if !sameValue(v, have[k]) {
			return false
		}
	}
	return true
}

// sameValue is JavaScript's === on the values TOML and JSON give: numbers
// compare by value whatever their Go type.
func sameValue(a, b any) bool {
	fa, aNum := number(a)
	fb, bNum := number(b)
	if aNum || bNum {
		return aNum && bNum && fa == fb
	}
	switch a.(type) {
	case string, bool:
		return a == b
	}
	return false // objects are never === another
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
