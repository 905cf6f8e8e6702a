import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { confirmAsk } from "../../src/approval";
import { askedHTML, renderMarkdown } from "../../src/webview/markdown";

describe("renderMarkdown", () => {
  it("renders the model's Markdown", () => {
    assert.equal(renderMarkdown("**bold** and `code`"), "<p><strong>bold</strong> and <code>code</code></p>\n");
    assert.match(renderMarkdown("```diff\n-a\n+b\n```"), /<pre><code class="language-diff">-a\n\+b\n<\/code><\/pre>/);
  });

  it("escapes raw HTML instead of rendering it", () => {
    const html = renderMarkdown('<script>alert(1)</script><img src=x onerror="alert(2)">');
    assert.doesNotMatch(html, /<script|<img/);
    assert.match(html, /&lt;script&gt;/);
  });

  it("draws a to-do list's items as checkboxes, ticked or not, that cannot be clicked", () => {
    const html = renderMarkdown("- [x] Read the **code**\n- [ ] Write the test\n- [y] not a box\n\n[ ] not in a list");
    assert.match(html, /<li class="task-item"><input type="checkbox" class="task" disabled checked> Read the <strong>code<\/strong><\/li>/);
    assert.match(html, /<li class="task-item"><input type="checkbox" class="task" disabled> Write the test<\/li>/);
    assert.match(html, /<li>\[y\] not a box<\/li>/);
    assert.match(html, /<p>\[ \] not in a list<\/p>/);
    assert.doesNotMatch(renderMarkdown("- [x] <img src=x>"), /<img/, "the rest of the item is still escaped");
  });

  it("drops javascript: links", () => {
    assert.doesNotMatch(renderMarkdown("[x](javascript:alert(1))"), /href="javascript:/);
  });
});

describe("askedHTML", () => {
  it("renders an answered shell approval's command as a code block, not its fences", () => {
    const params = confirmAsk({ sessionId: "S", callId: "c1", kind: "execute", title: "Run?", details: "echo allowed > allow-marker.txt", canAllowAlways: false }, undefined);
    const html = askedHTML(params);
    assert.match(html, /^<pre><code class="language-sh">echo allowed &gt; allow-marker.txt\n<\/code><\/pre>\n<p>Runs in the workspace folder\.<\/p>/);
    assert.doesNotMatch(html, /```/);
  });

  it("renders a question's words, and repeats no plan", () => {
    assert.equal(askedHTML({ kind: "ask", text: " Which **database**? " }), "Which <strong>database</strong>?", "one paragraph runs on from the title");
    assert.equal(askedHTML({ kind: "ask", text: "One.\n\nTwo." }), "<p>One.</p>\n<p>Two.</p>\n");
    assert.equal(askedHTML({ kind: "plan_approval", text: "# The plan" }), "");
    assert.equal(askedHTML({ kind: "ask", text: "  " }), "");
  });
});
