package sessionstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Record is session id as Gemini CLI 0.61's /export-session writes it:
// the ConversationRecord its SessionSelector resolves from the session's
// shared file (loadConversationRecord), in JSON.stringify(record, null,
// 2)'s bytes, whichever program wrote the file. The file is read as
// 0.61 reads it (recordReader), not as Load does: a line 0.61 ignores is
// ignored, and every message keeps its fields as written. A session 0.61
// would not find — no shared file, nothing in it to resume, a
// subagent's — is an error in 0.61's words (its SessionError) that is
// ErrNotFound.
func (s *Store) Record(ctx context.Context, id string) ([]byte, error) {
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("exporting session: %w", err)
	}
	path, _, err := s.locate(id)
	if err != nil {
		return nil, fmt.Errorf("exporting session %s: %w", id, err)
	}
	if path == "" {
		return nil, s.unlisted(ctx, id)
	}
	rec, err := readRecord(ctx, path, id)
	if err != nil {
		return nil, err
	}
	if sid, _ := rec.meta.Get("sessionId"); sid != id || !rec.listed() {
		return nil, s.unlisted(ctx, id)
	}
	return jsjson.Stringify(rec.object(time.Now())), nil
}

// unlistedError is 0.61's SessionError for a session its selector does
// not find.
type unlistedError struct{ msg string }

func (e *unlistedError) Error() string        { return e.msg }
func (e *unlistedError) Is(target error) bool { return target == ErrNotFound }

// unlisted is 0.61's error for session id, not among the project's
// sessions: there are none, or none is id.
func (s *Store) unlisted(ctx context.Context, id string) error {
	chats, err := s.chats(s.sharedRoot(""), false)
	if err != nil {
		return fmt.Errorf("exporting session %s: %w", id, err)
	}
	listed, err := anyListed(ctx, chats)
	if err != nil {
		return fmt.Errorf("exporting session %s: %w", id, err)
	}
	if !listed {
		return &unlistedError{"No previous sessions found for this project."}
	}
	return &unlistedError{fmt.Sprintf("Invalid session identifier %q.\n  Searched for sessions in %s.\n"+
		"  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.", id, chats)}
}

// anyListed reports whether 0.61 lists a session of the chats
// directory, read as it reads them (Load's stricter reading skips a
// file 0.61 lists).
func anyListed(ctx context.Context, chats string) (bool, error) {
	if chats == "" {
		return false, nil
	}
	entries, err := safefile.ReadDir(chats, MaxListed*4)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", chats, err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		name := e.Name()
		if !strings.HasPrefix(name, sharedPrefix) || !strings.HasSuffix(name, sharedExt) || !e.Type().IsRegular() {
			continue
		}
		if r, err := readRecord(ctx, filepath.Join(chats, name), name); err == nil && r.listed() {
			return true, nil
		}
	}
	return false, nil
}

// readRecord reads the shared file at path as 0.61's
// loadConversationRecord reads a whole one.
func readRecord(ctx context.Context, path, id string) (*recordReader, error) {
	f, fi, err := openRead(path, id)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > MaxFileSize {
		return nil, tooLarge(path, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(path, int64(len(data)))
	}
	r := newRecordReader()
	for _, line := range splitLines(data) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if jsTrim(string(line)) == "" {
			continue
		}
		if v, err := jsjson.Parse(line); err == nil {
			// A line 0.61 throws on is dropped where it threw, as its
			// try around each line drops it.
			_ = r.apply(v)
		}
	}
	return r, nil
}

// splitLines splits data as node's readline does with crlfDelay
// Infinity: at "\r\n", "\n" or "\r"; a last line without one is a line.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			return append(lines, data)
		}
		lines = append(lines, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return lines
}

// recordReader is loadConversationRecord's state as it reads a file's
// lines: the metadata merged, the messages by id in the order a
// JavaScript Map keeps them, the first prompt's text.
type recordReader struct {
	meta  *jsjson.Object
	order []string
	msgs  map[string]recordMessage
	// tracking: the memory scratchpad's freshness is followed (a $set of
	// a scratchpad); stale: a message or rewind came after it.
	tracking, stale bool
	// firstPrompt is the text of the first user message to resume, as
	// it was read; nil until one is.
	firstPrompt *string
}

// recordMessage is a message record as read, and whether 0.61 would
// resume it.
type recordMessage struct {
	obj       *jsjson.Object
	resumable bool
}

// errThrows is a line on which 0.61's code throws a TypeError (a null
// functionCall, say).
var errThrows = errors.New("0.61 throws on this record")

func newRecordReader() *recordReader {
	return &recordReader{meta: jsjson.NewObject(), msgs: map[string]recordMessage{}}
}

