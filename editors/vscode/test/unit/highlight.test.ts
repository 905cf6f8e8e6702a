import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { highlighted } from "../../src/webview/highlight";

describe("highlighted", () => {
  it("colours a bundled language, by its name or an alias, keeping the text", () => {
    const html = highlighted('func hello() string {\n\treturn "hello"\n}\n', "go");
    assert.ok(html !== undefined);
    assert.match(html, /<span class="hljs-keyword">func<\/span>/);
    assert.match(html, /<span class="hljs-string">&quot;hello&quot;<\/span>/);
    assert.equal(html.replace(/<[^>]+>/g, "").replace(/&quot;/g, '"'), 'func hello() string {\n\treturn "hello"\n}\n');
    assert.match(highlighted("const x = 1;", "ts") ?? "", /hljs-keyword/);
    assert.match(highlighted("ls -la | grep x", "sh") ?? "", /hljs-built_in|hljs-keyword/);
  });

  it("escapes the model's markup in the code", () => {
    const html = highlighted('x := "<img src=x onerror=alert(1)>"', "go") ?? "";
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img/);
  });

  it("leaves diffs (coloured line by line) and unknown languages plain", () => {
    assert.equal(highlighted("-a\n+b\n", "diff"), undefined);
    assert.equal(highlighted("x", "no-such-language"), undefined);
    assert.equal(highlighted("x", ""), undefined);
  });
});
