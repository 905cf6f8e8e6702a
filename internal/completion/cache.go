package completion

import (
	"container/list"
	"strings"
	"sync"
)

// answersKept is how many recent answers the cache keeps, by context.
const answersKept = 128

// cache answers a request without a model call: from the suggestion last
// given for the document, when the user has been typing it (typing
// through), or from the answers given to the same context lately (an
// undo, a retyped word).
type cache struct {
	mu      sync.Mutex
	shown   map[string]anchor // by path: the suggestion last given
	answers map[string]*list.Element
	order   list.List // of *answer, most recent first
}

// anchor is a suggestion as it was given: where, and what.
type anchor struct {
	line                   int
	linePrefix, lineSuffix string
	size                   int
	text                   string
}

type answer struct {
	key, text string
}

// typedThrough returns the rest of the suggestion last given for path
// when, since then, the user has typed its first characters and nothing
// else.
func (c *cache) typedThrough(path string, w window) (string, bool) {
	c.mu.Lock()
	a, ok := c.shown[path]
	c.mu.Unlock()
	if !ok || w.selected != nil || a.line != w.line || a.lineSuffix != w.lineSuffix {
		return "", false
	}
	typed, ok := strings.CutPrefix(w.linePrefix, a.linePrefix)
	if !ok || typed == "" || w.size != a.size+len(typed) {
		return "", false
	}
	rest, ok := strings.CutPrefix(a.text, typed)
	if !ok || strings.TrimSpace(rest) == "" {
		return "", false
	}
	return rest, true
}

// remember notes text as the suggestion given at w. One that starts
// with a menu's item is not kept: typing through it is the menu's.
func (c *cache) remember(path string, w window, text string) {
	if w.selected != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shown == nil {
		c.shown = make(map[string]anchor)
	}
	// Cloned: a slice of a version of the document would keep it all.
	c.shown[path] = anchor{line: w.line, linePrefix: strings.Clone(w.linePrefix), lineSuffix: strings.Clone(w.lineSuffix), size: w.size, text: text}
}

func (c *cache) forget(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.shown, path)
}

// lookup returns the answer given lately for key.
func (c *cache) lookup(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.answers[key]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(el)
	return el.Value.(*answer).text, true
}

// store keeps text as the answer for key, dropping the least recent
// beyond answersKept.
func (c *cache) store(key, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers == nil {
		c.answers = make(map[string]*list.Element)
	}
	if el, ok := c.answers[key]; ok {
		el.Value.(*answer).text = text
		c.order.MoveToFront(el)
		return
	}
	c.answers[key] = c.order.PushFront(&answer{key: key, text: text})
	for c.order.Len() > answersKept {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.answers, last.Value.(*answer).key)
	}
}
