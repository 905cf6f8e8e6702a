package gitignore

// Ignored reports whether patterns (in their order: a later one wins)
// ignore the file or directory name in the directory dir: whether the
// last of them to match it does not start with '!'. dir is relative to
// the root the patterns' bases are, "" or slash-separated and ending in
// '/'. A path whose parent directory is ignored is ignored whatever its
// own rules say (git cannot re-include it); Ignored does not look at the
// parents: a walk knows them as it descends.
//
// A rule too costly to judge against the path (one git's backtracking
// takes exponential time over, wildmatch) ignores it: what the user
// hid is never shown for want of an answer.
func Ignored(patterns []Pattern, dir, name string, isDir bool) bool {
	for i := len(patterns) - 1; i >= 0; i-- {
		matched, exhausted := patterns[i].matches(dir, name, isDir)
		if exhausted {
			return true
		}
		if matched {
			return !patterns[i].negative
		}
	}
	return false
}

func (p *Pattern) matches(dir, name string, isDir bool) (matched, exhausted bool) {
	if p.dirOnly && !isDir {
		return false, false
	}
	if p.anyDepth {
		return p.matchName(name)
	}
	return p.matchPath(dir, name)
}

// matchName matches a pattern without a '/' against a file's name.
func (p *Pattern) matchName(name string) (matched, exhausted bool) {
	switch {
	case p.literal == len(p.text):
		return p.equal(p.text, name), false
	case p.endsWith:
		suffix := p.text[1:]
		return len(suffix) <= len(name) && p.equal(suffix, name[len(name)-len(suffix):]), false
	}
	return wildMatch(p.text, name, p.fold)
}

// matchPath matches a pattern holding a '/' against the path dir+name
// below the pattern's base.
func (p *Pattern) matchPath(dir, name string) (matched, exhausted bool) {
	if len(dir) < len(p.base) || !p.equal(p.base, dir[:len(p.base)]) {
		return false, false
	}
	dir = dir[len(p.base):]
	if p.literal == len(p.text) {
		// No glob: the path below base is the text.
		return len(dir)+len(name) == len(p.text) && p.equal(dir, p.text[:len(dir)]) && p.equal(name, p.text[len(dir):]), false
	}
	return wildMatch(p.text, dir+name, p.fold)
}

// equal compares as git's fspathncmp does: byte for byte, or ASCII
// letters without case under fold.
func (p *Pattern) equal(a, b string) bool {
	if !p.fold {
		return a == b
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if toLower(a[i]) != toLower(b[i]) {
			return false
		}
	}
	return true
}
