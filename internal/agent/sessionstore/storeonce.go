package sessionstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// storeOnce leaves the prompt's text out of ls's running prompt (a begin
// line) or exchange (a prompt's end) when a message holds it already: the
// line's own (the prompt's input, last of a begin line; the exchange's
// message in a prompt saved whole), or stored's, a prompt begun by an
// earlier line whose message holds its text. ls.PromptOf then names that
// message, which a reader takes the text back from (shared.withPrompt),
// so a huge prompt is written once and not three times.
func storeOnce(ls *lsRecord, history []*genai.Content, msgs []message, stored *Exchange) {
	switch {
	case ls.Replace:
	case ls.Step == stepBegin && ls.Running != nil && len(msgs) > 0:
		last := msgs[len(msgs)-1]
		if last.Type == "user" && ls.Running.Prompt != "" && textIs(contentOf(history, msgs, last.ID), ls.Running.Prompt) {
			running := *ls.Running
			running.Prompt = ""
			ls.Running, ls.PromptOf = &running, last.ID
		}
	case ls.Exchange != nil && ls.Exchange.Prompt != "":
		ex := ls.Exchange // promptLine's copy
		own := contentOf(history, msgs, ex.MessageID)
		if (own != nil && textIs(own, ex.Prompt)) ||
			(own == nil && stored != nil && stored.MessageID != "" && ex.MessageID == stored.MessageID && ex.Prompt == stored.Prompt) {
			ls.PromptOf, ex.Prompt = ex.MessageID, ""
		}
	}
}

// contentOf is the content of history that message id of msgs is made
// of (messagesOf makes one message of each content but nil ones); nil
// when none is.
func contentOf(history []*genai.Content, msgs []message, id string) *genai.Content {
	i := 0
	for _, c := range history {
		if c == nil {
			continue
		}
		if i < len(msgs) && msgs[i].ID == id {
			return c
		}
		i++
	}
	return nil
}

// textIs reports whether c's text, as plainText joins it, is s, without
// joining it (a prompt may be tens of MiB).
func textIs(c *genai.Content, s string) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p == nil || p.Thought || p.FunctionCall != nil || p.FunctionResponse != nil {
			continue
		}
		if !strings.HasPrefix(s, p.Text) {
			return false
		}
		s = s[len(p.Text):]
	}
	return s == ""
}

// encodeLine is line as json.Marshal encodes it, '\n' after, in pieces
// to write in turn, with each message's content, JSON already, not
// copied: marshalled inside the line it would be copied and re-encoded
// twice more, and joined into the line copied once more, and a prompt
// may be 16 MiB. The line is encoded with a placeholder, unique to it, in
// each content's place, and the contents go between its pieces. A content
// that json.Marshal made is compact and escaped as the line's encoding
// would leave it, so the bytes are the same.
func encodeLine(line promptLine) (net.Buffers, error) {
	msgs := slices.Clone(line.Messages)
	tag := NewID()
	var placeholders, contents [][]byte
	for i := range msgs {
		if len(msgs[i].Content) == 0 {
			continue // omitted from the line
		}
		ph := []byte(`"` + tag + "-" + strconv.Itoa(i) + `"`)
		placeholders, contents = append(placeholders, ph), append(contents, msgs[i].Content)
		msgs[i].Content = ph
	}
	line.Messages = msgs
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	out := make(net.Buffers, 0, 2*len(contents)+1)
	for i, ph := range placeholders {
		j := bytes.Index(b, ph)
		if j < 0 {
			return nil, fmt.Errorf("the content of message %d went missing from its line", i)
		}
		out = append(out, b[:j:j], contents[i])
		b = b[j+len(ph):]
	}
	return append(out, append(b, '\n')), nil
}

// sizeOf is the size of what buffers hold.
func sizeOf(buffers net.Buffers) int64 {
	var n int64
	for _, b := range buffers {
		n += int64(len(b))
	}
	return n
}

// maxGathered is the most buffers one writev takes (IOV_MAX on Linux and
// the BSDs).
const maxGathered = 1024

// pieceWise is the size up to which buffers too many for one writev are
// joined into one write; more is written in batches of them.
const pieceWise = 1 << 20

// writeLines writes buffers to f as one write, gathered (writeGathered)
// when they are more than one, so that another process appending to the
// same file never lands inside a line: a line's contents (a tool's
// output, a prompt of up to 16 MiB) are not copied into one buffer for
// it, where the system can gather them. Buffers too many for one writev
// are joined, up to pieceWise bytes.
func writeLines(f *os.File, buffers net.Buffers) error {
	if len(buffers) > maxGathered && sizeOf(buffers) <= pieceWise {
		buffers = net.Buffers{bytes.Join(buffers, nil)}
	}
	if len(buffers) == 1 {
		_, err := f.Write(buffers[0])
		return err
	}
	return writeGathered(f, buffers)
}

// consumed is buffers less their first n bytes.
func consumed(buffers net.Buffers, n int) net.Buffers {
	for len(buffers) > 0 && n >= len(buffers[0]) {
		n -= len(buffers[0])
		buffers = buffers[1:]
	}
	if len(buffers) > 0 {
		buffers[0] = buffers[0][n:]
	}
	return buffers
}
