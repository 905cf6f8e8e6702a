package policy

import (
	"path"
	"regexp"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// run is a command of a shell line as the program it starts receives
// it, which the rules that restrict (deny, ask_user) are matched
// against: its words after quote and escape removal, joined by spaces,
// whatever blanks, quotes, escapes and wrappers the line spells it with.
type run struct {
	// text is the words joined by spaces; a word that is not static as
	// it is written.
	text string
	// known is how much of text is known before the line runs: up to the
	// first word that is not static; len(text) when all are.
	known int
	// words are its words, which tell where its words end in text, for an
	// allow rule's prefix.
	words []shellparse.Word
	// unknown: nothing of what runs is known (the line cannot be read,
	// or runs what it does not show).
	unknown bool
	// fold: a Windows command, whose words are matched in any case.
	fold bool
	// could, for an unknown run that stands for what a line the judge
	// does not understand may run, tells whether a restricting rule could
	// match a word of it (judge.go); nil: any rule could.
	could func(*Rule) bool
	// why is why such a run is not known.
	why string
}

// newRun is the run of words.
func newRun(words []shellparse.Word, fold bool) run {
	r := run{known: -1, fold: fold, words: words}
	if len(words) == 1 { // most commands of a wrapper's: no copy
		r.text, r.known = words[0].Text, 0
		if words[0].Static {
			r.known = len(r.text)
		}
		return r
	}
	size := len(words)
	for _, w := range words {
		size += len(w.Text)
	}
	var b strings.Builder
	b.Grow(size)
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !w.Static && r.known < 0 {
			r.known = b.Len()
		}
		b.WriteString(w.Text)
	}
	r.text = b.String()
	if r.known < 0 {
		r.known = len(r.text)
	}
	return r
}

// complete reports whether every word of r is known.
func (r run) complete() bool { return !r.unknown && r.known == len(r.text) }

// endsAWord reports whether a word of r ends at byte i; a run of no
// words (a declaration's text) ends one at its end only.
func (r run) endsAWord(i int) bool {
	end := -1
	for _, w := range r.words {
		if end += 1 + len(w.Text); end == i {
			return true
		}
	}
	return r.words == nil && i == len(r.text)
}

// addRuns adds the runs of a command of words: as written, and, when its
// name is a path or not in lower case, by the program's name as the
// system finds it (/bin/rm and RM are rm; on Windows, C:\x\Git.EXE is
// git).
func (line *shellLine) addRuns(words []shellparse.Word) {
	fold := line.kind != 0
	line.addRun(newRun(words, fold))
	if len(words) == 0 || !words[0].Static {
		return
	}
	name := path.Base(words[0].Text)
	if fold {
		name = shellparse.WindowsCommandName(words[0].Text)
	}
	variants := []string{name}
	if lower := strings.ToLower(name); lower != name {
		variants = append(variants, lower)
	}
	for _, variant := range variants {
		if variant != words[0].Text {
			renamed := append([]shellparse.Word{{Text: variant, Static: true}}, words[1:]...)
			line.addRun(newRun(renamed, fold))
		}
	}
}

// addRun records r, within the line's budget.
func (line *shellLine) addRun(r run) {
	line.budget -= len(r.text)
	line.runs = append(line.runs, r)
}

// hide records why the line may run commands its runs do not show: no
// rule can speak for it, and a restricting rule that may match an
// unknown command asks.
func (line *shellLine) hide(why string) {
	line.unmodel(why)
	if line.hidden == "" {
		line.hidden = why
	}
}

// lastRestricting is the index in rules (sorted) of the last rule that
// may deny or ask about a shell call by its arguments; -1 when none
// does, and a line's runs need no judging.
func lastRestricting(rules []*Rule) int {
	last := -1
	for i, r := range rules {
		if r.Decision != Allow && r.Args != nil && toolNameMatches(r.ToolName, tools.ShellName, "") {
			last = i
		}
	}
	return last
}

// restrict is what the rules that restrict make of the runs of a line
// (parsed: it could be read): a deny of any run denies; an ask_user of
// any asks; a restricting rule that may match a run not all known asks,
// saying why. A rule of higher priority that decides a run first (an
// allow of it) speaks for it instead, as for any command. A run the
// line's parts judge already, as its very text, is left to them
// (checked).
func (e *Engine) restrict(c Call, line shellLine, parsed bool, checked func(string) bool) Verdict {
	runs := line.runs
	if !parsed || line.hidden != "" {
		runs = append(runs[:len(runs):len(runs)], run{unknown: true})
	}
	if parsed && line.unjudged != "" {
		names := line.names
		runs = append(runs[:len(runs):len(runs)], run{unknown: true, why: line.unjudged, could: func(r *Rule) bool { return names.could(r, true) }})
	}
	for _, p := range line.programs {
		names := p.names
		runs = append(runs[:len(runs):len(runs)], run{unknown: true, could: func(r *Rule) bool { return names.could(r, false) },
			why: "it runs " + p.name + ", a program gemini-ls does not know, whose arguments name a program it may run"})
	}
	var ask Verdict
	for _, r := range runs {
		if r.complete() && checked(r.text) {
			continue
		}
		rule, unsure := e.judgeRun(c, r)
		switch {
		case rule == nil || rule.Decision == Allow:
		case rule.Decision == Deny && !unsure:
			return decided(rule)
		case rule.Decision == Deny && c.Mode == ModeYolo:
			// Nobody is asked in yolo: what a deny rule could match and
			// the judge cannot read is refused, saying why (issue 95).
			v := decided(rule)
			v.Why = unjudged(rule, r, line, parsed)
			return v
		case ask.Decision == "" || rule.Priority > ask.Priority:
			ask = Verdict{Decision: AskUser, Rule: rule, Priority: rule.Priority}
			if unsure {
				ask.Why = unjudged(rule, r, line, parsed)
			}
		}
	}
	return ask
}

