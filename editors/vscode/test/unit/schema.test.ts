// The extension against the wire schema (docs/protocol.schema.json, which
// `go generate .` writes from the server's types): every update kind has
// a handler and each kind's example is handled, every confirmation kind
// gets a question, and every method the extension handles is the
// server's. Each check is also run on a doctored copy of the schema, to
// show it would fail.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { updateHandlers, type Item } from "../../src/chatModel";
import { confirmDialog } from "../../src/present";
import type { ConfirmParams, Update } from "../../src/protocol";
import { receiveUpdate, serverToClient } from "../../src/updates";
import { recordingTarget } from "./updateTarget";

interface Schema {
  "x-methods": Record<string, { direction: string; type: string }>;
  $defs: Record<string, any>;
}

// The bundled tests run from editors/vscode/dist/test.
const schemaPath = path.resolve(__dirname, "../../../../docs/protocol.schema.json");
const schema: Schema = JSON.parse(readFileSync(schemaPath, "utf8"));

/** The update kinds of the schema, each with its first example. */
function updateKinds(s: Schema): Map<string, Update> {
  const kinds = new Map<string, Update>();
  for (const ref of s.$defs.Update.oneOf as { $ref: string }[]) {
    const def = s.$defs[ref.$ref.split("/").at(-1)!];
    kinds.set(def.properties.kind.const, def.examples?.[0]);
  }
  return kinds;
}

/** What differs between the schema's update kinds and the handlers': kinds without a handler, handlers of no kind. */
function handlerMismatch(s: Schema): { unhandled: string[]; unknown: string[] } {
  const kinds = [...updateKinds(s).keys()];
  const handled = Object.keys(updateHandlers);
  return { unhandled: kinds.filter((k) => !handled.includes(k)), unknown: handled.filter((k) => !kinds.includes(k)) };
}

/** The methods the extension handles that the schema does not list as the server's to send. */
function staleMethods(s: Schema): string[] {
  const handled: string[] = [...serverToClient.notifications, ...serverToClient.requests];
  return handled.filter((m) => !["server-to-client", "both"].includes(s["x-methods"][m]?.direction));
}

/** The confirmation kinds whose question comes out empty or fails. */
function unaskedConfirmations(s: Schema): string[] {
  return (s.$defs.ConfirmParams.properties.kind.enum as string[]).filter((kind) => {
    // No title: the question must not rest on the server's words alone.
    const params = { sessionId: "S1", callId: "call_1", kind: kind as ConfirmParams["kind"], canAllowAlways: true };
    try {
      const dialog = confirmDialog(params);
      return dialog.message.trim() === "" || dialog.buttons.length === 0;
    } catch {
      return true;
    }
  });
}

/** A copy of the schema, changed by doctor. */
function doctored(doctor: (s: Schema) => void): Schema {
  const copy: Schema = structuredClone(schema);
  doctor(copy);
  return copy;
}

/** The kinds that show nothing in the chat: they change the status bar, the mode or the "/" list. */
const silentKinds = ["usage", "commands", "mode", "model", "plan"];

/** The chat's items of the running turn, as plain text to look into. */
function shown(items: readonly Item[]): string {
  return JSON.stringify(items);
}

describe("the wire schema", () => {
  it("has update kinds and confirmation kinds to check", () => {
    assert.ok(updateKinds(schema).size >= 13, `${schemaPath} lists ${updateKinds(schema).size} update kinds`);
    assert.ok(schema.$defs.ConfirmParams.properties.kind.enum.length > 0);
  });

  it("has a handler for every update kind, and none for a kind it lacks", () => {
    assert.deepEqual(handlerMismatch(schema), { unhandled: [], unknown: [] });
    // The check fails on a kind without a handler, and on a handler without a kind.
    const added = doctored((s) => {
      s.$defs.FakeUpdate = { properties: { kind: { const: "fake" } }, examples: [{ sessionId: "S1", kind: "fake" }] };
      s.$defs.Update.oneOf.push({ $ref: "#/$defs/FakeUpdate" });
    });
    assert.deepEqual(handlerMismatch(added), { unhandled: ["fake"], unknown: [] });
    const removed = doctored((s) => {
      s.$defs.Update.oneOf = s.$defs.Update.oneOf.filter((r: { $ref: string }) => !r.$ref.endsWith("/TopicUpdate"));
    });
    assert.deepEqual(handlerMismatch(removed), { unhandled: [], unknown: ["topic"] });
  });

  for (const [kind, example] of updateKinds(schema)) {
    it(`handles the example of a ${kind} update through the update entry point`, () => {
      assert.ok(example, `the schema has no example of ${kind}`);
      const { seen, target } = recordingTarget();
      receiveUpdate(example, target);
      const items = seen.chat.turns[0].items;
      if (silentKinds.includes(kind)) {
        assert.deepEqual(items, [], `${kind} shows nothing in the chat`);
      } else {
        assert.ok(items.length > 0, `${kind} shows something in the chat`);
      }
      if (kind === "topic") {
        assert.match(shown(items), /Topic: Serving files — Start a web server\.\\nStart the server and check it serves\./);
      }
      if (kind === "commands") {
        assert.equal(seen.reloads, 1, "a commands update asks gemini/commands again");
      }
      if (kind === "plan") {
        assert.deepEqual(seen.chat.todos, (example as { todos: unknown[] }).todos, "a plan update fills the plan widget");
      }
      if (kind === "mode") {
        assert.equal(seen.chat.mode, (example as { mode: string }).mode);
      }
      if (kind === "model") {
        assert.equal(seen.model?.current, (example as { model: string }).model);
      }
    });
  }

  it("asks a question for every confirmation kind", () => {
    assert.deepEqual(unaskedConfirmations(schema), []);
  });

  it("handles only methods the server sends", () => {
    assert.deepEqual(staleMethods(schema), []);
    const renamed = doctored((s) => {
      s["x-methods"]["gemini/ask-renamed"] = s["x-methods"]["gemini/ask"];
      delete s["x-methods"]["gemini/ask"];
    });
    assert.deepEqual(staleMethods(renamed), ["gemini/ask"]);
  });
});
