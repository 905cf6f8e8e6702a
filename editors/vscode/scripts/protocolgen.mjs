// Writes src/protocol.ts, the wire types of gemini-ls's messages, from
// docs/protocol.schema.json (which `go generate .` writes from the
// server's Go types): one TypeScript type per $defs entry, the names the
// extension reads parts of by (aliases: a session's info is the
// `session` of gemini/resumeSession's result), and `methods`, every
// method of x-methods by a short name. gen-protocol.mjs runs it; a unit
// test fails when src/protocol.ts is not what it writes.

/**
 * The names the extension gives parts of the schema's types, each as the
 * TypeScript that reaches the part from a $defs type.
 */
const aliases = [
  ["PromptContext", "Defined<PromptParams[\"context\"]>", "What gemini/prompt's context carries: the file, the selection, the diagnostics."],
  // LSP's own, as the server sends them (every field there).
  ["Range", "Defined<NextEditResult[\"edits\"]>[number][\"range\"]", "LSP's Range."],
  ["Position", "Range[\"start\"]", "LSP's Position."],
  ["PromptDiagnostic", "Defined<Defined<DiagnosticsResult[\"items\"]>[number][\"diagnostics\"]>[number]", "LSP's Diagnostic, as much of it as gemini-ls reads: in gemini/prompt's context, in gemini/diagnostics' answer."],
  ["StopReason", "PromptResult[\"stopReason\"]", "Why a prompt's turn ended: end_turn, cancelled, max_turns, max_tokens, loop_detected, error."],
  ["ToolStatus", "ToolResultUpdate[\"status\"]", "How a tool call ended: ok, error, rejected, cancelled."],
  ["ApprovalMode", "ModeUpdate[\"mode\"]", "A session's approval mode: default, auto_edit, plan, yolo, or one a newer server adds."],
  ["TokenUsage", "Defined<UsageUpdate[\"promptUsage\"]>", "Token counts summed over a prompt's or a session's model requests."],
  ["ConfirmOutcome", "ConfirmResult[\"outcome\"]", "The answer to gemini/confirm: proceed_once, proceed_always or cancel."],
  ["SessionInfo", "ResumeSessionResult[\"session\"]", "One session, as gemini/listSessions lists it."],
  ["SessionsResult", "ListSessionsResult", "gemini/listSessions' result."],
  ["Exchange", "Defined<ResumeSessionResult[\"exchanges\"]>[number]", "One prompt of a resumed session, as the user saw it."],
  ["AuthReport", "LoginResult[\"auth\"]", "How the server reaches the model, and whether it can (gemini/authStatus' result)."],
  ["ModelInfo", "Defined<ModelsResult[\"models\"]>[number]", "One model of gemini/models' list."],
];

/** The TypeScript type of schema s, for a reader indent deep. */
function typeOf(s, indent) {
  if (s === true || s === undefined || (typeof s === "object" && Object.keys(s).length === 0)) {
    return "unknown";
  }
  if (s.$ref !== undefined) {
    return s.$ref.split("/").at(-1);
  }
  if (s.const !== undefined) {
    return JSON.stringify(s.const);
  }
  if (s.enum !== undefined) {
    return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  }
  const union = s.oneOf ?? s.anyOf;
  if (union !== undefined) {
    return union.map((u) => typeOf(u, indent)).join(" | ");
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return types.map((t) => simpleType(t, s, indent)).join(" | ");
}

/** The TypeScript of one JSON type t of schema s. */
function simpleType(t, s, indent) {
  switch (t) {
    case "null":
      return "null";
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const item = typeOf(s.items, indent);
      return /^[\w"]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object":
      return objectType(s, indent);
    default:
      return "unknown";
  }
}

/** An object schema as a TypeScript object type, its optional fields marked. */
function objectType(s, indent) {
  const props = Object.entries(s.properties ?? {});
  const open = s.additionalProperties !== undefined && s.additionalProperties !== false;
  if (props.length === 0) {
    return open ? `Record<string, ${typeOf(s.additionalProperties, indent)}>` : "Record<string, never>";
  }
  const required = new Set(s.required ?? []);
  const pad = "  ".repeat(indent + 1);
  const lines = props.map(([name, p]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return `${doc(p.description, pad)}${pad}${key}${required.has(name) ? "" : "?"}: ${typeOf(p, indent + 1)};`;
  });
  if (open) {
    lines.push(`${pad}[key: string]: unknown;`);
  }
  return `{\n${lines.join("\n")}\n${"  ".repeat(indent)}}`;
}

/** A doc comment of text, one line, at pad; "" without text. */
function doc(text, pad) {
  if (!text) {
    return "";
  }
  const line = text.replace(/\s+/g, " ").replace(/\*\//g, "*\\/").trim();
  return `${pad}/** ${line} */\n`;
}

/**
 * Every method of x-methods by a short name: gemini/NAME by NAME, any
 * other by its last segment where no method named before has it, else by
 * all its segments ($/cancelRequest: protocolCancelRequest).
 */
function methodNames(xMethods) {
  const all = Object.keys(xMethods).sort();
  const ordered = [...all.filter((m) => m.startsWith("gemini/")), ...all.filter((m) => !m.startsWith("gemini/"))];
  const names = new Map();
  for (const method of ordered) {
    const short = method.split("/").at(-1).replace(/^\$/, "");
    names.set(names.has(short) ? wholeName(method) : short, method);
  }
  return names;
}

/** A method's segments as one camelCase name, $ read as protocol. */
function wholeName(method) {
  const words = method.replace(/^\$/, "protocol").split("/");
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
}

/** src/protocol.ts's text for schema. */
export function generateProtocol(schema) {
  const out = [
    "// Code generated by scripts/gen-protocol.mjs from docs/protocol.schema.json; DO NOT EDIT.",
    "// Run `npm run gen` in editors/vscode after `go generate .` changed the schema.",
    "// Pure data: this module is shared by the extension host and the chat webview.",
    "",
    "/** T without undefined and null: a field's type once it is there. */",
    "type Defined<T> = Exclude<T, undefined | null>;",
    "",
  ];
  for (const name of Object.keys(schema.$defs).sort()) {
    const def = schema.$defs[name];
    out.push(`${doc(def.description, "")}export type ${name} = ${typeOf(def, 0)};`, "");
  }
  for (const [name, type, text] of aliases) {
    out.push(`/** ${text} */`, `export type ${name} = ${type};`, "");
  }
  out.push("/** Every method of the protocol (x-methods), by a short name. */", "export const methods = {");
  for (const [short, method] of methodNames(schema["x-methods"])) {
    out.push(`  ${/^[A-Za-z_$][\w$]*$/.test(short) ? short : JSON.stringify(short)}: ${JSON.stringify(method)},`);
  }
  out.push("} as const;", "");
  return out.join("\n");
}
