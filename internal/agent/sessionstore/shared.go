package sessionstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
	"github.com/gemini-ls/gemini-ls/internal/jsonstring"
)

// Gemini CLI 0.61's session file (packages/core chatRecordingService.js,
// sessionOperations.js): ~/.gemini/tmp/<project>/chats/
// session-<YYYY-MM-DDTHH-MM>-<first 8 characters of the id>.jsonl, one
// JSON record a line, told apart as 0.61's loadConversationRecord tells
// them apart:
//
//	{"$rewindTo": ID}                  the messages from ID on are gone
//	{"id": …, "type": …, …}            a message, added or (same id) replaced
//	{"$set": {…}}                      metadata merged; "messages" replaces all
//	{"sessionId", "projectHash", …}    metadata merged; "messages" are added
//
// Anything else 0.61 ignores. gemini-ls writes a prompt as it happens
// (recorder.go), as 0.61 does: a line of the last kind when it begins
// (the messages not yet saved, the prompt's last, with gemini-ls's record
// under "$geminiLs", which 0.61 never reads, saying the prompt began);
// a message line for each content the history gains (a model answer,
// the answers to its calls, the latter re-written under one id as each
// call ends); and a line of the last kind when it ends (gemini-ls's
// record of it: metadata, approvals, usage, exchange). A message line
// gemini-ls wrote says so under "$geminiLs" too.
const (
	sharedPrefix = "session-"
	sharedExt    = ".jsonl"
	// lsKey holds gemini-ls's record in a line 0.61 reads as metadata.
	lsKey = "$geminiLs"
	// sharedVersion is the version of gemini-ls's records in shared
	// files, the session format: 4 may leave a prompt's text to its
	// message (promptOf), which a reader of 3 would read as an empty
	// prompt; 3 writes a prompt as it happens; 2 wrote one line per
	// prompt. All three are read (a 3 written before 4 was named may
	// hold a promptOf too). A record or a message's mark of a later
	// version is a newer gemini-ls's: the file is not read
	// (*NewerFormatError), whatever line it is on.
	sharedVersion    = 4
	oldSharedVersion = 2
)

// The steps of a prompt an lsRecord marks (lsRecord.Step); a record with
// none holds a whole prompt, or a change between prompts.
const (
	stepBegin = "begin"
	stepEnd   = "end"
)

// lsRecord is what gemini-ls adds to a prompt's line (or a rewritten
// session's): what 0.61 has no place for.
type lsRecord struct {
	V int `json:"v"`
	// Replace: the line holds the whole session, as after a compression.
	Replace bool `json:"replace,omitempty"`
	// Step: the prompt of Running begins (its messages are in the line,
	// its input last), or the running prompt ends.
	Step string `json:"step,omitempty"`
	// Running is the prompt under way: what the user typed, and the id of
	// its message; with Replace, the prompt during which the session was
	// rewritten, with its answer so far.
	Running *Exchange `json:"running,omitempty"`
	// PromptOf names the message whose text is the prompt of Running or
	// of Exchange, left out of them ("prompt": ""): a prompt is stored
	// once, in its message (storeOnce), and read back from it.
	PromptOf  string     `json:"promptOf,omitempty"`
	Meta      *Meta      `json:"meta,omitempty"`
	Allow     []string   `json:"allow,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`
	Exchange  *Exchange  `json:"exchange,omitempty"`
	Exchanges []Exchange `json:"exchanges,omitempty"`
	// Context is the session context the conversation's requests begin
	// with, written once (the prompt it was made for, a rewrite): 0.61
	// leaves a message that starts <session_context> out of a resumed
	// history, and makes its own.
	Context string `json:"context,omitempty"`
}