// apply takes one parsed line, as 0.61 tells records apart: a rewind, a
// message, a $set of metadata, metadata with messages.
func (r *recordReader) apply(v any) error {
	rec, ok := v.(*jsjson.Object)
	if !ok {
		return nil
	}
	if id, ok := stringField(rec, "$rewindTo"); ok {
		r.touch()
		r.rewind(id)
		return nil
	}
	if id, ok := stringField(rec, "id"); ok {
		r.touch()
		return r.add(id, rec)
	}
	if set, _ := rec.Get("$set"); isObject(set) {
		return r.set(set)
	}
	_, hasID := stringField(rec, "sessionId")
	_, hasHash := stringField(rec, "projectHash")
	if !hasID || !hasHash {
		return nil
	}
	r.meta.Spread(rec)
	if msgs, ok := arrayField(rec, "messages"); ok {
		return r.addAll(msgs)
	}
	return nil
}

// touch marks the memory scratchpad stale when its freshness is
// followed: a message or a rewind came after it.
func (r *recordReader) touch() {
	if r.tracking {
		r.stale = true
	}
}

// set takes a {"$set": {…}} record: its messages replace all, its
// fields are merged into the metadata.
func (r *recordReader) set(set any) error {
	if o, ok := set.(*jsjson.Object); ok {
		if pad, ok := o.Get("memoryScratchpad"); ok {
			r.tracking, r.stale = truthy(pad), false
		}
		if msgs, ok := arrayField(o, "messages"); ok {
			r.order, r.msgs = nil, map[string]recordMessage{}
			if err := r.addAll(msgs); err != nil {
				return err
			}
		}
	}
	r.meta.Spread(set)
	return nil
}

