// An MCP server of the TypeScript SDK v2 (@modelcontextprotocol/server),
// for internal/tools/mcp's 2026-07-28 suite: it serves only the
// 2026-07-28 revision over stdio (legacy: 'reject'), so a client that
// cannot discover it cannot use it.
import { McpServer, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

serveStdio(() => {
    const server = new McpServer({ name: 'ts-v2', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Echoes the message.', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: 'ts echo: ' + message }] }));
    const where = z.object({ env: z.enum(['staging', 'production']) });
    server.registerTool('deploy', { description: 'Deploys, asking where.', inputSchema: z.object({}) }, async (_args, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'where', where);
        if (!answer) {
            return inputRequired({ inputRequests: { where: inputRequired.elicit({ message: 'Deploy where?', requestedSchema: where }) } });
        }
        return { content: [{ type: 'text', text: 'ts deployed to ' + answer.env }] };
    });
    return server;
}, { legacy: 'reject' });