// message is one of 0.61's MessageRecords.
type message struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp,omitempty"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content,omitempty"`
	DisplayContent json.RawMessage `json:"displayContent,omitempty"`
	Thoughts       []thought       `json:"thoughts,omitempty"`
	Tokens         *tokens         `json:"tokens,omitempty"`
	Model          string          `json:"model,omitempty"`
	ToolCalls      []toolCall      `json:"toolCalls,omitempty"`
	// LS marks a message line gemini-ls wrote (recorder.go).
	LS *lsMark `json:"$geminiLs,omitempty"`
}

// lsMark is what a message line gemini-ls wrote carries under lsKey.
type lsMark struct {
	V int `json:"v"`
}

type thought struct {
	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`
}

// tokens is 0.61's per-response token count.
type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

type toolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   map[string]any  `json:"args,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// header is the first line of a shared file.
type header struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime,omitempty"`
	LastUpdated string `json:"lastUpdated,omitempty"`
	Kind        string `json:"kind,omitempty"`
}

// promptLine is the line gemini-ls appends per prompt.
type promptLine struct {
	SessionID   string    `json:"sessionId"`
	ProjectHash string    `json:"projectHash"`
	LastUpdated string    `json:"lastUpdated"`
	Messages    []message `json:"messages"`
	LS          lsRecord  `json:"$geminiLs"`
}

// ProjectHash is 0.61's projectHash of a root: its SHA-256, in hex.
func ProjectHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}

