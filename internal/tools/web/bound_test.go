package web

import (
	"fmt"
	"strings"
	"testing"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// Converting a page takes time linear in its size, however hostile:
// texts the parser once joined by += (<td>a, a</x>), links and
// paragraphs by the hundred thousand, attributes merged into <html>,
// formatting left open.
func TestToMarkdownIsLinear(t *testing.T) {
	numbered := func(format string) func(size int) string {
		return func(size int) string {
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, format, i)
			}
			return b.String()
		}
	}
	for _, c := range []struct {
		name  string
		input func(size int) string
	}{
		{"td text", lineartest.Repeat("<td>a")},
		{"text and stray end tags", lineartest.Repeat("a</x>")},
		{"text in a table", func(size int) string { return "<table>" + lineartest.Repeat("a</x>")(size) }},
		{"links", lineartest.Repeat("<a>a")},
		{"linked paragraphs", lineartest.Repeat("<p><a href=/x title=t>a</a>")},
		{"list items", lineartest.Repeat("<li>a")},
		{"misnested formatting", lineartest.Repeat("<b>a<p>b</b>c")},
		{"formatting left open", lineartest.Repeat("<b><i><u>a</p>")},
		{"html attributes", numbered("<html a%d>")},
		{"formatting attributes", numbered("<p><b class=c%d>")},
		{"text", lineartest.Repeat("a &amp; b < c\n")},
		{"escapes", lineartest.Repeat(`\*_[a]`)},
		{"raw text", lineartest.Repeat("<title><b></title><xmp>a<b</xmp><script>a<b</script>")},
	} {
		lineartest.Linear(t, c.name, c.input, func(doc string) { _, _, _ = toMarkdown(doc, "https://example.com/") })
	}
}

// nodes counts the nodes of the tree under n.
func nodes(n *html.Node) int {
	count := 1
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		count += nodes(c)
	}
	return count
}

// The parser's tree grows with the tokens kept, at most a few nodes each:
// formatting left open is not cloned into every later paragraph (400
// unclosed <b>s and "<p>x" 4,000 times made 1.6 million nodes of 19 KB).
func TestFormattingIsNotCloned(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("<p>")
	for i := range 400 {
		fmt.Fprintf(&doc, "<b class=c%d>", i)
	}
	doc.WriteString(strings.Repeat("<p>x", 4000))
	bounded := boundHTML(doc.String())
	root, err := html.Parse(strings.NewReader(bounded.doc))
	if err != nil {
		t.Fatal(err)
	}
	if n := nodes(root); n > maxNodesPerToken*bounded.kept+maxNodesBeyond {
		t.Errorf("%d tokens made %d nodes", bounded.kept, n)
	}
	// The <b>s end with their paragraph, as the parser ends an element
	// of any other name.
	_, md, err := toMarkdown(doc.String(), "https://example.com/")
	if err != nil || !strings.HasPrefix(md, "x\n\nx\n\n") {
		t.Errorf("Markdown %.80q, %v", md, err)
	}
}

// The parser makes a few nodes of a token at most: the element or text,
// a clone of the a it keeps open, the elements a cell or a </p> implies;
// and html, head and body once.
const (
	maxNodesPerToken = 4
	maxNodesBeyond   = 4
)

// What the converter shows of a well-formed page is what it showed
// without the bound: links and images with their titles, code's language,
// a list's start, an SVG's links, text with references, a title.
func TestBoundKeepsWhatTheConverterShows(t *testing.T) {
	for _, doc := range []string{
		`<!DOCTYPE html><html><head><title>A &amp; B &lt;c&gt;</title><style>p{}</style><script>if (a<b) x()</script></head>` +
			`<body><h1 id="top" class="big">Hi</h1><p>Some <b>bold</b>, <i>it</i>, <strong>strong</strong>, <em>em</em>, <code>code</code>, <s>gone</s>.</p>` +
			`<p><a href="/x?a=1&amp;b=2" title="the &quot;x&quot;" data-id="7">a link</a> and <img src="i.png" alt="an &lt;image&gt;" width="3"></p>` +
			`<pre><code class="language-go">func main() { if a < b {} }</code></pre><ol start="3"><li>three<li>four</ol>` +
			`<!-- a comment --><table><tr><th>h<td>d</table><blockquote>q</blockquote>` +
			`<svg><a xlink:href="/svg-link"><text>label</text></a></svg><textarea>t</textarea><xmp>x</xmp></body></html>`,
		"text <3 & more &notin; here\r\nand a <b>bold <i>nested</i></b> end",
		"<ul><li><a href=https://example.org/>one</a></li><li><font color=red>two</font></li></ul>",
	} {
		root, err := html.Parse(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		want, err := htmltomarkdown.ConvertNode(root, converter.WithDomain("https://example.com/"))
		if err != nil {
			t.Fatal(err)
		}
		if _, got, err := toMarkdown(doc, "https://example.com/"); err != nil || got != string(want) {
			t.Errorf("%.60q became\n%q, want\n%q (%v)", doc, got, want, err)
		}
	}
}

// A page of more than maxHTMLTokens tokens is converted up to there, and
// its Markdown says so first.
func TestLongPageIsCutSayingSo(t *testing.T) {
	doc := "<title>Long</title>" + strings.Repeat("<p>word", maxHTMLTokens) + "<p>LAST"
	title, md, err := toMarkdown(doc, "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	total := 2*maxHTMLTokens + 5 // title's 3, then 2 a paragraph
	want := fmt.Sprintf("[gemini-ls converted only the first %d of this page's %d HTML tags, texts and comments, to bound the work; the rest of the page is not shown.]\n\nword\n\n", maxHTMLTokens, total)
	if title != "Long" || !strings.HasPrefix(md, want) || strings.Contains(md, "LAST") {
		t.Errorf("title %q, Markdown %.300q…", title, md)
	}
	if _, md, _ := toMarkdown("<p>short", ""); strings.Contains(md, "gemini-ls") {
		t.Errorf("a short page: %q", md)
	}
}

// FuzzBoundHTML: the page the parser reads reads back the same (no token
// is made of two), and its tree has a few nodes a token at most.
//
//	go test -run '^$' -fuzz FuzzBoundHTML ./internal/tools/web/
func FuzzBoundHTML(f *testing.F) {
	for _, doc := range []string{
		"<p><b class=1><b class=2><i title=t>a<p>b<p>c",
		"<<!---->b x=1>a",
		"<svg><style><b x=1></style><title>a<b</title></svg><![CDATA[<b>]]>",
		"<table>a<td>b<tr>c</table></p></br><image src=x>",
		"<a href=1>x<a href=2>y<nobr>z<nobr>w",
		"<script/><p>a</p><plaintext><b>x",
		"<html a=1><body b=2><html c=3>&amp;&lt;&#0;\x00\r\n",
		"<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><frameset></frameset></html> <x>",
	} {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		bounded := boundHTML(doc)
		if again := boundHTML(bounded.doc); again.doc != bounded.doc {
			t.Fatalf("boundHTML(%q) = %q, which reads back as %q", doc, bounded.doc, again.doc)
		}
		root, err := html.Parse(strings.NewReader(bounded.doc))
		if err != nil {
			return // nested too deep: the parser's bound
		}
		if n := nodes(root); n > maxNodesPerToken*bounded.kept+maxNodesBeyond {
			t.Fatalf("%q: %d tokens (%q) made %d nodes", doc, bounded.kept, bounded.doc, n)
		}
	})
}
