package completion

import (
	"slices"
	"sync"
)

// predictions keeps, by document, the changes the model last foresaw and
// the text it foresaw them in: a rename through the file is one model
// call, whose changes are answered one by one as the user takes them.
type predictions struct {
	mu     sync.Mutex
	byPath map[string]prediction
}

type prediction struct {
	base    string
	changes []change
}

// keep puts changes, foreseen in base, in place of path's prediction.
func (p *predictions) keep(path, base string, changes []change) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(changes) == 0 {
		delete(p.byPath, path)
		return
	}
	if p.byPath == nil {
		p.byPath = make(map[string]prediction)
	}
	p.byPath[path] = prediction{base: base, changes: changes}
}

func (p *predictions) forget(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byPath, path)
}

// carryOn returns the changes of path's prediction still to be made in
// text: all of them when text is the text they were foreseen in, the
// others when text is that with one of them made (the user took it),
// which the prediction then keeps. Anything else ends the prediction.
func (p *predictions) carryOn(path, text string) ([]change, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.byPath[path]
	if !ok {
		return nil, false
	}
	if pr.base == text {
		return pr.changes, true
	}
	for i, c := range pr.changes {
		if !madeIn(pr.base, c, text) {
			continue
		}
		rest := slices.Delete(slices.Clone(pr.changes), i, i+1)
		for j := i; j < len(rest); j++ {
			rest[j].offset += len(c.new) - len(c.old)
		}
		if len(rest) == 0 {
			break
		}
		p.byPath[path] = prediction{base: text, changes: rest}
		return rest, true
	}
	delete(p.byPath, path)
	return nil, false
}

// madeIn reports whether text is base with c made.
func madeIn(base string, c change, text string) bool {
	return len(text) == len(base)-len(c.old)+len(c.new) &&
		text[:c.offset] == base[:c.offset] &&
		text[c.offset:c.offset+len(c.new)] == c.new &&
		text[c.offset+len(c.new):] == base[c.end():]
}
