/** src/protocol.ts's text for the schema of docs/protocol.schema.json. */
export function generateProtocol(schema: unknown): string;
