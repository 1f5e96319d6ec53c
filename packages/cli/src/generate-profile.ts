import { ProviderError, exitCodeForFailure, type LLMClient } from '@beans/core';

const INSTRUCTIONS = `You write system prompts for a terminal coding agent that reads, searches, edits and runs code
through tools (read_file, write_file, edit_file, shell, glob, grep, list_directory, todo_write, load_skill).
Given a description of the agent a user wants, write its profile: Markdown, second person ("You are ..."),
under 400 words: its role, how it works in a codebase, what it must and must not do, and how it reports.
Reply with the profile text only: no preamble, no code fence, no frontmatter.`;

/** Has the LLM write a profile from a one-line description (`beans -a "..."`). */
export async function generateProfile(client: LLMClient, model: string, description: string): Promise<string> {
  const result = await client.chat({
    model,
    system: INSTRUCTIONS,
    messages: [{ role: 'user', content: `Description of the agent: ${description}` }],
  });
  if (result.failure) throw new ProviderError(`Could not write the profile: ${result.failure.message}`, result.failure.kind, exitCodeForFailure(result.failure));
  const text = result.text.trim().replace(/^```(?:markdown|md)?\n([\s\S]*?)\n```$/, '$1');
  if (!text) throw new ProviderError('The model returned an empty profile; try again or write .beans/agent.md yourself.', 'unknown');
  return text;
}
