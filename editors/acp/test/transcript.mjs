// Renders the scenarios' wire logs as Markdown and puts them into a file
// between <!-- BEGIN TRANSCRIPT --> and <!-- END TRANSCRIPT -->, so the
// transcript in docs/acp.md is what a real run exchanged.
import * as fs from "node:fs";

const BEGIN = "<!-- BEGIN TRANSCRIPT -->";
const END = "<!-- END TRANSCRIPT -->";

// What a complete transcript shows; each one missing from a run is listed
// as a TODO at the top, so a partial transcript says so.
const expected = [
  "initialize",
  "authenticate",
  "session/new",
  "session/prompt",
  "session/cancel",
  "session/load",
  "session/list",
  "session/set_mode",
  "session/set_config_option",
  "session/request_permission",
  "fs/read_text_file",
  "fs/write_text_file",
  "terminal/create",
  "terminal/output",
  "terminal/wait_for_exit",
  "terminal/kill",
  "terminal/release",
  "update: agent_message_chunk",
  "update: agent_thought_chunk",
  "update: user_message_chunk",
  "update: tool_call",
  "update: tool_call_update",
  "update: available_commands_update",
  "update: plan",
  "update: config_option_update",
  "content: diff",
  "content: terminal",
  "error",
];

// seen adds what msg shows to set.
function seen(set, msg) {
  if (msg.method) set.add(msg.method);
  if (msg.method === "session/update") {
    const u = msg.params?.update;
    set.add(`update: ${u?.sessionUpdate}`);
    // Chunks carry one content block; tool calls a list of tool call contents.
    if (Array.isArray(u?.content)) for (const c of u.content) if (c?.type) set.add(`content: ${c.type}`);
  }
  if (msg.method === "session/request_permission") {
    for (const c of msg.params?.toolCall?.content ?? []) if (c?.type) set.add(`content: ${c.type}`);
  }
  if (msg.error) set.add("error");
}

// sameness is a message's JSON with its request id and session ids
// blanked, to find repeats.
function sameness(json) {
  const m = JSON.parse(json);
  delete m.id;
  return JSON.stringify(m).replace(/"sessionId":"[^"]*"/g, '"sessionId":""');
}

// render is a message as on the wire, one line, when short; else indented.
function render(m) {
  const line = JSON.stringify(m);
  return line.length <= 280 ? line : JSON.stringify(m, null, 2);
}

export function writeTranscript(file, sections, { mcp }) {
  const shown = new Set();
  const out = [];
  let firstInit; // the first section's initialize params, as JSON
  let initShown = false;
  // Long messages already shown, but for their ids, by the title of the
  // section that showed them: later ones say so instead of repeating.
  const long = new Map();
  for (const { scenario, wire, failed, dirs } of sections) {
    const paths = [];
    for (const d of dirs) paths.push([d.root, "/home/user/project"], [d.home, "/home/user"], [d.base, "/tmp/acp-test"]);
    paths.push([mcp, "/usr/local/bin/mcpserver"]);
    const clean = (s) => {
      for (const [from, to] of paths) s = s.split(from).join(to);
      return s;
    };
    out.push(`### ${scenario.title}`, "");
    if (failed) out.push(`> **TODO (regenerate after the merge):** this scenario failed in the run that wrote this transcript; what follows is what was exchanged up to the failure.`, "");
    out.push(scenario.doc, "", "```jsonc");
    const requests = new Map(); // id → method, of the client's requests
    const agentRequests = new Map(); // id → method, of the agent's requests
    let initId;
    for (const e of wire.entries) {
      if (e.note) {
        out.push(`// ${e.note}`);
        continue;
      }
      if (e.raw !== undefined) {
        out.push(`// client → agent (raw line)`, clean(e.raw));
        continue;
      }
      const m = e.msg;
      seen(shown, m);
      const arrow = e.from === "client" ? "client → agent" : "agent → client";
      let what = "";
      if (m.method) {
        if ("id" in m) (e.from === "client" ? requests : agentRequests).set(m.id, m.method);
        if (m.method === "initialize") {
          initId = m.id;
          const params = JSON.stringify(m.params);
          if (initShown && params === firstInit) {
            out.push(`// ${arrow}: initialize, as in the first section`);
            continue;
          }
          firstInit ??= params;
        }
        what = m.method === "session/update" ? `session/update (${m.params?.update?.sessionUpdate})` : m.method + ("id" in m ? "" : " (notification)");
      } else {
        const of = (e.from === "client" ? agentRequests : requests).get(m.id);
        what = `${m.error ? "error" : "result"}${of ? ` of ${of}` : ""}`;
        if (initShown && m.id === initId && e.from === "agent" && !m.error) {
          out.push(`// ${arrow}: ${what}, as in the first section`);
          continue;
        }
      }
      const text = clean(render(m));
      if (text.includes("\n")) {
        const key = sameness(clean(JSON.stringify(m)));
        const where = long.get(key);
        if (where) {
          out.push(`// ${arrow}: ${what}, the same as in "${where}" but for its ids`);
          continue;
        }
        long.set(key, scenario.title);
      }
      out.push(`// ${arrow}: ${what}`, text);
    }
    if (initId !== undefined) initShown = true;
    out.push("```", "");
  }
  const missing = expected.filter((x) => !shown.has(x));
  const head = [
    `_Generated by \`make test-acp ACP_TRANSCRIPT=docs/acp.md\` (editors/acp/test) on ${new Date().toISOString().slice(0, 10)}; do not edit by hand. Paths are rewritten: the workspace is /home/user/project._`,
    "",
  ];
  if (missing.length) {
    head.push(
      `> **TODO (regenerate after the merge):** this run exchanged no ${missing.map((x) => `\`${x}\``).join(", ")}. Those parts of the agent were not built on the branch that generated it.`,
      "",
    );
  }
  const body = [...head, ...out].join("\n");
  const doc = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : `${BEGIN}\n${END}\n`;
  const i = doc.indexOf(BEGIN);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`${file} has no ${BEGIN} … ${END}`);
  fs.writeFileSync(file, doc.slice(0, i + BEGIN.length) + "\n" + body + "\n" + doc.slice(j));
}
