// The extension's modules import one another one way: no module reaches
// back to one that imports it, types included (a type import is a tie a
// reader follows as much as any other). extension.ts builds the state from
// the modules of each concern; they take its type from gemini.ts.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

// The bundled tests run from editors/vscode/dist/test.
const srcDir = path.resolve(__dirname, "../../src");

/** Each module of dir (a path relative to it, without .ts) and the modules of dir it imports. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, entry.name);
      if (entry.isDirectory()) {
        visit(rel);
      } else if (entry.name.endsWith(".ts")) {
        const text = readFileSync(path.join(dir, rel), "utf8");
        const from = rel.slice(0, -3);
        const targets = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gms)].map((m) =>
          path.posix.normalize(path.posix.join(path.posix.dirname(from), m[1])),
        );
        graph.set(from, targets);
      }
    }
  };
  visit("");
  return graph;
}

/** A loop of imports in graph, as the modules it passes through; [] when there is none. */
function findCycle(graph: Map<string, string[]>): string[] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const walk = (node: string): string[] => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        return [...stack.slice(stack.indexOf(next)), next];
      }
      if (state.get(next) === undefined && graph.has(next)) {
        const found = walk(next);
        if (found.length > 0) {
          return found;
        }
      }
    }
    stack.pop();
    state.set(node, "done");
    return [];
  };
  for (const node of graph.keys()) {
    if (state.get(node) === undefined) {
      const found = walk(node);
      if (found.length > 0) {
        return found;
      }
    }
  }
  return [];
}

describe("the extension's imports", () => {
  const graph = importGraph(srcDir);

  it("reads the modules and their imports", () => {
    assert.ok(graph.size > 30, `only ${graph.size} modules under ${srcDir}`);
    assert.ok(graph.get("extension")?.includes("server"), "extension.ts's import of ./server was not read");
    assert.ok(graph.get("webview/main")?.includes("chatModel"), "webview/main.ts's import of ../chatModel was not read");
  });

  it("has no loop", () => {
    assert.deepEqual(findCycle(graph), []);
  });

  it("finds a loop where there is one", () => {
    // The loop issue 87 named: a module taking the state's type from extension.ts.
    const looped = new Map(graph);
    looped.set("server", [...(graph.get("server") ?? []), "extension"]);
    assert.deepEqual(findCycle(looped).at(-1), findCycle(looped)[0]);
    assert.ok(findCycle(looped).includes("extension"));
  });

  it("takes the state's type from gemini.ts, never from extension.ts", () => {
    const importers = [...graph].filter(([, targets]) => targets.includes("extension")).map(([from]) => from);
    assert.deepEqual(importers, []);
  });
});
