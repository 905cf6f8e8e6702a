package gitignore

// wildmatch is git's glob (wildmatch.c) with WM_PATHNAME, as git matches
// an ignore pattern: '*' and '?' stop at '/', '**' as a whole path
// component crosses it, '[...]' classes take '!' or '^', ranges, '\'
// escapes and [:alpha:]-style classes, and a class never matches '/'.
// Bytes are compared as bytes: text that is not UTF-8 is matched byte by
// byte, as git does. Neither pattern nor text holds a NUL byte (git's are
// C strings), so at reads past an end as NUL, where git reads its
// terminator.
//
// Backtracking as git's does, each '*' trying every length, takes time
// exponential in the stars for some patterns ("a/**/**/**/…/c" against
// a deep path: git itself does not answer in a minute). So past
// memoFrom steps the matcher remembers what each (pattern, text)
// position came to, which bounds its work by the pattern's stars times
// the text's length squared, and past maxSteps it gives up (exhausted).
type wildmatch struct {
	pattern, text string
	// fold compares ASCII letters without case, as git does under
	// core.ignorecase (WM_CASEFOLD), quirks kept: an escaped letter or a
	// class's single upper-case letter then matches nothing (git folds
	// the text, not those).
	fold bool

	steps     int
	memo      map[int]wmResult // by p*(len(text)+1)+t, once past memoFrom steps
	exhausted bool             // past maxSteps: no answer
}

const (
	memoFrom = 1 << 12
	maxSteps = 1 << 20
)

// wmResult is what matching the rest of the pattern from a position
// found. The aborts tell an enclosing '*' that trying further along the
// text cannot help (wmAbortAll), or that only an enclosing '**' may
// (wmAbortToStarStar): what keeps git's matcher from trying every split.
type wmResult int

