import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderMarkdown } from "../../src/webview/markdown";

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

  it("drops javascript: links", () => {
    assert.doesNotMatch(renderMarkdown("[x](javascript:alert(1))"), /href="javascript:/);
  });
});