// unjudged says why a line asks for want of being judged by rule.
func unjudged(rule *Rule, r run, line shellLine, parsed bool) string {
	what := "the " + string(rule.Decision) + " rule of " + rule.Source + " may match it"
	if rule.Source == "" {
		what = "a " + string(rule.Decision) + " rule may match it"
	}
	switch {
	case !parsed:
		return line.unread() + ", and " + what
	case r.why != "":
		return r.why + ", and " + what
	case r.unknown:
		return line.hidden + ", and " + what
	}
	return "it runs " + r.text + ", whose words are not known before it runs, and " + what
}

// judgeRun is the rule of the highest priority that decides r: one that
// matches it, or, when r is not all known, a restricting rule that may
// (unsure).
func (e *Engine) judgeRun(c Call, r run) (rule *Rule, unsure bool) {
	s := subject{exact: stringifyShell(c.Args, r.text)}
	if r.fold {
		s.upper = strings.ToUpper(s.exact)
	}
	known := ""
	if !r.complete() {
		known = encoded(r.text[:r.known], r.fold)
	}
	// Below the last rule that restricts, only allow rules are left.
	for _, rule := range e.rules[:e.lastRestricting+1] {
		if !e.applies(rule, c, c.Name) {
			continue
		}
		switch {
		case rule.Args == nil:
			return rule, false
		case !r.unknown && e.runMatches(rule, r, s):
			return rule, false
		case rule.Decision != Allow && !r.complete() && mayMatch(rule, known, r.fold) && (r.could == nil || r.could(rule)):
			return rule, true
		}
	}
	return nil, false
}

// subject is a run's arguments stringified (exact), and in upper case
// for a Windows command (upper), as Windows compares names.
type subject struct{ exact, upper string }

// runMatches reports whether rule's pattern matches the run r (its
// arguments stringified, s): an allow rule's command prefix where a word
// of r ends, a restricting rule's pattern also in any case when r is a
// Windows command.
func (e *Engine) runMatches(rule *Rule, r run, s subject) bool {
	literal, plain := e.prefixLiterals()[rule]
	restricts := rule.Decision != Allow
	switch {
	case plain:
		matches := prefixMatches(literal.exact, s.exact) || r.fold && restricts && prefixMatches(literal.upper, s.upper)
		return matches && (restricts || r.endsAWord(len(rule.CommandPrefix)))
	case rule.Args.MatchString(s.exact):
		return rule.CommandPrefix == "" || restricts || r.endsAWord(len(rule.CommandPrefix))
	case r.fold && restricts:
		return e.folded()[rule].MatchString(s.exact)
	}
	return false
}

// prefixLiteral is the literal beginning of a command prefix's pattern
// ("command":" and the prefix as the command is encoded), as it is and in
// upper case.
type prefixLiteral struct{ exact, upper string }

// prefixLiterals are the literal beginnings of the command prefixes'
// patterns that are that literal and prefixEnd alone, for prefixMatches.
func prefixLiterals(rules []*Rule) map[*Rule]prefixLiteral {
	literals := map[*Rule]prefixLiteral{}
	for _, r := range rules {
		if r.CommandPrefix == "" || r.Args == nil {
			continue
		}
		if literal, _ := r.Args.LiteralPrefix(); r.Args.String() == escapeRegex(literal)+prefixEnd {
			literals[r] = prefixLiteral{literal, strings.ToUpper(literal)}
		}
	}
	return literals
}

// prefixMatches is the MatchString of a command prefix's pattern, whose
// literal beginning is literal, on stringifyShell's text, without running
// the pattern: the literal, then a blank, a quote or an escaped quote, at
// the one place "command":" can be.
func prefixMatches(literal, stringified string) bool {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(stringified, "{\x00"), literal)
	if !ok {
		return false
	}
	return rest != "" && strings.IndexByte("\t\n\f\r \"", rest[0]) >= 0 || strings.HasPrefix(rest, `\"`)
}

// mayMatch reports whether rule's pattern may match a run of which only
// the beginning is known (known, as stableStringify writes it; in upper
// case when fold): what follows may be anything. A command prefix may
// when the known text is a beginning of it; another pattern that can
// only match from the command's start, when its literal beginning and
// the known text agree; any other, always. The literal beginning of a
// command prefix's pattern is the prefix, as written in the command.
func mayMatch(rule *Rule, known string, fold bool) bool {
	literal, _ := rule.Args.LiteralPrefix()
	want, anchored := strings.CutPrefix(literal, `"command":"`)
	switch {
	case !anchored:
		return true
	case fold:
		want = strings.ToUpper(want)
	}
	return strings.HasPrefix(want, known) || rule.CommandPrefix == "" && strings.HasPrefix(known, want)
}

// encoded is text as stableStringify writes it inside a string, in upper
// case when fold.
func encoded(text string, fold bool) string {
	var b strings.Builder
	jsjson.WriteString(&b, text)
	s := strings.TrimSuffix(strings.TrimPrefix(b.String(), `"`), `"`)
	if fold {
		return strings.ToUpper(s)
	}
	return s
}

// foldedPatterns are the restricting rules' patterns matching in any
// case, for Windows commands.
func foldedPatterns(rules []*Rule) map[*Rule]*regexp.Regexp {
	folded := map[*Rule]*regexp.Regexp{}
	for _, r := range rules {
		if r.Decision != Allow && r.Args != nil {
			// A pattern that compiled compiles again with (?i) before it.
			folded[r] = regexp.MustCompile("(?i)" + r.Args.String())
		}
	}
	return folded
}