// NewID is a new session id as 0.61 makes one: a random UUID (v4).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// sharedName is the file name 0.61 gives session id started at start.
func sharedName(id string, start time.Time) string {
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	return sharedPrefix + start.UTC().Format("2006-01-02T15-04") + "-" + short + sharedExt
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// messagesOf turns history into 0.61's messages: a user content is a
// "user" message, a model content a "gemini" one, its parts kept whole
// (thought signatures, calls), which 0.61 sends back as they are when a
// message's content holds a call or a thought. Calls are not repeated in
// toolCalls: 0.61 would send their results twice. usage is put on the
// last model message, as 0.61 counts a response's tokens on its message.
func messagesOf(history []*genai.Content, model string, now time.Time, usage Usage) []message {
	out := make([]message, 0, len(history))
	last := -1
	for _, c := range history {
		if c == nil {
			continue
		}
		m := messageOf(c, NewID(), model, now)
		if m.Type == "gemini" {
			last = len(out)
		}
		out = append(out, m)
	}
	if last >= 0 && usage != (Usage{}) {
		out[last].Tokens = tokensOf(usage)
	}
	return out
}

// messageOf is content c as 0.61's message id.
func messageOf(c *genai.Content, id, model string, now time.Time) message {
	parts, _ := partsJSON(nonNilParts(c.Parts))
	m := message{ID: id, Timestamp: isoTime(now), Type: "user", Content: parts}
	if c.Role == genai.RoleModel {
		m.Type, m.Model, m.Thoughts = "gemini", model, []thought{}
	}
	return m
}

// longText is the size from which partsJSON encodes a text itself.
const longText = 64 << 10

// partsJSON is parts as json.Marshal encodes them, but for their long
// texts of valid UTF-8, encoded at their final size (jsonstring.PutBack):
// json.Marshal copies a text three times over (its buffer grown by
// doubling, then copied out), and a prompt may be 16 MiB.
func partsJSON(parts []*genai.Part) ([]byte, error) {
	standIns := parts
	var texts map[string]string
	var tag string
	for i, p := range parts {
		if len(p.Text) < longText || !utf8.ValidString(p.Text) {
			continue
		}
		if texts == nil {
			standIns, texts, tag = slices.Clone(parts), make(map[string]string), NewID()
		}
		standIn := *p
		standIn.Text = tag + "-text-" + strconv.Itoa(i)
		standIns[i] = &standIn
		texts[`"`+standIn.Text+`"`] = p.Text
	}
	enc, err := json.Marshal(standIns)
	if err != nil || texts == nil {
		return enc, err
	}
	return jsonstring.PutBack(enc, texts)
}

func tokensOf(u Usage) *tokens {
	return &tokens{Input: u.PromptTokens, Output: u.CandidatesTokens, Cached: u.CachedTokens, Thoughts: u.ThoughtsTokens, Total: u.TotalTokens}
}

func usageOf(t *tokens) Usage {
	return Usage{PromptTokens: t.Input, CandidatesTokens: t.Output, CachedTokens: t.Cached, ThoughtsTokens: t.Thoughts, TotalTokens: t.Total}
}

func nonNilParts(parts []*genai.Part) []*genai.Part {
	out := make([]*genai.Part, 0, len(parts))
	for _, p := range parts {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// parts decodes a message's content: a string (a text), or an array of
// parts and strings.
func parts(raw json.RawMessage) ([]*genai.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []*genai.Part{{Text: s}}, nil
	}
	if raw[0] == '{' {
		var p genai.Part
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return []*genai.Part{&p}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]*genai.Part, 0, len(items))
	for _, item := range items {
		ps, err := parts(item)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// partsText is partListUnionToString's verbose text of parts, as 0.61
// judges a message by it.
func partsText(ps []*genai.Part) string {
	var b strings.Builder
	for _, p := range ps {
		switch {
		case p.Thought:
			b.WriteString("[Thought: true]")
		case p.FunctionCall != nil:
			b.WriteString("[Function Call: " + p.FunctionCall.Name + "]")
		case p.FunctionResponse != nil:
			b.WriteString("[Function Response: " + p.FunctionResponse.Name + "]")
		case p.InlineData != nil:
			b.WriteString("[Media]")
		case p.FileData != nil:
			b.WriteString("[File Data]")
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// plainText is the text parts of ps joined, as 0.61 takes a session's
// first user message.
func plainText(ps []*genai.Part) string {
	var b strings.Builder
	for _, p := range ps {
		if !p.Thought && p.FunctionCall == nil && p.FunctionResponse == nil {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ignoredUserText is 0.61's isIgnoredUserContent: what a resume leaves
// out of the model's history (commands, its own context blocks).
func ignoredUserText(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "?") ||
		strings.HasPrefix(s, "<session_context>") || strings.HasPrefix(s, "<hook_context>")
}

func hasResponse(ps []*genai.Part) bool {
	return slices.ContainsFunc(ps, func(p *genai.Part) bool { return p.FunctionResponse != nil })
}

// decoded is a message with its content decoded.
type decoded struct {
	message
	parts []*genai.Part
	// ls: written by gemini-ls (in a prompt line), whose usage its own
	// record counts.
	ls bool
}

// resumable is 0.61's isResumableMessageRecord.
func (m *decoded) resumable() bool {
	text := strings.TrimSpace(partsText(m.parts))
	switch m.Type {
	case "user":
		return !ignoredUserText(text)
	case "gemini":
		return text != "" || len(m.ToolCalls) > 0 || len(m.Thoughts) > 0
	}
	return false
}

// prompt reports whether m is a prompt of the user: a user message that
// is not a command and answers no call.
func (m *decoded) prompt() bool {
	return m.Type == "user" && m.resumable() && !hasResponse(m.parts)
}

// shared is a shared file read: 0.61's view of it (the messages and its
// metadata) and gemini-ls's (its records).
type shared struct {
	header
	summary string
	order   []string
	msgs    map[string]*decoded

	lsMeta    *Meta // the last gemini-ls record's
	allow     []string
	usage     Usage
	exchanges []Exchange
	// derived are the exchanges made from 0.61's prompts (by message
	// id), their answers filled in at the end.
	derived map[string]bool
	// after counts 0.61's prompts since gemini-ls's last record.
	after int
	// tokens61 is the usage of each message 0.61 wrote, by id.
	tokens61 map[string]Usage
	// running is a prompt gemini-ls began and has not ended (yet);
	// interrupted: the file ends in one, its process gone before the
	// prompt ended.
	running     *runningPrompt
	interrupted bool
	// context is the last session context a gemini-ls record gave.
	context string

	// end is the offset just past the last complete line.
	end int64
	// newer is the format of the record that stopped the reading, of a
	// newer gemini-ls's; 0 when none did.
	newer int
}

// newerReason is what apply says of a line of a newer format (s.newer).
const newerReason = "of a newer session format"

// newerFormat notes v, a record's or a mark's format, when it is newer
// than this gemini-ls reads, and reports whether it is.
func (s *shared) newerFormat(v int) bool {
	if v > sharedVersion {
		s.newer = v
	}
	return s.newer != 0
}

// readShared reads a shared file of at most MaxFileSize bytes. A last
// line without its newline is a torn write, ignored (end says where the
// complete lines end); a line that is not JSON before the end is
// corruption (*CorruptError).
func readShared(ctx context.Context, r io.Reader, path string) (*shared, error) {
	s := &shared{msgs: map[string]*decoded{}, derived: map[string]bool{}, tokens61: map[string]Usage{}}
	var bad *CorruptError
	err := eachLine(ctx, r, path, func(line []byte, off int64, lineNo int) error {
		if bad != nil {
			return bad
		}
		if len(bytes.TrimSpace(line)) == 0 {
			s.end = off
			return nil
		}
		if reason := s.apply(line, lineNo); reason != "" {
			if s.newer != 0 { // said at once, on the last line too
				return &NewerFormatError{Path: path, Line: lineNo, Version: s.newer, From: oldSharedVersion, To: sharedVersion}
			}
			bad = &CorruptError{Path: path, Line: lineNo, Reason: reason}
			return nil
		}
		s.end = off
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.SessionID == "" {
		return nil, fmt.Errorf("%s holds no session header", path)
	}
	if s.running != nil {
		s.endRunning()
		s.interrupted = true
	}
	s.fill()
	return s, nil
}

// apply takes one line; a reason when it is not a record.
func (s *shared) apply(line []byte, lineNo int) string {
	if m, ok := decodeMessageLine(line); ok {
		return s.take(m)
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		return "not a JSON record: " + err.Error()
	}
	if id, ok := recordString(rec, "$rewindTo"); ok {
		s.rewind(id)
		return ""
	}
	if _, ok := recordString(rec, "id"); ok {
		return s.applyMessage(line)
	}
	if raw, ok := rec["$set"]; ok && len(raw) > 0 && raw[0] == '{' {
		return s.applySet(raw)
	}
	_, hasID := recordString(rec, "sessionId")
	_, hasHash := recordString(rec, "projectHash")
	if !hasID || !hasHash {
		return "" // ignored, as 0.61 ignores it
	}
	return s.applyMetadata(rec, line, lineNo)
}

// recordString is rec's key when it holds a string.
func recordString(rec map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := rec[key]
	var v string
	if !ok || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// applyMessage takes a line holding one message, 0.61's or gemini-ls's.
func (s *shared) applyMessage(line []byte) string {
	m, reason := decodeMessage(line)
	if reason != "" {
		return reason
	}
	return s.take(m)
}

// decodeMessage decodes a line holding one message; a reason when it
// does not decode.
func decodeMessage(line []byte) (*decoded, string) {
	var m decoded
	if err := json.Unmarshal(line, &m.message); err != nil {
		return nil, "a message that does not decode: " + err.Error()
	}
	ps, err := parts(m.Content)
	if err != nil {
		return nil, "a message whose content does not decode: " + err.Error()
	}
	m.parts = ps
	return &m, ""
}

// take adds the message m, decoded; a reason when a newer gemini-ls
// marked it.
func (s *shared) take(m *decoded) string {
	if m.LS != nil && s.newerFormat(m.LS.V) {
		return newerReason
	}
	if m.LS != nil {
		m.ls = true
		s.put(m)
		s.running.took(m)
	} else {
		s.add(m)
	}
	return ""
}

// messageRecord is a message line as most are written, by gemini-ls and
// by 0.61: the id first, the content a list of parts.
type messageRecord struct {
	message
	// Parts shadows message.Content: decoded at once, not kept raw.
	Parts    []*genai.Part   `json:"content"`
	RewindTo json.RawMessage `json:"$rewindTo"`
}

// decodeMessageLine decodes a message line in one pass (a line of a
// tool's output is most of a session file, and apply's general path
// goes over it several times: as a record, as a message, as content,
// as each part); false for any line it would not take as apply's
// general path does, which then takes it: one whose first key is not
// "id" with a string (the key that tells a message, matched exactly),
// whose content is not a list of parts, that names a rewind (in any
// case: the general path looks for it first), or that does not decode.
func decodeMessageLine(line []byte) (*decoded, bool) {
	if !bytes.HasPrefix(line, []byte(`{"id":"`)) {
		return nil, false
	}
	var l messageRecord
	if json.Unmarshal(line, &l) != nil || l.RewindTo != nil {
		return nil, false
	}
	// parts drops a null item, as 0.61's content has no part for it.
	ps := slices.DeleteFunc(l.Parts, func(p *genai.Part) bool { return p == nil })
	return &decoded{message: l.message, parts: ps}, true
}

// applySet takes a $set record's object, raw: header fields, the summary,
// and the messages, which replace all before them.
func (s *shared) applySet(raw json.RawMessage) string {
	var set struct {
		header
		Summary  *string           `json:"summary"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return "a $set record that does not decode: " + err.Error()
	}
	s.merge(set.header)
	if set.Summary != nil {
		s.summary = *set.Summary
	}
	if set.Messages != nil {
		s.order, s.msgs = nil, map[string]*decoded{}
		if reason := s.addAll(set.Messages, false); reason != "" {
			return reason
		}
	}
	return ""
}

// applyMetadata takes a metadata record, rec as line decoded: the header
// (the first one's whole, a later one's merged), its messages and the
// gemini-ls record it may hold.
func (s *shared) applyMetadata(rec map[string]json.RawMessage, line []byte, lineNo int) string {
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return "a metadata record that does not decode: " + err.Error()
	}
	if lineNo == 1 || s.SessionID == "" {
		s.header = h
	} else {
		s.merge(h)
	}
	if raw, ok := rec["summary"]; ok {
		_ = json.Unmarshal(raw, &s.summary)
	}
	ls, reason := s.lsRecordOf(rec)
	if reason != "" {
		return reason
	}
	var msgs []json.RawMessage
	if raw, ok := rec["messages"]; ok {
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return "a metadata record whose messages do not decode: " + err.Error()
		}
	}
	if reason := s.addAll(msgs, ls != nil); reason != "" {
		return reason
	}
	if ls != nil {
		s.record(ls)
	}
	return ""
}

// lsRecordOf is the gemini-ls record a metadata record holds (nil when
// none), of a version this one reads; one that replaces what came before
// clears it at once.
func (s *shared) lsRecordOf(rec map[string]json.RawMessage) (*lsRecord, string) {
	raw, ok := rec[lsKey]
	if !ok {
		return nil, ""
	}
	ls := &lsRecord{}
	if err := json.Unmarshal(raw, ls); err != nil {
		return nil, "a gemini-ls record that does not decode: " + err.Error()
	}
	if s.newerFormat(ls.V) {
		return nil, newerReason
	}
	if ls.V < oldSharedVersion {
		return nil, fmt.Sprintf("a gemini-ls record of version %d, which no gemini-ls writes (it writes %d to %d)", ls.V, oldSharedVersion, sharedVersion)
	}
	if ls.Replace {
		s.allow, s.usage, s.exchanges, s.derived, s.running = nil, Usage{}, nil, map[string]bool{}, nil
	}
	return ls, ""
}

func (s *shared) merge(h header) {
	if h.SessionID != "" {
		s.SessionID = h.SessionID
	}
	if h.ProjectHash != "" {
		s.ProjectHash = h.ProjectHash
	}
	if h.StartTime != "" {
		s.StartTime = h.StartTime
	}
	if h.LastUpdated != "" {
		s.LastUpdated = h.LastUpdated
	}
	if h.Kind != "" {
		s.Kind = h.Kind
	}
}

// addAll adds messages (of a "messages" array); ls: gemini-ls wrote them.
func (s *shared) addAll(raws []json.RawMessage, ls bool) string {
	for _, raw := range raws {
		var probe struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(raw, &probe) != nil {
			continue
		}
		if _, ok := probe.ID.(string); !ok {
			continue // 0.61 skips it too
		}
		var m decoded
		if err := json.Unmarshal(raw, &m.message); err != nil {
			return "a message that does not decode: " + err.Error()
		}
		ps, err := parts(m.Content)
		if err != nil {
			return "a message whose content does not decode: " + err.Error()
		}
		m.parts, m.ls = ps, ls || m.LS != nil
		if m.ls {
			s.put(&m)
		} else {
			s.add(&m)
		}
	}
	return ""
}

// put adds or (same id) replaces m, keeping its place.
func (s *shared) put(m *decoded) {
	if _, ok := s.msgs[m.ID]; !ok {
		s.order = append(s.order, m.ID)
	}
	s.msgs[m.ID] = m
}

// add takes a message 0.61 wrote: its tokens count, and a new prompt
// of the user's is an exchange of the transcript.
func (s *shared) add(m *decoded) {
	// A prompt gemini-ls left running and Gemini CLI went on from.
	s.endRunning()
	_, known := s.msgs[m.ID]
	s.put(m)
	if m.Tokens != nil {
		s.tokens61[m.ID] = usageOf(m.Tokens)
	}
	if !known && m.prompt() {
		s.exchanges = append(s.exchanges, Exchange{Prompt: displayText(m), StopReason: "end_turn", MessageID: m.ID})
		s.derived[m.ID] = true
		s.after++
	}
}

// displayText is what the user typed of a prompt: its displayContent,
// else its content's text.
func displayText(m *decoded) string {
	if ps, err := parts(m.DisplayContent); err == nil && len(ps) > 0 {
		return plainText(ps)
	}
	return plainText(m.parts)
}

// record takes gemini-ls's record of a prompt (or of the whole session).
func (s *shared) record(ls *lsRecord) {
	if ls.Replace || ls.Context != "" {
		s.context = ls.Context
	}
	switch {
	case ls.Replace:
		s.running = openRunning(ls.Running)
	case ls.Step == stepBegin:
		s.endRunning()
		s.running = openRunning(s.withPrompt(ls.Running, ls.PromptOf))
	case ls.Step == stepEnd:
		s.running = nil // the exchange below is the prompt's
	default:
		s.endRunning()
	}
	if ls.Meta != nil {
		m := *ls.Meta
		s.lsMeta, s.after = &m, 0
	}
	for _, key := range ls.Allow {
		if !slices.Contains(s.allow, key) {
			s.allow = append(s.allow, key)
		}
	}
	if ls.Usage != nil {
		s.usage.add(*ls.Usage)
	}
	s.exchanges = append(s.exchanges, ls.Exchanges...)
	if ls.Exchange != nil {
		s.exchanges = append(s.exchanges, *s.withPrompt(ls.Exchange, ls.PromptOf))
	}
}

// withPrompt is ex with its prompt, left out of the record, taken back
// from message id's text (storeOnce); ex as it is otherwise. A message
// not in the file (rewound away, or the file edited) leaves a prompt
// that says its text is missing, never an empty one.
func (s *shared) withPrompt(ex *Exchange, id string) *Exchange {
	if ex == nil || id == "" || ex.Prompt != "" {
		return ex
	}
	full := *ex
	if m := s.msgs[id]; m != nil {
		full.Prompt = plainText(m.parts)
	} else {
		full.Prompt = fmt.Sprintf("[the text of this prompt is not in the session file: its message %s is missing]", id)
	}
	return &full
}

// rewind drops the messages from id on, all of them when id names none
// (as 0.61 does), and the transcript's exchanges from id's prompt on.
func (s *shared) rewind(id string) {
	i := slices.Index(s.order, id)
	if i < 0 {
		s.order, s.msgs = nil, map[string]*decoded{}
		s.exchanges = nil
		return
	}
	for _, gone := range s.order[i:] {
		delete(s.msgs, gone)
	}
	s.order = s.order[:i]
	if j := slices.IndexFunc(s.exchanges, func(e Exchange) bool { return e.MessageID == id }); j >= 0 {
		s.exchanges = s.exchanges[:j]
	}
}

// messages are the messages in order.
func (s *shared) messages() []*decoded {
	out := make([]*decoded, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.msgs[id])
	}
	return out
}

// fill gives the exchanges made from 0.61's prompts their answers: the
// text of the model's messages up to the next prompt.
func (s *shared) fill() {
	msgs := s.messages()
	for i := range s.exchanges {
		ex := &s.exchanges[i]
		if !s.derived[ex.MessageID] {
			continue
		}
		j := slices.IndexFunc(msgs, func(m *decoded) bool { return m.ID == ex.MessageID })
		if j < 0 {
			continue
		}
		var answer []string
		for _, m := range msgs[j+1:] {
			if m.prompt() {
				break
			}
			if m.Type == "gemini" {
				if t := plainText(m.parts); strings.TrimSpace(t) != "" {
					answer = append(answer, t)
				}
			}
		}
		ex.Answer = strings.Join(answer, "\n\n")
	}
}

// resumable reports whether the session has anything to resume, as 0.61
// lists a session only then.
func (s *shared) resumable() bool {
	return slices.ContainsFunc(s.messages(), (*decoded).resumable)
}

// firstPrompt is 0.61's firstUserMessage, cleaned as its list shows it,
// cut at DisplayNameRunes.
func (s *shared) firstPrompt() string {
	for _, m := range s.messages() {
		if m.Type == "user" && m.resumable() {
			return ellipsis.Cut(cleanMessage(plainText(m.parts), DisplayNameRunes+1), DisplayNameRunes)
		}
	}
	return "Empty conversation"
}

// cleanMessage is 0.61's: one line, printable ASCII only; it stops once
// it holds limit characters.
func cleanMessage(s string, limit int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if b.Len() >= limit {
			break
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == ' ':
			space = true
		case r >= 0x20 && r <= 0x7e:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String()
}

// history is the model's history as 0.61 rebuilds it on --resume
// (convertSessionToClientHistory): info, error and warning messages and
// ignored user messages left out; a model message's content as it is
// when it holds a call or a thought, else its text with its toolCalls as
// calls and their results as a user content after it. Two things 0.61
// gets wrong are put right: the text of 0.61's recorded thoughts is not
// sent (it has no signature, and gemini-ls keeps no thoughts), and a
// call's result recorded both in toolCalls and in the user message after
// it is sent once.
func (s *shared) history() []*genai.Content {
	var out []*genai.Content
	answered := map[string]bool{}
	push := func(role string, ps []*genai.Part) {
		var kept []*genai.Part
		for _, p := range ps {
			if p.FunctionResponse != nil && p.FunctionResponse.ID != "" {
				if answered[p.FunctionResponse.ID] {
					continue
				}
				answered[p.FunctionResponse.ID] = true
			}
			kept = append(kept, p)
		}
		if len(kept) == 0 {
			return
		}
		if role == genai.RoleModel {
			// Only a result sent since the last call is a repeat: ids
			// may come back in later turns.
			clear(answered)
		}
		out = append(out, &genai.Content{Role: role, Parts: kept})
	}
	for _, m := range s.messages() {
		switch m.Type {
		case "user":
			if ignoredUserText(partsText(m.parts)) {
				continue
			}
			push(genai.RoleUser, slices.Clone(m.parts))
		case "gemini":
			var model []*genai.Part
			calls := slices.ContainsFunc(m.parts, func(p *genai.Part) bool { return p.FunctionCall != nil || p.Thought })
			if calls {
				for _, p := range m.parts {
					switch {
					case !p.Thought:
						model = append(model, p)
					case p.ThoughtSignature != nil:
						// The thought is not sent back; its signature is.
						model = append(model, &genai.Part{ThoughtSignature: p.ThoughtSignature})
					}
				}
			} else {
				for _, p := range m.parts {
					if p.Text != "" || p.ThoughtSignature != nil || p.InlineData != nil || p.FileData != nil {
						model = append(model, p)
					}
				}
				for _, tc := range m.ToolCalls {
					args := tc.Args
					if args == nil {
						args = map[string]any{}
					}
					model = append(model, &genai.Part{FunctionCall: &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: args}})
				}
			}
			if len(model) == 0 {
				if m.ls && len(m.ToolCalls) == 0 {
					// gemini-ls's record of an answer that said nothing:
					// its history leaves it out with what it answered.
					out = append(out, &genai.Content{Role: genai.RoleModel})
				}
				continue
			}
			push(genai.RoleModel, model)
			var results []*genai.Part
			for _, tc := range m.ToolCalls {
				results = append(results, toolResult(tc)...)
			}
			push(genai.RoleUser, results)
		}
	}
	return out
}

// toolResult is a recorded call's result as 0.61 sends it back.
func toolResult(tc toolCall) []*genai.Part {
	raw := bytes.TrimSpace(tc.Result)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: tc.ID, Name: tc.Name, Response: map[string]any{"output": s}}}}
	}
	ps, err := parts(raw)
	if err != nil {
		return nil
	}
	return ps
}

// meta is the session's metadata: gemini-ls's last record's, brought up
// to date with what 0.61 added since; else made from 0.61's.
func (s *shared) meta(root string) Meta {
	m := Meta{ID: s.SessionID, Root: root, Created: parseTime(s.StartTime), Updated: parseTime(s.LastUpdated)}
	if s.lsMeta != nil {
		ls := *s.lsMeta
		ls.ID, ls.Root = s.SessionID, root
		ls.Prompts += s.after
		if ls.Updated.Before(m.Updated) {
			ls.Updated = m.Updated
		}
		m = ls
	} else {
		for _, msg := range s.messages() {
			if msg.prompt() {
				m.Prompts++
			}
			if msg.Model != "" {
				m.Model = msg.Model
			}
		}
	}
	m.Shared = true
	m.DisplayName = s.firstPrompt()
	if s.summary != "" {
		m.DisplayName = ellipsis.Cut(s.summary, DisplayNameRunes)
	}
	if m.Title == "" {
		m.Title = m.DisplayName
	}
	m.Title = ellipsis.Cut(m.Title, TitleRunes)
	return m
}

// A session's listing is bounded where it is made: 0.61 lists a session
// by its first prompt whole, and a pasted prompt of megabytes would go
// whole to every list (an editor's picker, ACP's session/list) and into
// the summaries kept of it.
const (
	// TitleRunes bounds a session's title: what editors and ACP clients
	// list it by, and what gemini-ls titles a session it makes by.
	TitleRunes = 80
	// DisplayNameRunes bounds its display name, of which 0.61's
	// --list-sessions shows 100 characters.
	DisplayNameRunes = 1000
)

// snapshot is the whole session.
func (s *shared) snapshot(root string) Snapshot {
	usage := s.usage
	for _, u := range s.tokens61 {
		usage.add(u)
	}
	snap := Snapshot{Meta: s.meta(root), History: s.history(), Allow: s.allow, Usage: usage, Exchanges: s.exchanges, Interrupted: s.interrupted, Context: s.context}
	snap.close()
	return snap
}

// endRunning ends the running prompt, if any, as interrupted: its
// exchange, with the answer it had, joins the transcript and its usage
// the session's.
func (s *shared) endRunning() {
	if r := s.running; r != nil {
		s.running = nil
		s.usage.add(r.usage)
		s.exchanges = append(s.exchanges, r.exchange())
	}
}