// addAll adds the message records of a "messages" array.
func (r *recordReader) addAll(msgs []any) error {
	for _, m := range msgs {
		obj, ok := m.(*jsjson.Object)
		if !ok {
			continue
		}
		if id, ok := stringField(obj, "id"); ok {
			if err := r.add(id, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// add adds (or, same id, replaces in its place) message m; the first
// user message to resume gives the first prompt's text.
func (r *recordReader) add(id string, m *jsjson.Object) error {
	resumable, err := resumableMessage(m)
	if err != nil {
		return err
	}
	if r.firstPrompt == nil || *r.firstPrompt == "" {
		content, _ := m.Get("content")
		if typ, _ := m.Get("type"); typ == "user" && resumable && truthy(content) {
			if text, ok := promptText(content); ok {
				r.firstPrompt = &text
			}
		}
	}
	if _, ok := r.msgs[id]; !ok {
		r.order = append(r.order, id)
	}
	r.msgs[id] = recordMessage{obj: m, resumable: resumable}
	return nil
}

// rewind drops the messages from id on; all of them when id names none.
func (r *recordReader) rewind(id string) {
	for i, have := range r.order {
		if have == id {
			for _, gone := range r.order[i:] {
				delete(r.msgs, gone)
			}
			r.order = r.order[:i]
			return
		}
	}
	r.order, r.msgs = nil, map[string]recordMessage{}
}

// listed reports whether 0.61's SessionSelector lists the file's
// session: one with an id and a project, something to resume, not a
// subagent's.
func (r *recordReader) listed() bool {
	sid, _ := r.meta.Get("sessionId")
	hash, _ := r.meta.Get("projectHash")
	kind, _ := r.meta.Get("kind")
	return truthy(sid) && truthy(hash) && kind != "subagent" && r.resumable()
}

func (r *recordReader) resumable() bool {
	for _, id := range r.order {
		if r.msgs[id].resumable {
			return true
		}
	}
	return false
}

// withoutMark is message o without the mark gemini-ls puts on the lines
// it writes: its own, left out of an export as its records are.
func withoutMark(o *jsjson.Object) *jsjson.Object { return o.Without(lsKey) }

// object is the ConversationRecord, its fields in 0.61's order, those
// it leaves undefined left out as JSON.stringify leaves them out; now
// stands in for a time the file lacks.
func (r *recordReader) object(now time.Time) *jsjson.Object {
	out := jsjson.NewObject()
	copyField := func(key string) {
		if v, ok := r.meta.Get(key); ok {
			out.Set(key, v)
		}
	}
	orNow := func(key string) {
		v, _ := r.meta.Get(key)
		if !truthy(v) {
			v = isoTime(now)
		}
		out.Set(key, v)
	}
	copyField("sessionId")
	copyField("projectHash")
	orNow("startTime")
	orNow("lastUpdated")
	for _, key := range []string{"summary", "memoryScratchpad", "directories", "kind"} {
		copyField(key)
	}
	messages := make([]any, 0, len(r.order))
	users := 0
	var firstUser *recordMessage
	for _, id := range r.order {
		m := r.msgs[id]
		messages = append(messages, withoutMark(m.obj))
		if typ, _ := m.obj.Get("type"); typ == "user" {
			users++
			if m.resumable && firstUser == nil {
				firstUser = &m
			}
		}
	}
	out.Set("messages", messages)
	out.Set("messageCount", len(messages))
	out.Set("userMessageCount", users)
	if r.tracking {
		out.Set("memoryScratchpadIsStale", r.stale)
	}
	first := r.firstPrompt
	if (first == nil || *first == "") && firstUser != nil {
		content, _ := firstUser.obj.Get("content")
		if text, ok := promptText(content); ok {
			first = &text
		}
	}
	if first != nil {
		out.Set("firstUserMessage", *first)
	}
	out.Set("hasResumableContent", r.resumable())
	return out
}

// promptText is a user message's text as 0.61 takes the first prompt's:
// a string content, or the text parts of an array joined.
func promptText(content any) (string, bool) {
	switch c := content.(type) {
	case string:
		return c, true
	case []any:
		var b strings.Builder
		for _, p := range c {
			if o, ok := p.(*jsjson.Object); ok {
				if text, ok := stringField(o, "text"); ok {
					b.WriteString(text)
				}
			}
		}
		return b.String(), true
	}
	return "", false
}

// resumableMessage is 0.61's isResumableMessageRecord: a user message
// that is not a command or 0.61's own context, a model message that
// says, calls or thinks something.
func resumableMessage(m *jsjson.Object) (bool, error) {
	text := ""
	if content, _ := m.Get("content"); truthy(content) {
		v, err := partText(content)
		if err != nil {
			return false, err
		}
		s, ok := v.(string)
		if !ok {
			return false, errThrows // .trim() of a number
		}
		text = jsTrim(s)
	}
	switch typ, _ := m.Get("type"); typ {
	case "user":
		return !ignoredUserText(text), nil
	case "gemini":
		calls, _ := m.Get("toolCalls")
		thoughts, _ := m.Get("thoughts")
		return text != "" || hasLength(calls) || hasLength(thoughts), nil
	}
	return false, nil
}

// partText is partListUnionToString(v) (partToString, verbose): the
// text of a part, a string or an array of them. 0.61 names a part that
// is not text in brackets ("[Function Call: read_file]"); only whether
// the text is empty and how it starts are read, so a bracketed word
// stands in. A part whose fields 0.61 cannot read throws (errThrows).
func partText(v any) (any, error) {
	if !truthy(v) {
		return "", nil
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case []any:
		var b strings.Builder
		for _, p := range v {
			t, err := partText(p)
			if err != nil {
				return nil, err
			}
			b.WriteString(jsString(t))
		}
		return b.String(), nil
	case *jsjson.Object:
		return objectPartText(v)
	}
	return "", nil // true or a number: no text
}

func objectPartText(p *jsjson.Object) (any, error) {
	for _, key := range []string{"videoMetadata", "thought", "codeExecutionResult", "executableCode", "fileData", "functionCall", "functionResponse", "inlineData"} {
		v, ok := p.Get(key)
		if !ok {
			continue
		}
		switch key {
		case "functionCall", "functionResponse":
			if v == nil {
				return nil, errThrows // .name of null
			}
		case "inlineData":
			if v == nil {
				return nil, errThrows
			}
			if o, ok := v.(*jsjson.Object); ok {
				if mime, ok := o.Get("mimeType"); ok && mime != nil {
					if _, ok := mime.(string); !ok {
						return nil, errThrows // .startsWith of a number
					}
				}
			}
		}
		return "[" + key + "]", nil
	}
	if text, _ := p.Get("text"); text != nil {
		return text, nil
	}
	return "", nil
}

// stringField is o[key] when it is a string.
func stringField(o *jsjson.Object, key string) (string, bool) {
	v, _ := o.Get(key)
	s, ok := v.(string)
	return s, ok
}

// arrayField is o[key] when it is an array.
func arrayField(o *jsjson.Object, key string) ([]any, bool) {
	v, _ := o.Get(key)
	a, ok := v.([]any)
	return a, ok
}

// isObject is JavaScript's typeof v === "object" && v !== null.
func isObject(v any) bool {
	switch v.(type) {
	case *jsjson.Object, []any:
		return true
	}
	return false
}

// truthy is JavaScript's Boolean(v).
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true
}

// hasLength is (v?.length ?? 0) > 0 of an array or a string.
func hasLength(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) > 0
	case string:
		return v != ""
	}
	return false
}

// jsString is String(v), as Array.prototype.join writes an element.
func jsString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		if v {
			return "true"
		}
		return "false"
	case float64:
		return jsjson.FormatNumber(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = jsString(e)
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// jsTrim is String.prototype.trim: JavaScript's white space and line
// terminators, which are not Go's (U+FEFF is one, U+0085 is not).
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}
