package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Documents is the set of open documents, safe for concurrent use. The
// zero value is an empty set.
//
// Documents are keyed by their path with symlinks resolved, so the editor's
// spelling of a path (say /var/... on macOS) and the workspace's resolved
// one (/private/var/...) find the same buffer. The spelling given to Open
// keeps working for Change, Close, Get and Wait.
type Documents struct {
	mu      sync.Mutex
	docs    map[string]*Document // by resolved path
	aliases map[string]string    // path as opened → resolved path
	changed chan struct{}        // closed and replaced on every change
}

// NewDocuments returns an empty set of documents.
func NewDocuments() *Documents { return &Documents{} }

// lock takes d.mu and makes the zero value ready.
func (d *Documents) lock() {
	d.mu.Lock()
	if d.docs == nil {
		d.docs = make(map[string]*Document)
		d.aliases = make(map[string]string)
		d.changed = make(chan struct{})
	}
}

// Open records didOpen, replacing any document already open at the path.
// The stored Path has symlinks resolved.
func (d *Documents) Open(doc Document) {
	given := filepath.Clean(doc.Path)
	key := given
	if real, err := resolveSymlinks(given); err == nil {
		key = real
	}
	doc.Path = key
	doc.Text = strings.TrimPrefix(doc.Text, bom)

	d.lock()
	defer d.mu.Unlock()
	d.docs[key] = &doc
	if given != key {
		d.aliases[given] = key
	}
	d.broadcast()
}

// Close records didClose.
func (d *Documents) Close(path string) {
	d.lock()
	defer d.mu.Unlock()
	key := d.key(path)
	if _, ok := d.docs[key]; !ok {
		return
	}
	delete(d.docs, key)
	for alias, k := range d.aliases {
		if k == key {
			delete(d.aliases, alias)
		}
	}
	d.broadcast()
}

// Get returns the open document at path.
func (d *Documents) Get(path string) (Document, bool) {
	d.lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[d.key(path)]
	if !ok {
		return Document{}, false
	}
	return *doc, true
}

// List returns the open documents sorted by path.
func (d *Documents) List() []Document {
	d.lock()
	docs := make([]Document, 0, len(d.docs))
	for _, doc := range d.docs {
		docs = append(docs, *doc)
	}
	d.mu.Unlock()
	slices.SortFunc(docs, func(a, b Document) int { return strings.Compare(a.Path, b.Path) })
	return docs
}

// Change applies didChange content changes in order under enc and sets the
// version. On error the document is left as it was.
func (d *Documents) Change(path string, version int32, changes []ContentChange, enc Encoding) error {
	d.lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[d.key(path)]
	if !ok {
		return fmt.Errorf("changing %s: document is not open", path)
	}
	text, err := applyChanges(doc.Text, changes, enc)
	if err != nil {
		return fmt.Errorf("changing %s to version %d: %w", path, version, err)
	}
	doc.Text = text
	doc.Version = version
	d.broadcast()
	return nil
}

// Saved records didSave (text, when the client sends it, replaces the overlay).
func (d *Documents) Saved(path string, text *string) {
	if text == nil {
		return
	}
	d.lock()
	defer d.mu.Unlock()
	doc, ok := d.docs[d.key(path)]
	if !ok {
		return
	}
	doc.Text = strings.TrimPrefix(*text, bom)
	d.broadcast()
}

// Wait blocks until path's document differs from version (changed, opened
// or closed) or ctx ends; it returns the current document and whether it is open.
//
// It returns once the document is closed or open at another version; a
// negative version stands for "not open", so Wait(ctx, path, -1) waits for
// the document to open. The answer depends only on the state, never on
// what happened before the call, so a change that lands before Wait is
// not missed. When ctx ends it returns the current state with ctx's error.
func (d *Documents) Wait(ctx context.Context, path string, version int32) (Document, bool, error) {
	for {
		d.lock()
		doc, open := d.docs[d.key(path)]
		var cur Document
		if open {
			cur = *doc
		}
		changed := d.changed
		d.mu.Unlock()

		if version < 0 && open || version >= 0 && (!open || cur.Version != version) {
			return cur, open, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return cur, open, ctx.Err()
		}
	}
}

// key maps a path to its document key. d.mu must be held.
func (d *Documents) key(path string) string {
	path = filepath.Clean(path)
	if key, ok := d.aliases[path]; ok {
		return key
	}
	return path
}

// broadcast wakes every Wait. d.mu must be held.
func (d *Documents) broadcast() {
	close(d.changed)
	d.changed = make(chan struct{})
}
