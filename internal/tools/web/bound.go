package web

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The work of converting a page is bounded, not only its bytes. A page is
// read token by token (tags, texts, comments), in linear time, and given
// to the HTML parser rewritten so that the parser's work, and the tree it
// builds, grow with the tokens kept, whatever the page holds:
//
//   - Only the first maxHTMLTokens tokens are kept; the Markdown says so.
//   - A tag keeps only the attributes the converter reads (an element
//     with a thousand attributes is cloned, compared and merged whole).
//   - The formatting elements but a (b, i, code, font, …) reach the parser
//     under other names and get theirs back in the tree. The parser
//     clones every formatting element its end tag did not close into each
//     new paragraph ("reconstruct the active formatting elements"): 400
//     unclosed <b>s and "<p>x" repeated made 1.6 million nodes of 19 KB.
//     Under another name an element ends with its end tag or its
//     parent's, and is never copied; a stays an a, as the parser keeps at
//     most one open and closes it at the next.
//   - Text is written escaped, so that no '<' the parser reads starts a
//     tag this reading did not see: the parser reads raw text (a <title>,
//     a <style>) as markup inside an <svg>, and two texts once apart meet
//     when a comment between them is dropped. The content of <script> and
//     <style>, which the converter drops, is dropped here.
//
// Comments, which the converter drops, are dropped.

// maxHTMLTokens bounds the tokens of a page converted to Markdown: about
// a third of a second for the slowest pages tried, a 4 MiB page of
// documentation, and more text than web_fetch hands on (250,000
// characters, all pages together).
const maxHTMLTokens = 250_000

// renamedPrefix starts the name a formatting element has while parsed.
const renamedPrefix = "gemini-ls-"

// boundedHTML is a page as the parser reads it.
type boundedHTML struct {
	doc string
	// kept and total count the page's tokens: those in doc, and all.
	kept, total int
}

// boundHTML rewrites doc for the parser (see above).
func boundHTML(doc string) boundedHTML {
	z := html.NewTokenizer(strings.NewReader(doc))
	var b strings.Builder
	b.Grow(len(doc))
	var out boundedHTML
	rawText := "" // the element whose raw text the next text token is
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		out.total++
		if out.total > maxHTMLTokens {
			continue // counted, not kept
		}
		out.kept++
		rawText = writeToken(&b, z, tt, rawText)
	}
	out.doc = b.String()
	return out
}

// writeToken writes z's token, of type tt, as the parser is to read it;
// rawText is the element whose raw text it is, if a text. It returns the
// element whose raw text the next token is, if any.
func writeToken(b *strings.Builder, z *html.Tokenizer, tt html.TokenType, rawText string) string {
	switch tt {
	case html.TextToken:
		writeText(b, string(z.Text()), rawText)
	case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
		return writeTag(b, z, tt)
	case html.DoctypeToken:
		b.Write(z.Raw()) // from "<!" to the first '>': nothing else
	}
	return ""
}

// writeText writes a text: as the parser decodes it back; the raw text of
// a <script> or <style> not at all; other raw text (an <xmp>'s) as it is
// but for its '<'s, which would be shown as "&lt;".
func writeText(b *strings.Builder, text, rawText string) {
	switch rawText {
	case "", "title", "textarea": // character references decoded
		b.WriteString(html.EscapeString(text))
	case "script", "style":
	default:
		b.WriteString(strings.ReplaceAll(text, "<", "&lt;"))
	}
}

// writeTag writes a tag with only the attributes the converter reads, a
// formatting element renamed. It returns the tag's name if its content is
// raw text.
func writeTag(b *strings.Builder, z *html.Tokenizer, tt html.TokenType) string {
	name, hasAttr := z.TagName()
	tag := string(name)
	b.WriteByte('<')
	if tt == html.EndTagToken {
		b.WriteByte('/')
	}
	if renamed(atom.Lookup(name)) {
		b.WriteString(renamedPrefix)
	}
	b.WriteString(tag)
	for hasAttr && tt != html.EndTagToken {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		if convertedAttribute(string(key)) {
			b.WriteByte(' ')
			b.Write(key)
			b.WriteString(`="`)
			b.WriteString(html.EscapeString(string(val)))
			b.WriteByte('"')
		}
	}
	if tt == html.SelfClosingTagToken {
		b.WriteByte('/')
	}
	b.WriteByte('>')
	if tt != html.EndTagToken && rawTextElement(tag) {
		return tag
	}
	return ""
}

// renamed reports whether a is a formatting element parsed under another
// name: all but a (see above).
func renamed(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr,
		atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// convertedAttribute reports whether the converter reads attributes named
// key: links, images, code's language, a list's start.
func convertedAttribute(key string) bool {
	switch key {
	case "href", "xlink:href", "src", "alt", "title", "class", "start":
		return true
	}
	return false
}

// rawTextElement reports whether the tokenizer reads the content of a
// start tag of this name as raw text.
func rawTextElement(name string) bool {
	switch name {
	case "iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp":
		return true
	}
	return false
}

// restoreNames gives the formatting elements of the tree under n their
// names back.
func restoreNames(n *html.Node) {
	if n.Type == html.ElementNode && n.Namespace == "" {
		if name, ok := strings.CutPrefix(n.Data, renamedPrefix); ok {
			n.Data, n.DataAtom = name, atom.Lookup([]byte(name))
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		restoreNames(c)
	}
}

// cutNote is what the Markdown of a page cut at maxHTMLTokens starts
// with.
func (h boundedHTML) cutNote() string {
	if h.kept == h.total {
		return ""
	}
	return fmt.Sprintf("[gemini-ls converted only the first %d of this page's %d HTML tags, texts and comments, to bound the work; the rest of the page is not shown.]\n\n", h.kept, h.total)
}
