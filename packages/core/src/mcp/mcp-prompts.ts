import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** A prompt a server offers, usable as the slash command `/mcp__<server>__<prompt> args`. */
export interface McpPromptInfo {
  server: string;
  name: string;
  description?: string;
  arguments: { name: string; required?: boolean }[];
}

export interface PromptServer {
  name: string;
  client(): Promise<Client>;
}

/** The slash command of a prompt: Claude Code's `/mcp__server__prompt`. */
function mcpPromptCommand(server: string, prompt: string): string {
  return `mcp__${server}__${prompt}`;
}

/**
 * Expands `/mcp__server__prompt a b c` into the prompt's text, the words filling the prompt's
 * arguments in order (the last argument takes the rest). Undefined when the text names no MCP prompt.
 * Throws with a usage line when a required argument is missing.
 */
export async function expandMcpPrompt(text: string, prompts: readonly McpPromptInfo[], servers: readonly PromptServer[]): Promise<string | undefined> {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const prompt = prompts.find((candidate) => mcpPromptCommand(candidate.server, candidate.name) === match[1]);
  if (!prompt) return undefined;
  const words = (match[2] ?? '').trim().split(/\s+/).filter(Boolean);
  const args: Record<string, string> = {};
  prompt.arguments.forEach((argument, index) => {
    const last = index === prompt.arguments.length - 1;
    const value = last ? words.slice(index).join(' ') : words[index];
    if (value) args[argument.name] = value;
  });
  const missing = prompt.arguments.filter((argument) => argument.required && !(argument.name in args));
  if (missing.length > 0) {
    throw new Error(
      `/${match[1]} needs ${missing.map((argument) => argument.name).join(', ')}: /${match[1]} ${prompt.arguments.map((argument) => `<${argument.name}>`).join(' ')}`,
    );
  }
  const server = servers.find((candidate) => candidate.name === prompt.server);
  if (!server) return undefined;
  const result = await (await server.client()).getPrompt({ name: prompt.name, arguments: args });
  return result.messages
    .map((message) =>
      message.content.type === 'text'
        ? message.content.text
        : message.content.type === 'resource' && 'text' in message.content.resource
          ? String(message.content.resource.text)
          : `[${message.content.type}]`,
    )
    .join('\n\n');
}
