// Gemini's models as VS Code's language model API sees them, and VS Code's
// chat messages as gemini/answer takes them: the mapping both ways, with
// no vscode import, so that it is tested alone (languageModels.ts
// registers the provider).

import type { AnswerParams, ModelInfo } from "./protocol";

/** The vendor VS Code knows gemini-ls's models by: `vscode.lm.selectChatModels({ vendor: "gemini-ls" })`. */
export const lmVendor = "gemini-ls";

/**
 * The Gemini models' context window and output limit, as gemini-ls's agent
 * knows them (internal/agent/compress.go's DefaultTokenLimit; 64K out).
 */
export const geminiInputTokens = 1_048_576;
export const geminiOutputTokens = 65_536;

/** LanguageModelChatInformation, as VS Code 1.104 finalized it. */
export interface LmModelInfo {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly detail?: string;
  readonly tooltip?: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly imageInput?: boolean; readonly toolCalling?: boolean | number };
}

/**
 * gemini/models' list as VS Code's models: each model by the id
 * gemini-ls asks for and the name its own picker shows. Auto is left out:
 * it routes a gemini-ls prompt by how hard it looks, a choice made for
 * the agent's turns, and VS Code's chat picks its own model. No tool
 * calling is offered: gemini-ls's own chat is where its tools and the
 * review of its edits are.
 */
export function lmModels(models: readonly ModelInfo[]): LmModelInfo[] {
  return models
    .filter((m) => !m.id.startsWith("auto"))
    .map((m) => ({
      id: m.id,
      name: m.name,
      family: m.name,
      version: m.id,
      detail: "gemini-ls",
      tooltip: `${m.name}, through gemini-ls with your Gemini sign-in. For Gemini's tools and the review of its edits, use gemini-ls's own chat.`,
      maxInputTokens: geminiInputTokens,
      maxOutputTokens: geminiOutputTokens,
      capabilities: { imageInput: false, toolCalling: false },
    }));
}

/** LanguageModelChatMessageRole's values: User 1, Assistant 2, and the System 3 of a proposal. */
export const lmRole = { user: 1, assistant: 2, system: 3 } as const;

/** LanguageModelChatRequestMessage, as much of it as is read. */
export interface LmMessage {
  readonly role: number;
  readonly content: ReadonlyArray<unknown>;
}

/**
 * VS Code's messages as gemini/answer's: the text of each (its
 * LanguageModelTextPart values; tool calls and results, which gemini-ls
 * does not offer here, and data are left out), the system messages as
 * the system instruction, messages with no text dropped, and the turns
 * of one role in a row made one, as Gemini takes a conversation.
 */
export function answerMessages(messages: readonly LmMessage[]): Pick<AnswerParams, "system" | "messages"> {
  const system: string[] = [];
  const out: { role: "user" | "assistant"; text: string }[] = [];
  for (const m of messages) {
    const text = m.content.map(partText).join("");
    if (text.trim() === "") {
      continue;
    }
    if (m.role === lmRole.system) {
      system.push(text);
      continue;
    }
    const role = m.role === lmRole.assistant ? "assistant" : "user";
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) {
      last.text += "\n\n" + text;
    } else {
      out.push({ role, text });
    }
  }
  return system.length > 0 ? { system: system.join("\n\n"), messages: out } : { messages: out };
}

/** A part's text: a LanguageModelTextPart's value; "" for any other part. */
function partText(part: unknown): string {
  if (typeof part === "string") {
    return part;
  }
  if (typeof part === "object" && part !== null && "value" in part && typeof part.value === "string") {
    return part.value;
  }
  return "";
}

/**
 * About how many tokens text is to Gemini: a quarter of its characters,
 * as Gemini CLI estimates before it asks. VS Code asks for each message,
 * often, to fit a conversation in the window; asking the model each time
 * would cost a request per message.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