const (
	wmMatch wmResult = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildMatch reports whether pattern matches the whole of text, and
// false and exhausted when it would take too long to say.
func wildMatch(pattern, text string, fold bool) (matched, exhausted bool) {
	m := wildmatch{pattern: pattern, text: text, fold: fold}
	matched = m.match(0, 0) == wmMatch
	return matched && !m.exhausted, m.exhausted
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// match matches pattern[p:] against text[t:], remembering the result
// once the match has taken memoFrom steps.
func (m *wildmatch) match(p, t int) wmResult {
	if m.step() {
		return wmAbortAll
	}
	if m.memo == nil {
		if m.steps < memoFrom {
			return m.matchFrom(p, t)
		}
		m.memo = make(map[int]wmResult)
	}
	key := p*(len(m.text)+1) + t
	if res, ok := m.memo[key]; ok {
		return res
	}
	res := m.matchFrom(p, t)
	m.memo[key] = res
	return res
}

// step counts a step, and reports whether the match is exhausted: an
// abort then unwinds every '*' at once.
func (m *wildmatch) step() bool {
	m.steps++
	m.exhausted = m.exhausted || m.steps > maxSteps
	return m.exhausted
}

// matchFrom matches pattern[p:] against text[t:]. A '**' counts as at
// the start of a component when it starts pattern[p:], as in git, where
// each recursion starts a pattern of its own.
func (m *wildmatch) matchFrom(p, t int) wmResult {
	start := p
	for ; p < len(m.pattern); p, t = p+1, t+1 {
		pc, tc := m.pattern[p], at(m.text, t)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		if m.fold {
			pc, tc = toLower(pc), toLower(tc)
		}
		switch pc {
		case '\\':
			p++
			if tc != at(m.pattern, p) {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			res, slashP, slashT, more := m.star(start, p, t)
			if !more {
				return res
			}
			p, t = slashP, slashT
		case '[':
			end, res := m.class(p, tc)
			if res != wmMatch {
				return res
			}
			p = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if t < len(m.text) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the run of '*' at pattern[p:] and what follows it against
// text[t:]. When the run is one '*' (or a '**' not a whole component)
// followed by '/', it matches up to the text's next '/': more is true and
// matching goes on at the pattern's '/' and that of the text.
func (m *wildmatch) star(start, p, t int) (res wmResult, slashP, slashT int, more bool) {
	p++
	matchSlash := false
	if at(m.pattern, p) == '*' {
		before := p - 2 // the byte before the run, if any
		for at(m.pattern, p) == '*' {
			p++
		}
		next := at(m.pattern, p)
		if (before < start || m.pattern[before] == '/') && (next == 0 || next == '/' || (next == '\\' && at(m.pattern, p+1) == '/')) {
			// A whole component: "**/" may match no directory at all.
			if next == '/' && m.match(p+1, t) == wmMatch {
				return wmMatch, 0, 0, false
			}
			matchSlash = true
		}
	}
	rest := m.text[t:]
	switch {
	case p == len(m.pattern):
		// A trailing "**" matches everything, a trailing '*' only what
		// holds no '/'.
		if !matchSlash && indexByte(rest, '/') >= 0 {
			return wmAbortToStarStar, 0, 0, false
		}
		return wmMatch, 0, 0, false
	case !matchSlash && m.pattern[p] == '/':
		slash := indexByte(rest, '/')
		if slash < 0 {
			return wmAbortAll, 0, 0, false
		}
		return 0, p, t + slash, true
	}
	return m.starTries(p, t, matchSlash), 0, 0, false
}

// starTries matches pattern[p:] at each position of text from t on, as
// the '*' (or '**', matchSlash) before p takes one more byte each time.
func (m *wildmatch) starTries(p, t int, matchSlash bool) wmResult {
	next := m.pattern[p]
	literal := !isGlobSpecial(next)
	if m.fold {
		next = toLower(next)
	}
	for t < len(m.text) {
		if m.step() {
			return wmAbortAll
		}
		tc := m.text[t]
		if literal {
			// What comes before the literal is the star's: skip to it,
			// never past a '/' a single star cannot cross.
			for ; t < len(m.text) && (matchSlash || m.text[t] != '/'); t++ {
				if tc = m.lowered(m.text[t]); tc == next {
					break
				}
			}
			if tc != next || t == len(m.text) {
				if matchSlash {
					return wmAbortAll
				}
				return wmAbortToStarStar
			}
		}
		res := m.match(p, t)
		switch {
		case res == wmNoMatch:
			if !matchSlash && tc == '/' {
				return wmAbortToStarStar
			}
		case !matchSlash || res != wmAbortToStarStar:
			return res
		}
		t++
	}
	return wmAbortAll
}

func (m *wildmatch) lowered(c byte) byte {
	if m.fold {
		return toLower(c)
	}
	return c
}

func indexByte(s string, c byte) int {
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// class matches the text byte tc (folded when m.fold) against the class
// opening at pattern[p] ('['), returning the index of its closing ']'
// and wmMatch, or what the match comes to: wmNoMatch, or wmAbortAll for
// a class that never closes or names no class git knows.
func (m *wildmatch) class(p int, tc byte) (int, wmResult) {
	p++
	pc := at(m.pattern, p)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		p++
		pc = at(m.pattern, p)
	}
	var prev byte // the byte a '-' would range from; 0: none
	matched := false
	for {
		if pc == 0 {
			return p, wmAbortAll
		}
		var hit, ok bool
		if p, pc, hit, ok = m.classItem(p, pc, prev, tc); !ok {
			return p, wmAbortAll
		}
		matched = matched || hit
		prev = pc
		p++
		if pc = at(m.pattern, p); pc == ']' {
			break
		}
	}
	if matched == negated || tc == '/' {
		return p, wmNoMatch
	}
	return p, wmMatch
}

// classItem matches tc against the class item at pattern[p] (pc): an
// escaped byte, a range from prev, a [:name:] class or a byte. It returns
// the index of the item's last byte, the byte a following '-' ranges
// from (0 after a range or a named class), whether tc matched, and
// false for an item git refuses.
func (m *wildmatch) classItem(p int, pc, prev, tc byte) (int, byte, bool, bool) {
	switch {
	case pc == '\\':
		p++
		pc = at(m.pattern, p)
		return p, pc, pc != 0 && tc == pc, pc != 0
	case pc == '-' && prev != 0 && at(m.pattern, p+1) != 0 && at(m.pattern, p+1) != ']':
		p++
		hi := m.pattern[p]
		if hi == '\\' {
			p++
			if hi = at(m.pattern, p); hi == 0 {
				return p, 0, false, false
			}
		}
		hit := tc >= prev && tc <= hi
		if !hit && m.fold && isLower(tc) {
			up := tc - 'a' + 'A'
			hit = up >= prev && up <= hi
		}
		return p, 0, hit, true
	case pc == '[' && at(m.pattern, p+1) == ':':
		return m.namedClass(p, tc)
	}
	return p, pc, tc == pc, true
}

// namedClass matches tc against the [:name:] at pattern[p]. A '[:' with
// no ":]" before the next ']' is a '[' like any other byte; a name git
// does not know refuses the pattern.
func (m *wildmatch) namedClass(p int, tc byte) (int, byte, bool, bool) {
	nameStart := p + 2
	end := nameStart
	for end < len(m.pattern) && m.pattern[end] != ']' {
		end++
	}
	if end == len(m.pattern) {
		return end, 0, false, false
	}
	if end-nameStart < 1 || m.pattern[end-1] != ':' {
		return p, '[', tc == '[', true
	}
	in, known := inNamedClass(m.pattern[nameStart:end-1], tc, m.fold)
	return end, 0, in, known
}
